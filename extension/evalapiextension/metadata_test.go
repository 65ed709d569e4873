package evalapiextension_test

import (
	"context"
	"flag"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/internal/evalapitest"
	"github.com/evalcol/evalcol/internal/telemetrytest"
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

// TestTelemetryMatchesMetadata runs a real extension through a setup's
// creation and compares what it recorded with metadata.yaml.
func TestTelemetryMatchesMetadata(t *testing.T) {
	md, err := telemetrytest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	settings := tel.NewTelemetrySettings()
	api := evalapitest.Start(t, evalapitest.Options{Telemetry: &settings})
	if status, body := api.Call(t, "POST", "/v2/auto-monitor-setups", map[string]any{
		"external_id": "telemetry-1", "entity_type": "workflow", "entity_value": "telemetry", "evaluators": []string{"char-count"},
	}); status != 201 {
		t.Fatalf("create setup = %d %s, want 201", status, body)
	}
	recorded, err := telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName)
	if err != nil {
		t.Fatal(err)
	}
	if err := telemetrytest.Compare(md, recorded); err != nil {
		t.Fatal(err)
	}
}
