package evalapiextension_test

import (
	"context"
	"flag"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/extension/evalapiextension"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/internal/evalapitest"
	"github.com/evalcol/evalcol/internal/telemetrytest"
)

var updateDocs = flag.Bool("update", false, "rewrite documentation.md from metadata.yaml")

func TestDocumentation(t *testing.T) {
	md, err := telemetrytest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := telemetrytest.CheckDocumentation(".", md, *updateDocs); err != nil {
		t.Fatal(err)
	}
}

// TestTelemetryMatchesMetadata runs a real extension through a setup's
// creation and compares what it recorded with metadata.yaml; then checks
// the values.
func TestTelemetryMatchesMetadata(t *testing.T) {
	md, err := telemetrytest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	settings := tel.NewTelemetrySettings()
	api := evalapitest.Start(t, evalapitest.Options{Telemetry: &settings})
	if status, body := api.Call(t, "POST", "/v2/auto-monitor-setups", map[string]any{
		"external_id": "telemetry-1", "entity_type": "workflow", "entity_value": "telemetry", "evaluators": []string{"char-count"},
	}); status != 201 {
		t.Fatalf("create setup = %d %s, want 201", status, body)
	}
	// The setup is counted at the reload its creation triggers.
	var recorded []metricdata.Metrics
	deadline := time.Now().Add(30 * time.Second)
	for setupsCounted(recorded) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the created setup is not counted; recorded %v", recorded)
		}
		time.Sleep(2 * time.Millisecond)
		if recorded, err = telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName); err != nil {
			t.Fatal(err)
		}
	}
	if err := telemetrytest.Compare(md, recorded); err != nil {
		t.Fatal(err)
	}
	if n := gauge(recorded, evalapiextension.MetricSetups, "status", "failed"); n != 0 {
		t.Errorf("failed setups = %d, want 0", n)
	}
}

// setupsCounted sums the setups gauge over its statuses.
func setupsCounted(recorded []metricdata.Metrics) int64 {
	var n int64
	for _, m := range recorded {
		if g, ok := m.Data.(metricdata.Gauge[int64]); ok && m.Name == evalapiextension.MetricSetups {
			for _, dp := range g.DataPoints {
				n += dp.Value
			}
		}
	}
	return n
}

// gauge returns the value of an int gauge's point with attribute key =
// value (-1 when there is none).
func gauge(recorded []metricdata.Metrics, name, key, value string) int64 {
	for _, m := range recorded {
		if g, ok := m.Data.(metricdata.Gauge[int64]); ok && m.Name == name {
			for _, dp := range g.DataPoints {
				if v, ok := dp.Attributes.Value(attribute.Key(key)); ok && v.AsString() == value {
					return dp.Value
				}
			}
		}
	}
	return -1
}
