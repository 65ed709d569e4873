package warehouseexporter

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configretry"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/metadata"
)

// NewFactory returns the factory of the warehouse exporter.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(metadata.Type, createDefaultConfig,
		exporter.WithTraces(createTraces, metadata.TracesStability),
		exporter.WithMetrics(createMetrics, metadata.MetricsStability))
}

func createDefaultConfig() component.Config {
	return &Config{
		API:                component.MustNewID("evalapi"),
		DefaultEnvironment: "default",
		TimeoutConfig:      exporterhelper.NewDefaultTimeoutConfig(),
		QueueConfig:        configoptional.Some(exporterhelper.NewDefaultQueueConfig()),
		RetryConfig:        configretry.NewDefaultBackOffConfig(),
	}
}

func helperOptions(cfg *Config, e *warehouseExporter) []exporterhelper.Option {
	return []exporterhelper.Option{
		exporterhelper.WithStart(e.start),
		exporterhelper.WithCapabilities(consumer.Capabilities{MutatesData: false}),
		exporterhelper.WithTimeout(cfg.TimeoutConfig),
		exporterhelper.WithQueue(cfg.QueueConfig),
		exporterhelper.WithRetry(cfg.RetryConfig),
	}
}

func createTraces(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Traces, error) {
	c := cfg.(*Config)
	e := newExporter(c, set)
	return exporterhelper.NewTraces(ctx, set, cfg, e.pushTraces, helperOptions(c, e)...)
}

func createMetrics(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
	c := cfg.(*Config)
	e := newExporter(c, set)
	return exporterhelper.NewMetrics(ctx, set, cfg, e.pushMetrics, helperOptions(c, e)...)
}
