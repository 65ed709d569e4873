package console_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// Keys of consoleConfig.
const (
	prodKey    = "test-key-production"
	stagingKey = "test-key-staging-0001"
)

// consoleConfig is a collector with the console on, two environments, a
// static monitor judging chat spans and fast setup polling.
const consoleConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    otlp_proxy_endpoint: http://{{.OTLPHTTP}}
    setup_poll_interval: 200ms
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: ` + prodKey + `, environment: production, organization_id: acme, project_id: web}
      - {key: ` + stagingKey + `, environment: staging, organization_id: acme, project_id: web}
receivers:
  otlp:
    protocols:
      http: {endpoint: {{.OTLPHTTP}}, auth: {authenticator: evalapi}}
processors:
  tenant: {}
  evaluator:
    api: evalapi
    monitors:
      - name: safety
        evaluators: [toxicity-detector, pii-detector]
        condition: 'attributes["gen_ai.operation.name"] == "chat"'
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant, evaluator], exporters: [warehouse]}
`

// chromiumPath returns the browser the suite drives: $EVALCOL_CHROMIUM,
// else chromium, chromium-browser or google-chrome on the PATH.
func chromiumPath() string {
	if p := os.Getenv("EVALCOL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// exchange is one chat turn of a test trace.
type exchange struct {
	Service, Workflow, SpanName, Model string
	Prompt, Completion                 string
	// Attrs are extra attributes of the chat span.
	Attrs map[string]string
	// Err, when set, is the chat span's error status message.
	Err string
}

// sendTrace sends one trace over OTLP/HTTP with key: a workflow root span,
// a retrieval child and one chat span per exchange (the static monitor
// judges the chat spans). It returns the trace id.
func sendTrace(t *testing.T, c *testcollector.Collector, key string, turns ...exchange) string {
	t.Helper()
	first := turns[0]
	res := resource.NewSchemaless(attribute.String("service.name", first.Service))
	var traceID string
	spans, err := c.Send(testcollector.HTTP, key, res, func(tr trace.Tracer) {
		ctx, root := tr.Start(context.Background(), first.Workflow+".workflow")
		root.SetAttributes(attribute.String("traceloop.workflow.name", first.Workflow), attribute.String("traceloop.span.kind", "workflow"))
		traceID = root.SpanContext().TraceID().String()
		_, ret := tr.Start(ctx, "vector_store.retrieve")
		ret.SetAttributes(attribute.String("traceloop.workflow.name", first.Workflow), attribute.String("db.system", "qdrant"))
		time.Sleep(2 * time.Millisecond)
		ret.End()
		for i, x := range turns {
			_, sp := tr.Start(ctx, x.SpanName)
			attrs := []attribute.KeyValue{
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.system", "openai"),
				attribute.String("traceloop.workflow.name", x.Workflow),
				attribute.String("traceloop.entity.name", "joker"),
				attribute.String("gen_ai.request.model", x.Model),
				attribute.String("gen_ai.response.model", x.Model+"-2024-08-06"),
				attribute.Int("gen_ai.usage.input_tokens", 20+i),
				attribute.Int("gen_ai.usage.output_tokens", 30+i),
				attribute.Int("llm.usage.total_tokens", 50+2*i),
				attribute.String("gen_ai.prompt.0.role", "system"),
				attribute.String("gen_ai.prompt.0.content", "You are a friendly assistant."),
				attribute.String("gen_ai.prompt.1.role", "user"),
				attribute.String("gen_ai.prompt.1.content", x.Prompt),
				attribute.String("gen_ai.completion.0.role", "assistant"),
				attribute.String("gen_ai.completion.0.content", x.Completion),
			}
			for k, v := range x.Attrs {
				attrs = append(attrs, attribute.String(k, v))
			}
			sp.SetAttributes(attrs...)
			if x.Err != "" {
				// As instrumentations record a failed call: an exception
				// event (type, message, stack) and the error status.
				sp.RecordError(errors.New(x.Err+` <script>alert("stack")</script>`), trace.WithStackTrace(true))
				sp.SetStatus(codes.Error, x.Err)
			}
			time.Sleep(3 * time.Millisecond)
			sp.End()
		}
		root.End()
	})
	if err != nil {
		t.Fatalf("send trace: %v", err)
	}
	if len(spans) != 2+len(turns) {
		t.Fatalf("sent %d spans", len(spans))
	}
	return traceID
}

// browser drives one headless chromium tab and records what the page does
// that it should not: dialogs, console errors and uncaught exceptions.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
	rec  *recorder
}

// recorder collects what a page did that it should not.
type recorder struct {
	mu       sync.Mutex
	dialogs  []string
	problems []string
}

// on returns the browser reporting failures to t (a subtest).
func (b *browser) on(t *testing.T) *browser {
	c := *b
	c.t = t
	return &c
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 860),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base, rec: &recorder{}}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 860)); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable log domain: %v", err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	consoles := chromedp.Events(ctx, runtime.ConsoleAPICalled)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	logs := chromedp.Events(ctx, cdplog.EntryAdded)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.rec.mu.Lock()
			b.rec.dialogs = append(b.rec.dialogs, string(ev.Type)+": "+ev.Message)
			b.rec.mu.Unlock()
			// Dismiss, so a payload that opened one cannot block the suite.
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	go func() {
		for ev, err := range consoles {
			if err != nil {
				return
			}
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				b.problem("console." + string(ev.Type) + ": " + strings.Join(parts, " "))
			}
		}
	}()
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			b.problem("exception: " + ev.ExceptionDetails.Text)
		}
	}()
	go func() {
		for ev, err := range logs {
			if err != nil {
				return
			}
			// Network entries are the 4xx answers the suite asks for on
			// purpose; everything else (CSP violations, script errors)
			// counts.
			if (ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning) && ev.Entry.Source != cdplog.EntrySourceNetwork {
				b.problem("log " + string(ev.Entry.Source) + ": " + ev.Entry.Text + " " + ev.Entry.URL)
			}
		}
	}()
	return b
}

func (b *browser) problem(s string) {
	b.rec.mu.Lock()
	defer b.rec.mu.Unlock()
	b.rec.problems = append(b.rec.problems, s)
}

// report returns the dialogs and problems seen so far.
func (b *browser) report() (dialogs, problems []string) {
	b.rec.mu.Lock()
	defer b.rec.mu.Unlock()
	return append([]string(nil), b.rec.dialogs...), append([]string(nil), b.rec.problems...)
}

// run runs steps with a timeout, failing the test on error.
func (b *browser) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// visit navigates to path and returns the HTTP status of the document.
func (b *browser) visit(path string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(b.base+path))
	if err != nil {
		b.t.Fatalf("navigate to %s: %v", path, err)
	}
	return resp.Status
}

// submit clicks a submit button and returns the HTTP status of the page
// the form leads to.
func (b *browser) submit(sel string) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("submit %s: %v", sel, err)
	}
	return resp.Status
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func (b *browser) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatalf("location: %v", err)
	}
	return strings.TrimPrefix(loc, b.base)
}

// cookies returns the browser's cookies for the console.
func (b *browser) cookies() map[string]*network.Cookie {
	b.t.Helper()
	res, err := chromedp.Call(b.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.base + "/ui/"}})
	if err != nil {
		b.t.Fatalf("get cookies: %v", err)
	}
	out := map[string]*network.Cookie{}
	for _, c := range res.Cookies {
		out[c.Name] = c
	}
	return out
}

// login logs in through the form with key and returns the status of the
// answer.
func (b *browser) login(key string) int64 {
	b.t.Helper()
	b.visit("/ui/login")
	b.run("type the API key", chromedp.SetValue(chromedp.ID("api_key"), key))
	return b.submit("#login-submit")
}

// eventually reloads path until cond holds for the page (a JavaScript
// boolean expression), failing after timeout.
func (b *browser) eventually(path, cond string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b.visit(path)
		if eval[bool](b, cond) {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: %s still false after %s; page text:\n%s", path, cond, timeout, truncated(b.text("main"), 3000))
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// screenshot saves the viewport as docs/console-<name>.png when
// EVALCOL_CONSOLE_SCREENSHOTS is set (normal runs leave docs/ alone).
func (b *browser) screenshot(name string) {
	b.t.Helper()
	if os.Getenv("EVALCOL_CONSOLE_SCREENSHOTS") == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := filepath.Join("..", "..", "..", "..", "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, "console-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatalf("write %s: %v", path, err)
	}
	b.t.Logf("screenshot %s: %d KB", path, len(png)/1024)
}

func truncated(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func assertNoProblems(t *testing.T, b *browser) {
	t.Helper()
	dialogs, problems := b.report()
	if len(dialogs) > 0 {
		t.Errorf("dialogs opened: %q", dialogs)
	}
	if len(problems) > 0 {
		t.Errorf("console errors: %q", problems)
	}
}

var _ = fmt.Sprintf
