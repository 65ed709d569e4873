// Written by hand in the shape of mdatagen's generated_component_test.go
// (mdatagen is not served here), with one more lifecycle: against a real
// evalapi extension, which the processor looks up by id at start.

package evaluatorprocessor

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/evalcol/evalcol/internal/evalapitest"
)

func TestComponentFactoryType(t *testing.T) {
	if got := NewFactory().Type().String(); got != "evaluator" {
		t.Fatalf("type = %q, want evaluator", got)
	}
}

func TestComponentConfigStruct(t *testing.T) {
	if err := componenttest.CheckConfigStruct(NewFactory().CreateDefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestComponentLifecycle creates the traces processor from the factory,
// shuts it down without starting it, and runs create → start → consume →
// shutdown, with the default configuration on a host without extensions
// and with a static monitor and api: evalapi on a host holding a real
// evalapi extension (temporary SQLite warehouse, free loopback port).
func TestComponentLifecycle(t *testing.T) {
	factory := NewFactory()
	withAPI := func() component.Config {
		cfg := factory.CreateDefaultConfig().(*Config)
		api := component.MustNewID("evalapi")
		cfg.API = &api
		cfg.Monitors = []MonitorConfig{{Name: "counts", Evaluators: []EvaluatorConfig{{Name: "word-count"}}}}
		return cfg
	}
	tests := []struct {
		name       string
		cfg        func() component.Config
		host       func(t *testing.T) component.Host
		wantEvents []string
	}{
		{"traces", factory.CreateDefaultConfig, func(*testing.T) component.Host { return componenttest.NewNopHost() }, nil},
		{"traces-evalapi", withAPI, func(t *testing.T) component.Host { return evalapitest.Start(t, evalapitest.Options{}) }, []string{"counts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"-shutdown", func(t *testing.T) {
			c, err := factory.CreateTraces(context.Background(), processortest.NewNopSettings(factory.Type()), tt.cfg(), consumertest.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
		t.Run(tt.name+"-lifecycle", func(t *testing.T) {
			host := tt.host(t)
			sink := new(consumertest.TracesSink)
			c, err := factory.CreateTraces(context.Background(), processortest.NewNopSettings(factory.Type()), tt.cfg(), sink)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(context.Background(), host); err != nil {
				t.Fatal(err)
			}
			if err := c.ConsumeTraces(context.Background(), llmTraces()); err != nil {
				t.Fatal(err)
			}
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := sink.AllTraces()
			if len(got) != 1 || got[0].SpanCount() != 1 {
				t.Fatalf("next consumer got %d batches, want 1 with the span", len(got))
			}
			if ids := eventMonitors(got[0]); len(ids) != len(tt.wantEvents) || (len(ids) > 0 && ids[0] != tt.wantEvents[0]) {
				t.Errorf("evaluation events by monitor = %v, want %v", ids, tt.wantEvents)
			}
		})
	}
}
