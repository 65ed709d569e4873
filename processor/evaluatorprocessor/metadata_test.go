package evaluatorprocessor

import (
	"context"
	"encoding/json"
	"flag"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/evalapitest"
	"github.com/evalcol/evalcol/internal/telemetrytest"
	"github.com/evalcol/evalcol/processor/evaluatorprocessor/internal/metadata"
)

var updateDocs = flag.Bool("update", false, "rewrite documentation.md from metadata.yaml")

func TestDocumentation(t *testing.T) { telemetrytest.Documentation(t, ".", *updateDocs) }

// TestTelemetryMatchesMetadata runs processors built by the factory on one
// meter provider through every path that records a metric (evaluations by
// a static monitor and an auto monitor setup that succeed, one skipped for
// a missing ground truth, one abandoned at its timeout) and compares what
// they recorded with metadata.yaml.
func TestTelemetryMatchesMetadata(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := processortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()

	// run feeds batches to a started processor until done says so; the
	// processors are shut down after the metrics are read (the
	// per-monitor counts are observed while a processor runs).
	var running []processor.Traces
	run := func(cfg *Config, host component.Host, done func(batch int, td ptrace.Traces) bool) {
		t.Helper()
		p, err := NewFactory().CreateTraces(context.Background(), set, cfg, consumertest.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(context.Background(), host); err != nil {
			t.Fatal(err)
		}
		running = append(running, p)
		for batch := 1; ; batch++ {
			td := llmTraces()
			td.ResourceSpans().At(0).Resource().Attributes().PutStr("deployment.environment.name", evalapitest.Environment)
			td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("traceloop.workflow.name", "telemetry")
			if err := p.ConsumeTraces(context.Background(), td); err != nil {
				t.Fatal(err)
			}
			if done(batch, td) {
				return
			}
		}
	}
	// An auto monitor setup of a real evalapi extension for the spans'
	// environment and workflow, and two static monitors: one evaluates,
	// one lacks the ground truth and skips.
	api := evalapitest.Start(t, evalapitest.Options{})
	status, body := api.Call(t, "POST", "/v2/auto-monitor-setups", map[string]any{
		"external_id": "telemetry-1", "entity_type": "workflow", "entity_value": "telemetry", "evaluators": []string{"char-count"},
	})
	if status != 201 {
		t.Fatalf("create setup = %d %s, want 201", status, body)
	}
	var setup struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &setup); err != nil {
		t.Fatal(err)
	}
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.API = &api.ID
	cfg.Monitors = []MonitorConfig{
		{Name: "quality", Evaluators: []EvaluatorConfig{{Name: "word-count"}, {Name: "answer-correctness"}}},
		{Name: "truth", Evaluators: []EvaluatorConfig{{Name: "answer-correctness"}}},
	}
	// The extension applies a new setup in the background, at once: feed
	// batches until the setup evaluated one.
	deadline := time.Now().Add(30 * time.Second)
	run(cfg, api, func(_ int, td ptrace.Traces) bool {
		if slices.Contains(eventMonitors(td), setup.ID) {
			return true
		}
		if time.Now().After(deadline) {
			t.Fatalf("the setup's monitor evaluated no span; events by monitor %v", eventMonitors(td))
		}
		time.Sleep(5 * time.Millisecond)
		return false
	})
	// A timeout of 1ns has passed before the evaluation's goroutine is
	// scheduled; a few batches make a timeout certain.
	hasty := NewFactory().CreateDefaultConfig().(*Config)
	hasty.Timeout = time.Nanosecond
	hasty.Monitors = []MonitorConfig{{Name: "hasty", Evaluators: []EvaluatorConfig{{Name: "word-count"}}}}
	run(hasty, componenttest.NewNopHost(), func(batch int, _ ptrace.Traces) bool { return batch == 20 })

	recorded, err := telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range running {
		if err := p.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	telemetrytest.Verify(t, ".", recorded)
	if !recordedFor(recorded, engine.MetricSpansEvaluated, "monitor.source", "setup") {
		t.Errorf("%s has no point of the auto monitor setup", engine.MetricSpansEvaluated)
	}
}

// recordedFor reports whether the int sum name has a data point with
// attribute key = value.
func recordedFor(recorded []metricdata.Metrics, name, key, value string) bool {
	for _, m := range recorded {
		if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == name {
			for _, dp := range sum.DataPoints {
				if v, ok := dp.Attributes.Value(attribute.Key(key)); ok && v.AsString() == value && dp.Value > 0 {
					return true
				}
			}
		}
	}
	return false
}
