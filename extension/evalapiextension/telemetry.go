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
	MetricSetups = "otelcol_extension_evalapi_setups"
)

// telemetry observes the setups service: setups by status.
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
		return nil
	}, bySetup)
	if err != nil {
		return nil, fmt.Errorf("registering the extension's metrics: %w", err)
	}
	return &telemetry{registration: reg}, nil
}

// close stops the observations.
func (t *telemetry) close() error {
	return t.registration.Unregister()
}
