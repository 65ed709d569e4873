package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/monitor"
)

// deferrals records the work handed to it, or fails.
type deferrals struct {
	work []Deferred
	err  error
}

func (d *deferrals) Defer(_ context.Context, work []Deferred) error {
	if d.err != nil {
		return d.err
	}
	d.work = append(d.work, work...)
	return nil
}

func customMonitor(t *testing.T, inputs map[string]string) []*monitor.Monitor {
	t.Helper()
	return compile(t, monitor.Spec{Name: "refunds", ID: "refunds", SampleRate: 1, Inputs: inputs, Evaluators: []monitor.EvaluatorSpec{
		{Slug: "word-count"}, {Slug: "no-refund-promise", Custom: true},
	}})
}

func TestCustomEvaluatorsAreDeferred(t *testing.T) {
	rec := &recorder{}
	tp := newProc(t, Settings{Static: customMonitor(t, map[string]string{"policy": `"30 days"`})}, rec.run)
	d := &deferrals{}
	tp.SetDeferrer(d)
	td := newTraces(t, chatAttrs(), chatAttrs())
	td.ResourceSpans().At(0).Resource().Attributes().PutStr("deployment.environment.name", "prod")
	out := tp.process(t, td)

	if len(d.work) != 2 {
		t.Fatalf("deferred %d items, want one per span: %+v", len(d.work), d.work)
	}
	for i, w := range d.work {
		s := spanAt(out, i)
		if w.Slug != "no-refund-promise" || w.MonitorID != "refunds" || w.Environment != "prod" ||
			w.TraceID != s.TraceID() || w.SpanID != s.SpanID() || !w.Start.Equal(s.StartTimestamp().AsTime()) {
			t.Errorf("work %d = %+v, want the span's ids, environment and the monitor's slug", i, w)
		}
		if w.Inputs["policy"] != "30 days" {
			t.Errorf("work %d inputs = %v, want the monitor's input expression evaluated", i, w.Inputs)
		}
		// The prebuilt evaluator ran on the span; the custom one did not.
		evs := evalEvents(s)
		if len(evs) != 1 || evs[0]["gen_ai.evaluation.name"] != "word-count" {
			t.Errorf("span %d events = %v, want word-count's only", i, evs)
		}
	}
}

func TestDeferrerFailureFailsTheBatch(t *testing.T) {
	tp := newProc(t, Settings{Static: customMonitor(t, nil)}, (&recorder{}).run)
	tp.SetDeferrer(&deferrals{err: errors.New("warehouse down")})
	_, err := tp.ProcessTraces(context.Background(), newTraces(t, chatAttrs()))
	if err == nil || !strings.Contains(err.Error(), "warehouse down") || !strings.Contains(err.Error(), "custom evaluators") {
		t.Fatalf("ProcessTraces = %v, want the queue's error so the sender retries", err)
	}
}

func TestCustomEvaluatorsWithoutDeferrerAreSkipped(t *testing.T) {
	tp := newProc(t, Settings{Static: customMonitor(t, nil)}, (&recorder{}).run)
	tp.process(t, newTraces(t, chatAttrs()))
	if n := tp.counter(t, MetricSkipped, map[string]string{"slug": "no-refund-promise"}); n != 1 {
		t.Errorf("skipped counter = %d, want 1", n)
	}
}

func TestSpansWithoutContentAreNotDeferred(t *testing.T) {
	tp := newProc(t, Settings{Static: customMonitor(t, nil)}, (&recorder{}).run)
	d := &deferrals{}
	tp.SetDeferrer(d)
	// A workflow's span: no prompt, no completion.
	tp.process(t, newTraces(t, map[string]any{"traceloop.span.kind": "workflow", "traceloop.workflow.name": "support"}, chatAttrs()))
	if len(d.work) != 1 || d.work[0].SpanID != spanAt(newTraces(t, nil, nil), 1).SpanID() {
		t.Errorf("deferred %+v, want the chat span's work only", d.work)
	}
	if n := tp.counter(t, MetricSkipped, map[string]string{"slug": "no-refund-promise"}); n != 1 {
		t.Errorf("skipped counter = %d, want 1 (the workflow span)", n)
	}
}

func TestTraceLevelMonitorsDeferOncePerTrace(t *testing.T) {
	ms := compile(t, monitor.Spec{Name: "agent", ID: "agent", SampleRate: 1, Trace: true, Evaluators: []monitor.EvaluatorSpec{
		{Slug: "agent-efficiency"}, {Slug: "agent-tool-trajectory", Config: map[string]any{"threshold": 0.9}},
	}})
	if ms[0].QuietPeriod != monitor.DefaultQuietPeriod {
		t.Errorf("quiet period = %s, want the default", ms[0].QuietPeriod)
	}
	rec := &recorder{}
	tp := newProc(t, Settings{Static: ms}, rec.run)
	d := &deferrals{}
	tp.SetDeferrer(d)
	td := newTraces(t, chatAttrs(), chatAttrs(), chatAttrs())
	// Spans 0 and 1 of one trace, span 2 of another.
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	spans.At(1).SetTraceID(spans.At(0).TraceID())
	out := tp.process(t, td)
	if len(d.work) != 4 {
		t.Fatalf("deferred %d items, want 2 traces x 2 evaluators: %+v", len(d.work), d.work)
	}
	for _, w := range d.work {
		if !w.Trace || w.QuietPeriod != monitor.DefaultQuietPeriod || w.Custom {
			t.Errorf("work %+v, want trace-level prebuilt work", w)
		}
	}
	if d.work[1].Slug != "agent-tool-trajectory" || d.work[1].Config["threshold"] != 0.9 {
		t.Errorf("work = %+v, want the binding's config carried", d.work[1])
	}
	for i := range 3 {
		if evs := evalEvents(spanAt(out, i)); len(evs) != 0 {
			t.Errorf("span %d was evaluated on its own: %v", i, evs)
		}
	}
	if len(rec.inputs) != 0 {
		t.Errorf("evaluators ran on spans: %v", rec.inputs)
	}
}
