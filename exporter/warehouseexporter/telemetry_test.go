package warehouseexporter

import (
	"context"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// TestWriteDurationByOutcome times writes to a real SQLite warehouse:
// committed ones as ok, ones to a closed warehouse as error, each under
// its signal.
func TestWriteDurationByOutcome(t *testing.T) {
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	timed, err := newTimedStore(store, tel.NewTelemetrySettings().MeterProvider)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := spanconv.Options{DefaultEnvironment: "default"}
	spans := spanconv.Traces(generateLifecycleTestTraces(), opts).Spans
	points := spanconv.Metrics(generateLifecycleTestMetrics(), opts)
	if len(spans) != 1 || len(points) != 1 {
		t.Fatalf("converted %d spans and %d points, want 1 each", len(spans), len(points))
	}
	if err := timed.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if err := timed.WriteMetricPoints(ctx, points); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if err := timed.WriteSpans(ctx, spans); err == nil {
		t.Fatal("a write to a closed warehouse succeeded")
	}

	m, err := tel.GetMetric(MetricWriteDuration)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		signal, _ := dp.Attributes.Value(attribute.Key("signal"))
		outcome, _ := dp.Attributes.Value(attribute.Key("outcome"))
		counts[signal.AsString()+"/"+outcome.AsString()] += dp.Count
	}
	want := map[string]uint64{"spans/ok": 1, "metric_points/ok": 1, "spans/error": 1}
	if len(counts) != len(want) {
		t.Errorf("series %v, want %v", counts, want)
	}
	for k, n := range want {
		if counts[k] != n {
			t.Errorf("%s: %d writes timed, want %d", k, counts[k], n)
		}
	}
}
