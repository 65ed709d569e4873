package evaluatorprocessor

import (
	"context"
	"runtime"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/processor/evaluatorprocessor/internal/metadata"
)

// Defaults of the configuration.
const (
	defaultTimeout      = 2 * time.Second
	defaultMaxTextBytes = 64 << 10
)

// NewFactory returns the factory of the evaluator processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(
		metadata.Type,
		createDefaultConfig,
		processor.WithTraces(createTraces, metadata.TracesStability),
	)
}

func createDefaultConfig() component.Config {
	return &Config{
		Workers:              runtime.GOMAXPROCS(0),
		Timeout:              defaultTimeout,
		MaxTextBytes:         defaultMaxTextBytes,
		GroundTruthAttribute: engine.DefaultGroundTruth,
	}
}

func createTraces(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
	p, err := newEvaluatorProcessor(set, cfg.(*Config))
	if err != nil {
		return nil, err
	}
	return processorhelper.NewTraces(ctx, set, cfg, next, p.proc.ProcessTraces,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithStart(p.start),
		processorhelper.WithShutdown(p.shutdown),
	)
}
