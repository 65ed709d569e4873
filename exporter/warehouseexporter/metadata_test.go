package warehouseexporter

import (
	"context"
	"flag"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/exporter/warehouseexporter/internal/metadata"
	"github.com/evalcol/evalcol/internal/evalapitest"
	"github.com/evalcol/evalcol/internal/telemetrytest"
)

var updateDocs = flag.Bool("update", false, "rewrite documentation.md from metadata.yaml")

func TestDocumentation(t *testing.T) { telemetrytest.Documentation(t, ".", *updateDocs) }

// TestTelemetryMatchesMetadata exports spans (one resent with other
// content) and metrics into a real warehouse and compares what the exporter recorded with metadata.yaml.
func TestTelemetryMatchesMetadata(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := exportertest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
	api := evalapitest.Start(t, evalapitest.Options{})
	f := NewFactory()

	traces, err := f.CreateTraces(context.Background(), set, f.CreateDefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := f.CreateMetrics(context.Background(), set, f.CreateDefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	// The same span twice, the second time with other content: a
	// conflicting duplicate.
	first, resent := generateLifecycleTestTraces(), ptrace.NewTraces()
	first.CopyTo(resent)
	resent.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes().PutStr("changed", "yes")
	for _, run := range []func() error{
		func() error { return traces.Start(context.Background(), api) },
		func() error { return metrics.Start(context.Background(), api) },
		func() error { return traces.ConsumeTraces(context.Background(), first) },
		func() error { return traces.ConsumeTraces(context.Background(), resent) },
		func() error { return metrics.ConsumeMetrics(context.Background(), generateLifecycleTestMetrics()) },
		func() error { return traces.Shutdown(context.Background()) },
		func() error { return metrics.Shutdown(context.Background()) },
	} {
		if err := run(); err != nil {
			t.Fatal(err)
		}
	}
	recorded, err := telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName)
	if err != nil {
		t.Fatal(err)
	}
	telemetrytest.Verify(t, ".", recorded)
}
