package evaluationmetricsconnector

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"

	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/aggregate"
	"github.com/evalcol/evalcol/connector/evaluationmetricsconnector/internal/metadata"
)

// Defaults of the configuration.
const (
	defaultMaxSeries     = 1000
	defaultFlushInterval = 15 * time.Second
)

// defaultBuckets returns the default score histogram bounds: tenths of
// the 0..1 scores most evaluators give (0 alone holds the booleans scored
// 0), then a few bounds for counts and perplexities.
func defaultBuckets() []float64 {
	return []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 2, 5, 10, 100, 1000}
}

// NewFactory returns the factory of the evaluationmetrics connector.
func NewFactory() connector.Factory {
	return connector.NewFactory(
		metadata.Type,
		createDefaultConfig,
		connector.WithTracesToMetrics(createTracesToMetrics, metadata.TracesToMetricsStability),
	)
}

func createDefaultConfig() component.Config {
	return &Config{
		Dimensions:           aggregate.DimensionNames(),
		MaxSeries:            defaultMaxSeries,
		MetricsFlushInterval: defaultFlushInterval,
		Histogram:            HistogramConfig{Buckets: defaultBuckets()},
	}
}

func createTracesToMetrics(_ context.Context, set connector.Settings, cfg component.Config, next consumer.Metrics) (connector.Traces, error) {
	c, err := newConnector(set, cfg.(*Config), next)
	if err != nil {
		return nil, fmt.Errorf("create %s connector: %w", metadata.Type, err)
	}
	return c, nil
}
