package engine

import (
	"context"
	"fmt"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/internal/monitor"
)

// TestSpansByMonitor: a monitor evaluated a span when at least one of its
// evaluators had its inputs, and skipped it when none had; static monitors
// count by name with monitor.source config, setups by id with setup.
func TestSpansByMonitor(t *testing.T) {
	tp := newProc(t, Settings{Static: compile(t,
		monitor.Spec{Name: "truth", Evaluators: evs("answer-correctness")},
		monitor.Spec{Name: "mixed", Evaluators: evs("toxicity-detector", "answer-correctness")},
	)}, (&recorder{}).run)
	prov := &fakeProvider{}
	prov.Replace(compile(t, monitor.Spec{ID: "setup-1", Name: "auto", Evaluators: evs("toxicity-detector")}))
	tp.SetProvider(prov)
	tp.process(t, newTraces(t,
		chatAttrs(), // every input present
		chatAttrsWithout("gen_ai.evaluation.ground_truth"),                              // answer-correctness lacks its input
		map[string]any{"gen_ai.operation.name": "chat", "gen_ai.prompt.0.content": "q"}, // no completion, no ground truth
	))
	tests := []struct {
		monitor, source    string
		evaluated, skipped int64
	}{
		{"truth", "config", 1, 2},
		{"mixed", "config", 2, 1},
		{"setup-1", "setup", 2, 1},
	}
	for _, tt := range tests {
		want := map[string]string{"monitor": tt.monitor, "monitor.source": tt.source}
		if n := tp.counter(t, MetricSpansEvaluated, want); n != tt.evaluated {
			t.Errorf("%s evaluated %d spans, want %d", tt.monitor, n, tt.evaluated)
		}
		if n := tp.counter(t, MetricSpansSkipped, want); n != tt.skipped {
			t.Errorf("%s skipped %d spans, want %d", tt.monitor, n, tt.skipped)
		}
	}
}

// TestSpansByMonitorBoundsSetups: beyond MaxSetupSeries setups, spans count
// under monitor _other; static monitors keep their own series.
func TestSpansByMonitorBoundsSetups(t *testing.T) {
	const extra = 5
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "static", Evaluators: evs("char-count")})}, (&recorder{}).run)
	specs := make([]monitor.Spec, MaxSetupSeries+extra)
	for i := range specs {
		specs[i] = monitor.Spec{ID: fmt.Sprintf("setup-%03d", i), Name: "auto", Evaluators: evs("char-count")}
	}
	prov := &fakeProvider{}
	prov.Replace(compile(t, specs...))
	tp.SetProvider(prov)
	tp.process(t, newTraces(t, chatAttrs()))
	tp.process(t, newTraces(t, chatAttrs()))

	var rm metricdata.ResourceMetrics
	if err := tp.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	series := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != MetricSpansEvaluated {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				id, _ := dp.Attributes.Value("monitor")
				series[id.AsString()] += dp.Value
			}
		}
	}
	if len(series) != MaxSetupSeries+2 {
		t.Errorf("%d series, want %d (the static monitor, %d setups, %s)", len(series), MaxSetupSeries+2, MaxSetupSeries, OtherMonitor)
	}
	if series["static"] != 2 || series["setup-000"] != 2 || series[fmt.Sprintf("setup-%03d", MaxSetupSeries-1)] != 2 {
		t.Errorf("static %d, first setup %d, last named setup %d; want 2 each", series["static"], series["setup-000"], series[fmt.Sprintf("setup-%03d", MaxSetupSeries-1)])
	}
	if series[OtherMonitor] != 2*extra {
		t.Errorf("%s counted %d spans, want %d", OtherMonitor, series[OtherMonitor], 2*extra)
	}
}

// TestCloseStopsReporting: after Close the per-monitor series are no
// longer reported (a processor replaced on a config reload must not
// report beside its successor).
func TestCloseStopsReporting(t *testing.T) {
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "static", Evaluators: evs("char-count")})}, (&recorder{}).run)
	tp.process(t, newTraces(t, chatAttrs()))
	if n := tp.counter(t, MetricSpansEvaluated, map[string]string{"monitor": "static"}); n != 1 {
		t.Fatalf("before Close: evaluated = %d, want 1", n)
	}
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	if n := tp.counter(t, MetricSpansEvaluated, map[string]string{"monitor": "static"}); n != 0 {
		t.Errorf("after Close: evaluated = %d, want no point", n)
	}
}
