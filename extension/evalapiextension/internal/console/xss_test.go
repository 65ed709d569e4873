package console_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// Payloads of the stored XSS test: each would run script, load a resource
// or navigate if the console rendered span text as markup or as a URL.
const (
	xssPrompt     = `<script>alert("xss-prompt")</script>`
	xssCompletion = `<img src=x onerror="alert('xss-completion')">`
	xssSpanName   = `<svg onload=alert("xss-span")>chat`
	xssService    = `svc<script>console.error("xss-service")</script>`
	xssWorkflow   = `"><iframe src="javascript:alert('xss-workflow')"></iframe>`
	xssAttr       = `javascript:alert('xss-attr')`
	xssAttr2      = `'><img src=x onerror=alert("xss-attr2")>`
	xssRole       = `user" onmouseover="alert('xss-role')`
	xssEvalName   = `<b onmouseover=alert("xss-eval")>judge</b>`
)

// TestConsoleStoredXSS sends spans whose prompt, completion, span name,
// service name, workflow, role, attribute values and an application's own
// evaluation result carry <script>, onerror= and javascript: payloads,
// then opens every page that shows them in chromium: nothing runs (no
// dialog, no console error, no CSP violation), no element is injected, and
// the payloads are shown as text.
func TestConsoleStoredXSS(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	c := testcollector.Start(t, consoleConfig)
	res := resource.NewSchemaless(attribute.String("service.name", xssService), attribute.String("deployment.note", xssAttr2))
	var traceID, spanID string
	_, err := c.Send(testcollector.HTTP, prodKey, res, func(tr trace.Tracer) {
		_, sp := tr.Start(context.Background(), xssSpanName)
		traceID, spanID = sp.SpanContext().TraceID().String(), sp.SpanContext().SpanID().String()
		sp.SetAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("traceloop.workflow.name", xssWorkflow),
			attribute.String("gen_ai.request.model", xssAttr2),
			attribute.String("gen_ai.prompt.0.role", xssRole),
			attribute.String("gen_ai.prompt.0.content", xssPrompt),
			attribute.String("gen_ai.completion.0.role", "assistant"),
			attribute.String("gen_ai.completion.0.content", xssCompletion),
			attribute.String("user.homepage", xssAttr),
			attribute.String(xssAttr2, "attribute key payload"),
		)
		// An evaluation result the application recorded itself.
		sp.AddEvent("gen_ai.evaluation.result", trace.WithAttributes(
			attribute.String("gen_ai.evaluation.name", xssEvalName),
			attribute.Float64("gen_ai.evaluation.score.value", 0.5),
			attribute.String("gen_ai.evaluation.score.label", xssAttr2),
		))
		sp.End()
	})
	if err != nil {
		t.Fatalf("send spans: %v", err)
	}
	// A setup whose entity and external id carry payloads.
	resp := c.Call("POST", "/v2/auto-monitor-setups", prodKey, map[string]any{
		"entity_type": "workflow", "entity_value": xssWorkflow, "external_id": xssPrompt, "evaluators": []string{"char-count"},
	})
	if resp.Status != 201 {
		t.Fatalf("create setup = %d %s", resp.Status, resp.Body)
	}

	b := newBrowser(t, "http://"+c.API)
	if status := b.login(prodKey); status != 200 {
		t.Fatalf("login = %d", status)
	}
	b.eventually("/ui/traces", `document.querySelectorAll("#trace-list tbody tr.row").length === 1 && document.querySelectorAll("#trace-list .chip").length === 3`, 20*time.Second)

	filtered := "/ui/traces?" + url.Values{"service": {xssService}, "attr": {"user.homepage=" + xssAttr}, "workflow": {xssWorkflow}}.Encode()
	pages := []struct {
		name, path string
		want       []string
	}{
		{"traces list", "/ui/traces", []string{xssService, xssWorkflow, xssSpanName, xssAttr2, xssEvalName}},
		{"spans view", "/ui/traces?view=spans", []string{xssService, xssWorkflow, xssSpanName, xssEvalName}},
		{"filters reflected", filtered, []string{xssSpanName}},
		{"trace page", "/ui/traces/" + traceID + "?span=" + spanID, []string{xssPrompt, xssCompletion, xssSpanName, xssService, xssWorkflow, xssAttr, xssAttr2, xssRole, xssEvalName}},
		{"playground prefill", "/ui/evaluators/toxicity-detector?trace_id=" + traceID + "&span_id=" + spanID, []string{xssSpanName}},
		{"monitors", "/ui/monitors", []string{xssPrompt, xssWorkflow}},
		{"unknown trace", "/ui/traces/" + url.PathEscape(xssPrompt), []string{xssPrompt}},
	}
	for _, pg := range pages {
		t.Run(pg.name, func(t *testing.T) {
			b := b.on(t)
			b.visit(pg.path)
			b.run("let the page settle", chromedp.Sleep(300*time.Millisecond))
			text := eval[string](b, `document.body.innerText + "\n" + [...document.querySelectorAll("input, textarea")].map(e => e.value).join("\n")`)
			for _, w := range pg.want {
				if !strings.Contains(text, w) {
					t.Errorf("page does not show the payload %q as text", w)
				}
			}
			injected := eval[int](b, `document.querySelectorAll("img, iframe, [onerror], [onload], [onmouseover], main script").length`)
			if injected != 0 {
				t.Errorf("%d elements injected by payloads", injected)
			}
			if n := eval[int](b, `document.scripts.length`); n != 1 {
				t.Errorf("%d script elements, want only console.js", n)
			}
			if pg.name == "trace page" {
				b.screenshot("xss-trace")
			}
			if jsHref := eval[int](b, `[...document.querySelectorAll("a[href], form[action]")].filter(e => (e.getAttribute("href") || e.getAttribute("action")).trim().toLowerCase().startsWith("javascript:")).length`); jsHref != 0 {
				t.Errorf("%d javascript: links", jsHref)
			}
		})
	}
	t.Run("playground result", func(t *testing.T) {
		b := b.on(t)
		b.visit("/ui/evaluators/toxicity-detector?trace_id=" + traceID + "&span_id=" + spanID)
		b.submit("#run")
		if j := b.text("#result-json"); !strings.Contains(j, "is_safe") {
			t.Errorf("result %s", j)
		}
	})
	assertNoProblems(t, b)
}
