package e2etest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/judge/judgetest"
)

// refundEvaluator is a custom evaluator as Traceloop's SDK creates it.
const refundEvaluator = `{"name": "No refund promises", "slug": "no-refund-promise", "provider": "local", "model": "judge-e2e",
	"messages": [{"role": "user", "content": "Answer: {{completion}}\nDoes it avoid promising a refund?"}],
	"input_schema": [{"name": "completion", "type": "string"}],
	"output_schema": [{"name": "passed", "type": "boolean"}, {"name": "reason", "type": "string"}]}`

// judgeConfig adds the fake judge as provider "local", a short lease (so
// that a restarted collector takes over the killed one's items soon) and a
// monitor that judges every chat span with the custom evaluator.
func judgeConfig(t *testing.T, cfg, baseURL string) string {
	t.Helper()
	return editConfig(t, cfg, func(doc map[string]any) {
		j := subMap(t, doc, "extensions", "evalapi", "judge")
		j["providers"] = map[string]any{"local": map[string]any{"type": "openai", "base_url": baseURL, "max_concurrency": 2, "max_retries": 0}}
		j["queue"] = map[string]any{"workers": 2, "lease": "3s"}
		ev := subMap(t, doc, "processors", "evaluator")
		ev["monitors"] = append(ev["monitors"].([]any), map[string]any{
			"name":       "refunds",
			"evaluators": []any{map[string]any{"custom": "no-refund-promise"}},
			"condition":  `attributes["gen_ai.operation.name"] == "chat"`,
		})
	})
}

// apiCall sends an authenticated request to the child's /v2 API.
func apiCall(t *testing.T, c *childCollector, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+c.API+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+childAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// spanVerdicts reads every span of the last hour with its evaluations of
// slug: span name -> the verdicts (explain=true) of slug's evaluations.
func spanVerdicts(t *testing.T, c *childCollector, slug string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	params := url.Values{"from_timestamp_sec": {fmt.Sprint(time.Now().Add(-time.Hour).Unix())}, "limit": {"1000"}, "explain": {"true"}}
	for range 100 {
		status, body := apiCall(t, c, http.MethodGet, "/v2/warehouse/spans?"+params.Encode(), "")
		if status != http.StatusOK {
			t.Fatalf("spans: %d %s", status, body)
		}
		var page struct {
			Spans struct {
				Data []struct {
					SpanName    string `json:"span_name"`
					Evaluations []struct {
						Name    string `json:"name"`
						Verdict string `json:"verdict"`
						Error   string `json:"error"`
					} `json:"evaluations"`
				} `json:"data"`
				NextCursor string `json:"next_cursor"`
			} `json:"spans"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Spans.Data {
			for _, e := range s.Evaluations {
				if e.Name == slug {
					v := e.Verdict
					if e.Error != "" {
						v += " " + e.Error
					}
					out[s.SpanName] = append(out[s.SpanName], v)
				}
			}
		}
		if page.Spans.NextCursor == "" {
			return out
		}
		params.Set("cursor", page.Spans.NextCursor)
	}
	t.Fatal("too many pages")
	return nil
}

// TestJudgedLoadSurvivesKill is the online judge's durability: spans
// matched by a monitor with a custom evaluator are acknowledged at once
// (the judge answers slowly), their judge work waits in the warehouse,
// the collector is SIGKILLed with work queued and in flight, and after a
// restart on the same warehouse every acknowledged span is stored once
// and judged once: exactly one evaluation each, none an error. A call in
// flight at the kill is made again (at most the workers' count of them).
func TestJudgedLoadSurvivesKill(t *testing.T) {
	bin := buildEvalcol(t)
	nameInPrompt := regexp.MustCompile(`judged-\d+-\d+`)
	var mu sync.Mutex
	calls := map[string]int{}
	srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
		b, _ := json.Marshal(r.Body)
		name := nameInPrompt.FindString(string(b))
		mu.Lock()
		calls[name]++
		mu.Unlock()
		reply := judgetest.OpenAIText(`{"passed": true, "reason": "no promise in ` + name + `"}`)
		reply.Delay = 150 * time.Millisecond
		return reply
	})
	addrs := newChildAddrs(t)
	cfg := judgeConfig(t, exampleConfig(t, "config.yaml", addrs), srv.OpenAIBaseURL())
	c := startChild(t, bin, cfg, addrs)
	if status, body := apiCall(t, c, http.MethodPost, "/v2/evaluators", refundEvaluator); status != http.StatusCreated {
		t.Fatalf("create the custom evaluator: %d %s", status, body)
	}

	// 60 spans in 6 requests, each answered before the judge could have
	// judged them (150 ms a call, two at a time: ~4.5 s of judging).
	exp := newHTTPSpanExporter(t, c.OTLPHTTP)
	ledger := &ackLedger{}
	runID := uint64(time.Now().UnixNano())
	sent := time.Now()
	for r := range 6 {
		names := make([]string, 10)
		spans := chatSpans(10, runID+uint64(r)<<12, 100, func(i int) string {
			names[i] = fmt.Sprintf("judged-%d-%d", r, i)
			return names[i]
		})
		for i := range spans {
			spans[i] = withCompletion(spans[i], "Refund answer for "+names[i])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ledger.record(names, exp.ExportSpans(ctx, spans))
		cancel()
	}
	ackTime := time.Since(sent)
	if len(ledger.acked) != 60 {
		t.Fatalf("%d of 60 spans acknowledged (%d requests refused)", len(ledger.acked), ledger.refused)
	}
	// The queue shows in the monitoring status while it is worked.
	status, body := apiCall(t, c, http.MethodGet, "/v2/monitoring/status", "")
	var st struct {
		LagInSpans int64 `json:"lag_in_spans"`
	}
	_ = json.Unmarshal(body, &st)
	if status != http.StatusOK || st.LagInSpans == 0 {
		t.Errorf("monitoring status while judging: %d %s; want queued judge work in lag_in_spans", status, body)
	}
	time.Sleep(time.Second) // some judged, most queued, two in flight
	c.kill(t)
	mu.Lock()
	beforeKill := 0
	for _, n := range calls {
		beforeKill += n
	}
	mu.Unlock()
	t.Logf("60 spans acknowledged in %s; %d judge calls before the kill", ackTime.Round(time.Millisecond), beforeKill)
	if beforeKill >= 60 {
		t.Fatalf("every span was judged before the kill (%d calls); the test kills too late", beforeKill)
	}

	restarted := startChild(t, bin, cfg, addrs)
	deadline := time.Now().Add(60 * time.Second)
	var verdicts map[string][]string
	for {
		verdicts = spanVerdicts(t, restarted, "no-refund-promise")
		judged := 0
		for _, name := range ledger.acked {
			if len(verdicts[name]) > 0 {
				judged++
			}
		}
		if judged == len(ledger.acked) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d acknowledged spans judged 60 s after the restart", judged, len(ledger.acked))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, name := range ledger.acked {
		if v := verdicts[name]; len(v) != 1 || v[0] != "pass" {
			t.Errorf("span %s: evaluations of no-refund-promise %q, want exactly one pass", name, v)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	again := 0
	for _, name := range ledger.acked {
		switch n := calls[name]; {
		case n == 0:
			t.Errorf("span %s judged without a call", name)
		case n > 1:
			again++
		}
	}
	if again > 2 {
		t.Errorf("%d spans were judged more than once; only the 2 calls in flight at the kill may be made again", again)
	}
	// Nothing is left in the queue.
	_, body = apiCall(t, restarted, http.MethodGet, "/v2/monitoring/status", "")
	if err := json.Unmarshal(body, &st); err != nil || st.LagInSpans != 0 {
		t.Errorf("monitoring status after the queue drained: %s, want lag_in_spans 0", body)
	}
	if !bytes.Contains(body, []byte(`"status"`)) {
		t.Errorf("status answer: %s", body)
	}
}

// withCompletion returns s with its completion replaced by text.
func withCompletion(s sdktrace.ReadOnlySpan, text string) sdktrace.ReadOnlySpan {
	stub := tracetest.SpanStubFromReadOnlySpan(s)
	for i, a := range stub.Attributes {
		if a.Key == "llm.completions.0.content" {
			stub.Attributes[i] = attribute.String("llm.completions.0.content", text)
		}
	}
	return stub.Snapshot()
}

// agentSpans is one agent trace: a workflow root, an LLM call, and the
// tool calls named tools, each with its own span id.
func agentSpans(traceID trace.TraceID, base uint64, root bool, tools ...string) []sdktrace.ReadOnlySpan {
	res := resource.NewSchemaless(attribute.String("service.name", "trip-agent"))
	now := time.Now()
	rootID := trace.SpanID{0xee, 0, 0, 0, 0, 0, 0, byte(base)}
	span := func(sid trace.SpanID, parent trace.SpanID, name string, attrs ...attribute.KeyValue) sdktrace.ReadOnlySpan {
		stub := tracetest.SpanStub{
			Name:        name,
			SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: sid, TraceFlags: trace.FlagsSampled}),
			StartTime:   now.Add(-100 * time.Millisecond), EndTime: now,
			Attributes: append(attrs, attribute.String("traceloop.workflow.name", "trip_agent")),
			Resource:   res, InstrumentationScope: instrumentation.Scope{Name: "evalcol-e2e"},
		}
		if parent.IsValid() {
			stub.Parent = trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: parent})
		}
		return stub.Snapshot()
	}
	var out []sdktrace.ReadOnlySpan
	if root {
		out = append(out, span(rootID, trace.SpanID{}, "trip_agent.workflow", attribute.String("traceloop.span.kind", "workflow")),
			span(trace.SpanID{0xee, 1, 0, 0, 0, 0, 0, byte(base)}, rootID, "openai.chat",
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.prompt.0.role", "user"), attribute.String("gen_ai.prompt.0.content", "Book a flight to Oslo"),
				attribute.String("gen_ai.completion.0.role", "assistant"), attribute.String("gen_ai.completion.0.content", "Searching flights.")))
	}
	for i, name := range tools {
		out = append(out, span(trace.SpanID{0xee, 2, byte(i), 0, 0, 0, byte(base >> 8), byte(base)}, rootID, name+".tool",
			attribute.String("traceloop.span.kind", "tool"), attribute.String("traceloop.entity.name", name),
			attribute.String("traceloop.entity.input", `{"to": "OSL"}`), attribute.String("traceloop.entity.output", "ok")))
	}
	return out
}

// TestTraceLevelMonitorOnAnAgentTrace runs examples/config.yaml with a
// trace-level monitor of agent evaluators and sends a real multi-span
// agent trace in two requests: the monitor evaluates the whole trajectory
// once, after the quiet period, and puts its results on the root span.
func TestTraceLevelMonitorOnAnAgentTrace(t *testing.T) {
	bin := buildEvalcol(t)
	addrs := newChildAddrs(t)
	cfg := editConfig(t, exampleConfig(t, "config.yaml", addrs), func(doc map[string]any) {
		ev := subMap(t, doc, "processors", "evaluator")
		ev["monitors"] = append(ev["monitors"].([]any), map[string]any{
			"name":         "trip-agent",
			"level":        "trace",
			"quiet_period": "1s",
			"condition":    `attributes["traceloop.workflow.name"] == "trip_agent"`,
			"evaluators":   []any{"agent-efficiency", map[string]any{"name": "agent-tool-trajectory", "config": map[string]any{"threshold": 0.9, "input_params_sensitive": false}}},
			"inputs":       map[string]any{"expected_tool_calls": `"[\"search_flights\", \"book_flight\"]"`},
		})
	})
	c := startChild(t, bin, cfg, addrs)
	exp := newHTTPSpanExporter(t, c.OTLPHTTP)
	var good, bad trace.TraceID
	copy(good[:], "trace-level-good")
	copy(bad[:], "trace-level-bad!")
	send := func(spans []sdktrace.ReadOnlySpan) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := exp.ExportSpans(ctx, spans); err != nil {
			t.Fatalf("export: %v", err)
		}
	}
	// The agent's first steps, then its tool calls half a second later.
	send(append(agentSpans(good, 1, true), agentSpans(bad, 2, true)...))
	time.Sleep(500 * time.Millisecond)
	send(append(agentSpans(good, 1, false, "search_flights", "book_flight"), agentSpans(bad, 2, false, "search_hotels")...))

	deadline := time.Now().Add(30 * time.Second)
	for {
		verdicts := spanVerdicts(t, c, "agent-tool-trajectory")
		if len(verdicts["trip_agent.workflow"]) == 2 && len(spanVerdicts(t, c, "agent-efficiency")["trip_agent.workflow"]) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the roots were not evaluated within 30 s: %v", verdicts)
		}
		time.Sleep(200 * time.Millisecond)
	}
	status, body := apiCall(t, c, http.MethodGet, "/v2/warehouse/spans?explain=true&from_timestamp_sec="+fmt.Sprint(time.Now().Add(-time.Hour).Unix()), "")
	if status != http.StatusOK {
		t.Fatalf("spans: %d %s", status, body)
	}
	var page struct {
		Spans struct {
			Data []struct {
				TraceID     string `json:"trace_id"`
				SpanName    string `json:"span_name"`
				Evaluations []struct {
					Name, Verdict, Error, MonitorID string
				} `json:"evaluations"`
			} `json:"data"`
		} `json:"spans"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Spans.Data {
		var trip []string
		for _, e := range s.Evaluations {
			if e.Name == "agent-tool-trajectory" || e.Name == "agent-efficiency" {
				trip = append(trip, e.Name+"="+e.Verdict+e.Error)
			}
		}
		switch {
		case s.SpanName != "trip_agent.workflow":
			if len(trip) != 0 {
				t.Errorf("span %s of trace %s got trace-level results %v; they go on the root", s.SpanName, s.TraceID, trip)
			}
		case s.TraceID == good.String():
			if len(trip) != 2 || !strings.Contains(strings.Join(trip, " "), "agent-tool-trajectory=pass") {
				t.Errorf("the good agent's root: %v, want agent-tool-trajectory passing (both tool calls, sent later, counted) and agent-efficiency", trip)
			}
		case s.TraceID == bad.String():
			if !strings.Contains(strings.Join(trip, " "), "agent-tool-trajectory=fail") {
				t.Errorf("the bad agent's root: %v, want agent-tool-trajectory failing", trip)
			}
		}
	}
}
