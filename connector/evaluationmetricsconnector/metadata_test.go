package evaluationmetricsconnector

import (
	"context"
	"flag"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/metadata"
	"github.com/evalcol/evalcol/internal/telemetrytest"
)

var updateDocs = flag.Bool("update", false, "rewrite documentation.md from metadata.yaml")

func TestDocumentation(t *testing.T) { telemetrytest.Documentation(t, ".", *updateDocs) }

// TestTelemetryMatchesMetadata runs a connector with max_series 1 through
// every path that records a metric (a result in a series of its own, one
// in the overflow series, an event without an evaluator name) and compares
// what it recorded with metadata.yaml; the values are checked too.
func TestTelemetryMatchesMetadata(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := connectortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.MaxSeries = 1
	c, err := NewFactory().CreateTracesToMetrics(context.Background(), set, cfg, consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		t.Fatal(err)
	}
	nameless := evaluatedSpan(true)
	nameless.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0).Attributes().Remove("gen_ai.evaluation.name")
	// The safe result gets the one series; the unsafe one (another
	// verdict) overflows.
	for _, td := range []ptrace.Traces{evaluatedSpan(true), evaluatedSpan(false), nameless} {
		if err := c.ConsumeTraces(context.Background(), td); err != nil {
			t.Fatal(err)
		}
	}
	recorded, err := telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	telemetrytest.Verify(t, ".", recorded)
	want := map[string]int64{MetricOverflowed: 1, MetricDropped: 1, MetricSeries + " evalcol.evaluations": 1, MetricSeries + " evalcol.evaluation.score": 1}
	got := map[string]int64{}
	for _, m := range recorded {
		switch d := m.Data.(type) {
		case metricdata.Sum[int64]:
			for _, dp := range d.DataPoints {
				got[m.Name] += dp.Value
			}
		case metricdata.Gauge[int64]:
			for _, dp := range d.DataPoints {
				v, _ := dp.Attributes.Value(attribute.Key("metric"))
				got[m.Name+" "+v.AsString()] = dp.Value
			}
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}
