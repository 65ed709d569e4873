package evaluatorprocessor

import (
	"context"
	"flag"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/evalcol/evalcol/internal/telemetrytest"
	"github.com/evalcol/evalcol/processor/evaluatorprocessor/internal/metadata"
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

// TestTelemetryMatchesMetadata runs processors built by the factory on one
// meter provider through every path that records a metric (an evaluation
// that succeeds, one skipped for a missing ground truth, one abandoned at
// its timeout) and compares what they recorded with metadata.yaml.
func TestTelemetryMatchesMetadata(t *testing.T) {
	md, err := telemetrytest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := processortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()

	run := func(cfg *Config, batches int) {
		t.Helper()
		p, err := NewFactory().CreateTraces(context.Background(), set, cfg, consumertest.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
			t.Fatal(err)
		}
		for range batches {
			if err := p.ConsumeTraces(context.Background(), llmTraces()); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	cfg.Monitors = []MonitorConfig{{Name: "quality", Evaluators: []EvaluatorConfig{{Name: "word-count"}, {Name: "answer-correctness"}}}}
	run(cfg, 1)
	// A timeout of 1ns has passed before the evaluation's goroutine is
	// scheduled; a few batches make a timeout certain.
	hasty := NewFactory().CreateDefaultConfig().(*Config)
	hasty.Timeout = time.Nanosecond
	hasty.Monitors = []MonitorConfig{{Name: "hasty", Evaluators: []EvaluatorConfig{{Name: "word-count"}}}}
	run(hasty, 20)

	recorded, err := telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName)
	if err != nil {
		t.Fatal(err)
	}
	if err := telemetrytest.Compare(md, recorded); err != nil {
		t.Fatal(err)
	}
}
