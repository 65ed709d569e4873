package warehouseexporter

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/metadata"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Names of the exporter's own metrics (declared in metadata.yaml).
const (
	// MetricWriteDuration is the store write latency.
	MetricWriteDuration = "otelcol_exporter_warehouse_write_duration"
	// MetricConflictingSpans counts resent spans not stored because a
	// span with the same identity but other content was stored first.
	MetricConflictingSpans = "otelcol_exporter_warehouse_conflicting_spans"
)

// Values of the signal and outcome attributes.
const (
	signalSpans        = "spans"
	signalMetricPoints = "metric_points"
	outcomeOK          = "ok"
	outcomeError       = "error"
)

// timedStore records the duration of every write the exporter makes to
// the warehouse, by signal and outcome. Only the writes go through it;
// other methods are the store's.
type timedStore struct {
	warehouse.Store
	duration metric.Float64Histogram
	// options by signal and outcome, built once so that recording does
	// not allocate.
	options map[[2]string][]metric.RecordOption
}

func newTimedStore(store warehouse.Store, mp metric.MeterProvider) (*timedStore, error) {
	h, err := mp.Meter(metadata.ScopeName).Float64Histogram(MetricWriteDuration,
		metric.WithDescription("Duration of one write of the exporter to the warehouse (one transaction), by signal and outcome."),
		metric.WithUnit("s"),
		// A SQLite or ClickHouse batch commits in milliseconds to seconds;
		// the SDK's default buckets start at 5 s.
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricWriteDuration, err)
	}
	t := &timedStore{Store: store, duration: h, options: map[[2]string][]metric.RecordOption{}}
	for _, signal := range []string{signalSpans, signalMetricPoints} {
		for _, outcome := range []string{outcomeOK, outcomeError} {
			t.options[[2]string{signal, outcome}] = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(
				attribute.String("signal", signal), attribute.String("outcome", outcome)))}
		}
	}
	return t, nil
}

func (t *timedStore) record(ctx context.Context, signal string, start time.Time, err error) {
	outcome := outcomeOK
	if err != nil {
		outcome = outcomeError
	}
	t.duration.Record(ctx, time.Since(start).Seconds(), t.options[[2]string{signal, outcome}]...)
}

// WriteSpans writes and times spans.
func (t *timedStore) WriteSpans(ctx context.Context, spans []warehouse.Span) error {
	start := time.Now()
	err := t.Store.WriteSpans(ctx, spans)
	t.record(ctx, signalSpans, start, err)
	return err
}

// WriteSpansReport writes and times spans, reporting conflicting
// duplicates.
func (t *timedStore) WriteSpansReport(ctx context.Context, spans []warehouse.Span) (warehouse.SpanWriteReport, error) {
	start := time.Now()
	rep, err := t.Store.WriteSpansReport(ctx, spans)
	t.record(ctx, signalSpans, start, err)
	return rep, err
}

// WriteMetricPoints writes and times metric points.
func (t *timedStore) WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error {
	start := time.Now()
	err := t.Store.WriteMetricPoints(ctx, pts)
	t.record(ctx, signalMetricPoints, start, err)
	return err
}
