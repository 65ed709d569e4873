package judgequeue

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
	"github.com/evalcol/evalcol/internal/warehouse"
)

const agentTraceID = "0af7651916cd43dd8448eb211c80319c"

// agentSpan is a span of the agent trace, ending at end.
func agentSpan(id, parent string, end time.Time, attrs map[string]string) warehouse.Span {
	return warehouse.Span{Environment: "prod", TraceID: agentTraceID, SpanID: id, ParentSpanID: parent,
		Timestamp: end.Add(-10 * time.Millisecond).UnixMilli(), Duration: 10, SpanName: id, StatusCode: "STATUS_CODE_UNSET", SpanAttributes: attrs}
}

func tool(name string) map[string]string {
	return map[string]string{"traceloop.span.kind": "tool", "traceloop.entity.name": name, "traceloop.entity.input": "{}", "traceloop.entity.output": "ok"}
}

// traceWork is the work of a trace-level monitor's evaluator, matched on
// span sid.
func traceWork(sid, slug string, quiet time.Duration, inputs map[string]string, config map[string]any) engine.Deferred {
	var tid pcommon.TraceID
	var s pcommon.SpanID
	_, _ = hex.Decode(tid[:], []byte(agentTraceID))
	copy(s[:], sid)
	return engine.Deferred{Environment: "prod", TraceID: tid, SpanID: s, Start: time.Now(), MonitorID: "trip-agent", Slug: slug,
		Trace: true, QuietPeriod: quiet, Inputs: inputs, Config: config}
}

func TestTraceLevelWorkWaitsForTheQuietPeriodAndJudgesTheRoot(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "") }, refundJudge)
	ctx := context.Background()
	now := time.Now()
	root := agentSpan("a0000000000000r0", "", now, map[string]string{"traceloop.span.kind": "workflow", "traceloop.workflow.name": "trip"})
	root.Timestamp, root.Duration = now.Add(-time.Second).UnixMilli(), 1000
	spans := []warehouse.Span{root,
		agentSpan("a000000000000001", root.SpanID, now, map[string]string{"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Book a flight to Oslo",
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Searching."}),
		agentSpan("a000000000000002", root.SpanID, now, tool("search_flights")),
	}
	if err := f.store.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	expected := map[string]string{"expected_tool_calls": `["search_flights", "book_flight"]`}
	quiet := 600 * time.Millisecond
	work := []engine.Deferred{
		traceWork("a000000000000001", "agent-tool-trajectory", quiet, expected, map[string]any{"threshold": 0.9}),
		traceWork("a000000000000002", "agent-tool-trajectory", quiet, expected, map[string]any{"threshold": 0.9}), // the same trace: one item
		traceWork("a000000000000002", "agent-efficiency", quiet, nil, nil),
	}
	f.enqueue(t, work...)
	if b, _ := Pending(ctx, f.store, "prod"); b.Items != 2 {
		t.Fatalf("pending = %d, want one item per trace and evaluator", b.Items)
	}

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); NewWorker(f.opts).Run(wctx) }()
	defer func() { cancel(); <-done }()

	// The agent goes on: its booking arrives before the quiet period ends.
	time.Sleep(300 * time.Millisecond)
	if e := f.evaluations(t, root); len(e) != 0 {
		t.Fatalf("the trace was evaluated before its quiet period: %+v", e)
	}
	late := agentSpan("a000000000000003", root.SpanID, time.Now(), tool("book_flight"))
	if err := f.store.WriteSpans(ctx, []warehouse.Span{late}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, _ := Pending(ctx, f.store, "prod"); b.Items == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("trace work still queued after 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if since := time.Since(time.UnixMilli(late.Timestamp + late.Duration)); since < quiet {
		t.Errorf("evaluated %s after the last span, within the quiet period %s", since, quiet)
	}
	evals := f.evaluations(t, root)
	byName := map[string]warehouse.Evaluation{}
	for _, e := range evals {
		byName[e.Name] = e
	}
	traj, ok := byName["agent-tool-trajectory"]
	if len(evals) != 2 || !ok || traj.MonitorID != "trip-agent" || traj.Error != "" || traj.Verdict != warehouse.VerdictPass {
		t.Fatalf("root evaluations = %+v, want agent-tool-trajectory passing on the whole trajectory (the late booking included)", evals)
	}
	if eff := byName["agent-efficiency"]; eff.Error != "" || eff.Verdict == "" {
		t.Errorf("agent-efficiency = %+v, want a verdict", eff)
	}
	for _, s := range spans[1:] {
		if e := f.evaluations(t, s); len(e) != 0 {
			t.Errorf("span %s got %+v; trace-level results go on the root", s.SpanID, e)
		}
	}
	if got := len(f.server.Requests()); got != 0 {
		t.Errorf("judge calls = %d; prebuilt evaluators run offline", got)
	}
}

func TestTraceLevelBadInputRecorded(t *testing.T) {
	f := newFixture(t, func(judgetest.Request) judgetest.Reply { return answer(true, "") }, refundJudge)
	old := time.Now().Add(-time.Minute)
	root := agentSpan("b0000000000000r0", "", old, map[string]string{"traceloop.span.kind": "workflow"})
	if err := f.store.WriteSpans(context.Background(), []warehouse.Span{root, agentSpan("b000000000000001", root.SpanID, old, tool("search"))}); err != nil {
		t.Fatal(err)
	}
	// No expected_tool_calls: the evaluator's required input is missing.
	f.enqueue(t, traceWork("b000000000000001", "agent-tool-trajectory", 10*time.Millisecond, nil, nil))
	f.drain(t, f.opts)
	e := f.evaluations(t, root)
	if len(e) != 1 || e[0].Verdict != warehouse.VerdictError || !strings.HasPrefix(e[0].Error, ErrorInput+": ") || !strings.Contains(e[0].Error, "expected_tool_calls") {
		t.Errorf("root evaluations = %+v, want invalid_input naming expected_tool_calls", e)
	}
}
