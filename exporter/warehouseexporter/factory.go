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

// defaultMaxPendingMiB is the default of max_pending_mib.
const defaultMaxPendingMiB = 32

// NewFactory returns the factory of the warehouse exporter.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(metadata.Type, createDefaultConfig,
		exporter.WithTraces(createTraces, metadata.TracesStability),
		exporter.WithMetrics(createMetrics, metadata.MetricsStability))
}

// createDefaultConfig: no sending queue and no retries inside the
// collector, so that an OTLP success answer follows the commit and a
// refusal reaches the sender, which retries.
func createDefaultConfig() component.Config {
	retry := configretry.NewDefaultBackOffConfig()
	retry.Enabled = false
	return &Config{
		API:                component.MustNewID("evalapi"),
		DefaultEnvironment: "default",
		MaxPendingMiB:      defaultMaxPendingMiB,
		TimeoutConfig:      exporterhelper.NewDefaultTimeoutConfig(),
		QueueConfig:        configoptional.Default(exporterhelper.NewDefaultQueueConfig()),
		RetryConfig:        retry,
	}
}

func helperOptions(cfg *Config, e *warehouseExporter) []exporterhelper.Option {
	return []exporterhelper.Option{
		exporterhelper.WithStart(e.start),
		exporterhelper.WithShutdown(e.shutdown),
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
