package e2etest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.yaml.in/yaml/v3"
)

// childAPIKey is the API key of the child collectors' configs.
const childAPIKey = "child-key-production"

// buildEvalcol builds cmd/evalcol into a temporary directory and returns the
// binary's path. It skips the test when the go command is missing.
func buildEvalcol(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found: cannot build the evalcol binary")
	}
	bin := filepath.Join(t.TempDir(), "evalcol")
	cmd := exec.Command(goBin, "build", "-ldflags=-s -w", "-o", bin, "github.com/evalcol/evalcol/cmd/evalcol")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/evalcol: %v\n%s", err, out)
	}
	return bin
}

// childAddrs are the loopback endpoints and warehouse file of a child
// collector; a restarted child reuses them. Telemetry is the address of
// the collector's own Prometheus endpoint (8888 by default).
type childAddrs struct {
	API, OTLPHTTP, OTLPGRPC, Telemetry, DBPath string
}

func newChildAddrs(t *testing.T) childAddrs {
	t.Helper()
	return childAddrs{API: freeLoopbackAddr(t), OTLPHTTP: freeLoopbackAddr(t), OTLPGRPC: freeLoopbackAddr(t),
		Telemetry: freeLoopbackAddr(t), DBPath: filepath.Join(t.TempDir(), "evalcol.db")}
}

// handedOut holds the addresses freeLoopbackAddr returned in this test
// binary: the kernel may give a port just closed to the next caller, and
// two collectors of one test (or of parallel tests) must not get the same.
var handedOut sync.Map

// freeLoopbackAddr returns a loopback address whose port is free now and
// was not returned before in this test binary.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		addr := l.Addr().String()
		l.Close()
		if _, taken := handedOut.LoadOrStore(addr, true); !taken {
			return addr
		}
	}
	t.Fatal("no free port not handed out before in 100 tries")
	return ""
}

// exampleConfig reads examples/<name> and moves every port it opens (the
// API, both OTLP protocols and the collector's own telemetry, 8888 by
// default), its API key and its warehouse onto addrs, failing the test
// when the file no longer has the values it replaces (so the test always
// runs the documented file).
func exampleConfig(t *testing.T, name string, addrs childAddrs) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatalf("read example config: %v", err)
	}
	cfg := replaceAll(t, name, string(data), [][2]string{
		{"127.0.0.1:8080", addrs.API},
		{"127.0.0.1:4317", addrs.OTLPGRPC},
		{"127.0.0.1:4318", addrs.OTLPHTTP},
		{"./data/evalcol.db", addrs.DBPath},
		{"${env:EVALCOL_API_KEY:-evalcol-dev-key}", childAPIKey},
	})
	return moveTelemetry(t, cfg, addrs.Telemetry)
}

// moveTelemetry returns cfg with the collector's own metrics served on
// addr instead of the default 127.0.0.1:8888 (another collector on the
// machine may hold it), and fails the test if cfg already configures
// telemetry readers, which this would override.
func moveTelemetry(t *testing.T, cfg, addr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	portNum, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return editConfig(t, cfg, func(doc map[string]any) {
		metrics := subMap(t, doc, "service", "telemetry", "metrics")
		if _, ok := metrics["readers"]; ok {
			t.Fatal("config already sets service.telemetry.metrics.readers; move its port explicitly")
		}
		metrics["readers"] = []any{map[string]any{"pull": map[string]any{"exporter": map[string]any{
			"prometheus": map[string]any{"host": host, "port": portNum}}}}}
	})
}

// editConfig parses the YAML config cfg, lets edit change it and renders
// it again.
func editConfig(t *testing.T, cfg string, edit func(doc map[string]any)) string {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(cfg), &doc); err != nil {
		t.Fatalf("parse config: %v", err)
	}
	edit(doc)
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatalf("render config: %v", err)
	}
	return string(out)
}

// subMap returns the map at path in doc, creating missing levels; it fails
// the test when a level is not a map.
func subMap(t *testing.T, doc map[string]any, path ...string) map[string]any {
	t.Helper()
	m := doc
	for _, k := range path {
		switch v := m[k].(type) {
		case map[string]any:
			m = v
		case nil:
			next := map[string]any{}
			m[k] = next
			m = next
		default:
			t.Fatalf("config: %s is not a map", strings.Join(path, "."))
		}
	}
	return m
}

// childCollector is an evalcol binary running as a child process.
type childCollector struct {
	childAddrs
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the process has exited
	logPath string
}

// startChild runs bin with config cfg and extra environment variables env
// ("NAME=value") and waits until its API answers and
// its OTLP/HTTP port accepts connections. The process is killed when the
// test ends, if it still runs.
func startChild(t *testing.T, bin, cfg string, addrs childAddrs, env ...string) *childCollector {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(dir, "collector.log"))
	if err != nil {
		t.Fatal(err)
	}
	c := &childCollector{childAddrs: addrs, exited: make(chan struct{}), logPath: logFile.Name()}
	c.cmd = exec.Command(bin, "--config", cfgPath)
	c.cmd.Stdout, c.cmd.Stderr = logFile, logFile
	c.cmd.Env = append(os.Environ(), env...)
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start evalcol: %v", err)
	}
	go func() {
		_ = c.cmd.Wait()
		logFile.Close()
		close(c.exited)
	}()
	t.Cleanup(func() {
		c.kill(t)
		if t.Failed() {
			log, _ := os.ReadFile(c.logPath)
			t.Logf("collector log (last 4 KB):\n%s", tail(log, 4096))
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-c.exited:
			log, _ := os.ReadFile(c.logPath)
			t.Fatalf("collector exited during start:\n%s", tail(log, 4096))
		default:
		}
		if c.ready() {
			return c
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("collector not ready within 20s")
	return nil
}

func (c *childCollector) ready() bool {
	resp, err := http.Get("http://" + c.API + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	conn, err := net.DialTimeout("tcp", c.OTLPHTTP, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return resp.StatusCode == http.StatusOK
}

// kill sends SIGKILL and waits for the process to be gone.
func (c *childCollector) kill(t *testing.T) {
	t.Helper()
	select {
	case <-c.exited:
		return
	default:
	}
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("kill collector: %v", err)
	}
	<-c.exited
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// storedSpanNames reads every span of the last hour through
// GET /v2/warehouse/spans, following the cursor, and counts them by name.
func storedSpanNames(t *testing.T, api string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	params := url.Values{
		"from_timestamp_sec": {fmt.Sprint(time.Now().Add(-time.Hour).Unix())},
		"limit":              {"1000"},
	}
	for range 1000 {
		req, err := http.NewRequest(http.MethodGet, "http://"+api+"/v2/warehouse/spans?"+params.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+childAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("query spans: %v", err)
		}
		var page struct {
			Spans struct {
				Data []struct {
					SpanName string `json:"span_name"`
				} `json:"data"`
				NextCursor string `json:"next_cursor"`
			} `json:"spans"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("query spans: status %d, decode: %v", resp.StatusCode, err)
		}
		for _, s := range page.Spans.Data {
			counts[s.SpanName]++
		}
		if page.Spans.NextCursor == "" {
			return counts
		}
		params.Set("cursor", page.Spans.NextCursor)
	}
	t.Fatal("more than 1000 pages of spans")
	return nil
}

// newHTTPSpanExporter is a real OTel SDK OTLP/HTTP exporter to addr with the
// child's API key and without retries, so every answer reaches the caller.
func newHTTPSpanExporter(t *testing.T, addr string) sdktrace.SpanExporter {
	t.Helper()
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure(),
		otlptracehttp.WithHeaders(map[string]string{"Authorization": "Bearer " + childAPIKey}),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
		otlptracehttp.WithTimeout(10*time.Second))
	if err != nil {
		t.Fatalf("create OTLP exporter: %v", err)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp
}

// chatSpans returns n LLM chat spans named name(i), each with its own trace
// and span id derived from idBase+i, and a content of about textBytes bytes.
func chatSpans(n int, idBase uint64, textBytes int, name func(i int) string) []sdktrace.ReadOnlySpan {
	res := resource.NewSchemaless(attribute.String("service.name", "durability-test"))
	text := repeatText("The quick brown fox answers the question politely. ", textBytes)
	now := time.Now()
	spans := make([]sdktrace.ReadOnlySpan, n)
	for i := range n {
		var tid trace.TraceID
		var sid trace.SpanID
		binary.BigEndian.PutUint64(tid[:8], idBase)
		binary.BigEndian.PutUint64(tid[8:], uint64(i)+1)
		binary.BigEndian.PutUint64(sid[:], idBase+uint64(i)+1)
		spans[i] = tracetest.SpanStub{
			Name:        name(i),
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
			SpanKind:    trace.SpanKindClient,
			StartTime:   now.Add(-time.Second),
			EndTime:     now,
			Attributes: []attribute.KeyValue{
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.request.model", "gpt-4o"),
				attribute.String("traceloop.workflow.name", "durability"),
				attribute.String("llm.prompts.0.role", "user"),
				attribute.String("llm.prompts.0.content", "Please summarise: "+text),
				attribute.String("llm.completions.0.role", "assistant"),
				attribute.String("llm.completions.0.content", text),
			},
			Resource:             res,
			InstrumentationScope: instrumentation.Scope{Name: "evalcol-e2e"},
		}.Snapshot()
	}
	return spans
}

// repeatText repeats phrase up to exactly n bytes (phrase is ASCII).
func repeatText(phrase string, n int) string {
	return strings.Repeat(phrase, n/len(phrase)+1)[:n]
}

// ackLedger records the span names whose export the collector acknowledged.
type ackLedger struct {
	mu       sync.Mutex
	acked    []string
	refused  int
	requests int
}

func (l *ackLedger) record(names []string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests++
	if err != nil {
		l.refused++
		return
	}
	l.acked = append(l.acked, names...)
}

func (l *ackLedger) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

// streamUntilKilled runs senders goroutines that each export requests of
// spansPerRequest uniquely named spans to c, SIGKILLs c once minAcked spans
// were acknowledged (or after 8 s), and returns the ledger once every
// sender has stopped.
func streamUntilKilled(t *testing.T, c *childCollector, senders, spansPerRequest, minAcked int) *ackLedger {
	t.Helper()
	ledger := &ackLedger{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	runID := uint64(time.Now().UnixNano())
	for w := range senders {
		exp := newHTTPSpanExporter(t, c.OTLPHTTP)
		wg.Go(func() {
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				names := make([]string, spansPerRequest)
				spans := chatSpans(spansPerRequest, runID+uint64(w)<<32+uint64(seq)<<12, 200, func(i int) string {
					names[i] = fmt.Sprintf("durable-%d-%d-%d", w, seq, i)
					return names[i]
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := exp.ExportSpans(ctx, spans)
				cancel()
				ledger.record(names, err)
				if err != nil {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		})
	}
	deadline := time.Now().Add(8 * time.Second)
	for ledger.ackedCount() < minAcked && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	c.kill(t) // SIGKILL in the middle of the stream
	close(stop)
	wg.Wait()
	return ledger
}

// legacyShape turns examples/config.yaml into the shape it had before it
// was durable: a batch processor (with a 1 h timeout, which makes the loss
// certain rather than a matter of timing) in front of the warehouse
// exporter, whose in-memory sending_queue and retries hold what batch
// acknowledged.
func legacyShape(t *testing.T, cfg string) string {
	t.Helper()
	return editConfig(t, cfg, func(doc map[string]any) {
		subMap(t, doc, "processors")["batch"] = map[string]any{"timeout": "1h"}
		w := subMap(t, doc, "exporters", "warehouse")
		w["sending_queue"] = map[string]any{"enabled": true}
		w["retry_on_failure"] = map[string]any{"enabled": true}
		for _, name := range []string{"traces", "metrics"} {
			p := subMap(t, doc, "service", "pipelines", name)
			procs, _ := p["processors"].([]any)
			p["processors"] = append(procs, "batch")
		}
	})
}

// sendThenKill sends requests of spansPerRequest spans (1 KB prompt and
// completion each) one after the other to c, and SIGKILLs c right after
// the last answer.
func sendThenKill(t *testing.T, c *childCollector, requests, spansPerRequest int) *ackLedger {
	t.Helper()
	ledger := &ackLedger{}
	exp := newHTTPSpanExporter(t, c.OTLPHTTP)
	runID := uint64(time.Now().UnixNano())
	for r := range requests {
		names := make([]string, spansPerRequest)
		spans := chatSpans(spansPerRequest, runID+uint64(r)<<12, 1024, func(i int) string {
			names[i] = fmt.Sprintf("sequential-%d-%d", r, i)
			return names[i]
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ledger.record(names, exp.ExportSpans(ctx, spans))
		cancel()
	}
	c.kill(t) // right after the last answer
	return ledger
}

// TestCrashLosesNoAcknowledgedSpan runs examples/config.yaml as shipped in
// an evalcol child process, SIGKILLs it, restarts it on the same SQLite
// file, and reads the warehouse back through /v2/warehouse/spans: every
// acknowledged span must be stored exactly once, whether the kill comes in
// the middle of a stream of concurrent requests or right after the answer
// to the last of 40 requests of 50 spans with 1 KB texts.
//
// The old default shape (batch processor and in-memory sending queue) runs
// too, as the test's own check: it acknowledges requests before storing
// them, so the crash must lose spans there.
func TestCrashLosesNoAcknowledgedSpan(t *testing.T) {
	bin := buildEvalcol(t)
	for _, tc := range []struct {
		name    string
		legacy  bool
		traffic func(t *testing.T, c *childCollector) *ackLedger
	}{
		{name: "config.yaml, kill mid-stream", traffic: func(t *testing.T, c *childCollector) *ackLedger {
			return streamUntilKilled(t, c, 4, 20, 400)
		}},
		{name: "config.yaml, kill after the last answer", traffic: func(t *testing.T, c *childCollector) *ackLedger {
			return sendThenKill(t, c, 40, 50)
		}},
		{name: "old shape with batch and queue", legacy: true, traffic: func(t *testing.T, c *childCollector) *ackLedger {
			return streamUntilKilled(t, c, 4, 20, 100)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs := newChildAddrs(t)
			cfg := exampleConfig(t, "config.yaml", addrs)
			if tc.legacy {
				cfg = legacyShape(t, cfg)
			}
			c := startChild(t, bin, cfg, addrs)
			ledger := tc.traffic(t, c)
			if len(ledger.acked) == 0 {
				t.Fatalf("no request acknowledged before the kill (%d refused)", ledger.refused)
			}

			restarted := startChild(t, bin, cfg, addrs)
			stored := storedSpanNames(t, restarted.API)
			missing := missingOnce(t, stored, ledger.acked)
			t.Logf("%d requests: %d spans acknowledged, %d requests failed; %d spans stored, %d acknowledged spans missing",
				ledger.requests, len(ledger.acked), ledger.refused, len(stored), missing)
			if !tc.legacy && missing > 0 {
				t.Errorf("%d of %d acknowledged spans were lost in the crash", missing, len(ledger.acked))
			}
			if tc.legacy && missing == 0 {
				t.Errorf("all %d acknowledged spans survived, want the batch processor's buffer lost", len(ledger.acked))
			}
		})
	}
}

// missingOnce counts the acknowledged span names that are not stored, and
// reports every stored span stored more than once.
func missingOnce(t *testing.T, stored map[string]int, acked []string) int {
	t.Helper()
	missing := 0
	for _, name := range acked {
		if stored[name] == 0 {
			missing++
		}
	}
	for name, n := range stored {
		if n != 1 {
			t.Errorf("span %s stored %d times, want once", name, n)
		}
	}
	return missing
}
