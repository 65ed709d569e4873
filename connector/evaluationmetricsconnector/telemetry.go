package evaluationmetricsconnector

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/aggregate"
	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/metadata"
)

// Names of the connector's own metrics (declared in metadata.yaml).
const (
	MetricSeries     = "otelcol_connector_evaluationmetrics_series"
	MetricOverflowed = "otelcol_connector_evaluationmetrics_overflowed"
	MetricDropped    = "otelcol_connector_evaluationmetrics_dropped"
)

// registerTelemetry registers the connector's own metrics, observed from
// agg's counts at each collection, on mp. Unregister the result at
// shutdown.
func registerTelemetry(mp metric.MeterProvider, agg *aggregate.Aggregator) (metric.Registration, error) {
	meter := mp.Meter(metadata.ScopeName)
	series, err := meter.Int64ObservableGauge(MetricSeries,
		metric.WithDescription("Series the connector holds, by metric (without the overflow series); at max_series new attribute combinations go to the overflow series."),
		metric.WithUnit("{series}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricSeries, err)
	}
	overflowed, err := meter.Int64ObservableCounter(MetricOverflowed,
		metric.WithDescription("Evaluations counted in the overflow series (otel.metric.overflow=true) because max_series series existed when their attribute combination first came."),
		metric.WithUnit("{evaluation}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricOverflowed, err)
	}
	dropped, err := meter.Int64ObservableCounter(MetricDropped,
		metric.WithDescription("Evaluation result events not counted because they have no gen_ai.evaluation.name."),
		metric.WithUnit("{event}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricDropped, err)
	}
	countsOf := metric.WithAttributeSet(attribute.NewSet(attribute.String("metric", aggregate.MetricEvaluations)))
	scoresOf := metric.WithAttributeSet(attribute.NewSet(attribute.String("metric", aggregate.MetricScore)))
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := agg.Stats()
		o.ObserveInt64(series, int64(st.Series), countsOf)
		o.ObserveInt64(series, int64(st.ScoreSeries), scoresOf)
		o.ObserveInt64(overflowed, st.Overflowed)
		o.ObserveInt64(dropped, st.Dropped)
		return nil
	}, series, overflowed, dropped)
	if err != nil {
		return nil, fmt.Errorf("registering the connector's metrics: %w", err)
	}
	return reg, nil
}
