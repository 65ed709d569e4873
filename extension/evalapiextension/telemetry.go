package evalapiextension

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
)

// Names of the extension's own metrics (declared in metadata.yaml).
const (
	MetricSetups                 = "otelcol_extension_evalapi_setups"
	MetricBackfillSpansScanned   = "otelcol_extension_evalapi_backfill_spans_scanned"
	MetricBackfillSpansRemaining = "otelcol_extension_evalapi_backfill_spans_remaining"
)

// telemetry observes the setups service: setups by status, and the
// progress of the backfills running in this collector.
type telemetry struct {
	registration metric.Registration
}

func newTelemetry(mp metric.MeterProvider, svc *setups.Service) (*telemetry, error) {
	meter := mp.Meter(metadata.ScopeName)
	bySetup, err := meter.Int64ObservableGauge(MetricSetups,
		metric.WithDescription("Auto monitor setups stored in the warehouse (every environment), by status, as read at the last reload of the setups."),
		metric.WithUnit("{setup}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricSetups, err)
	}
	scanned, err := meter.Int64ObservableGauge(MetricBackfillSpansScanned,
		metric.WithDescription("Spans of its window a backfill running in this collector has read so far, by setup."),
		metric.WithUnit("{span}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricBackfillSpansScanned, err)
	}
	remaining, err := meter.Int64ObservableGauge(MetricBackfillSpansRemaining,
		metric.WithDescription("Spans of its window a backfill running in this collector has still to read (of those stored when it began), by setup."),
		metric.WithUnit("{span}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricBackfillSpansRemaining, err)
	}
	statusOptions := map[string]metric.ObserveOption{}
	for _, st := range append(setups.Statuses, setups.StatusOther) {
		statusOptions[st] = metric.WithAttributeSet(attribute.NewSet(attribute.String("status", st)))
	}
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		if counts, ok := svc.StatusCounts(); ok {
			for st, n := range counts {
				o.ObserveInt64(bySetup, n, statusOptions[st])
			}
		}
		for _, p := range svc.Backfills() {
			setup := metric.WithAttributes(attribute.String("setup_id", p.SetupID))
			o.ObserveInt64(scanned, p.Scanned, setup)
			o.ObserveInt64(remaining, p.Total-p.Scanned, setup)
		}
		return nil
	}, bySetup, scanned, remaining)
	if err != nil {
		return nil, fmt.Errorf("registering the extension's metrics: %w", err)
	}
	return &telemetry{registration: reg}, nil
}

// close stops the observations.
func (t *telemetry) close() error {
	return t.registration.Unregister()
}
