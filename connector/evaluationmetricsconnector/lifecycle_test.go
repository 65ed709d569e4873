// Written by hand in the shape of mdatagen's generated_component_test.go
// (mdatagen is not served here).

package evaluationmetricsconnector

import (
	"context"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/connector/connectortest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

func TestComponentFactoryType(t *testing.T) {
	if got := NewFactory().Type().String(); got != "evaluationmetrics" {
		t.Fatalf("type = %q, want evaluationmetrics", got)
	}
}

func TestComponentConfigStruct(t *testing.T) {
	if err := componenttest.CheckConfigStruct(NewFactory().CreateDefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestComponentLifecycle creates the traces to metrics connector from the
// factory with the default configuration, shuts it down without starting
// it, and runs create → start → consume → shutdown.
func TestComponentLifecycle(t *testing.T) {
	factory := NewFactory()
	t.Run("traces_to_metrics-shutdown", func(t *testing.T) {
		c, err := factory.CreateTracesToMetrics(context.Background(), connectortest.NewNopSettings(factory.Type()), factory.CreateDefaultConfig(), consumertest.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("traces_to_metrics-lifecycle", func(t *testing.T) {
		c, err := factory.CreateTracesToMetrics(context.Background(), connectortest.NewNopSettings(factory.Type()), factory.CreateDefaultConfig(), consumertest.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(context.Background(), componenttest.NewNopHost()); err != nil {
			t.Fatal(err)
		}
		if err := c.ConsumeTraces(context.Background(), ptrace.NewTraces()); err != nil {
			t.Fatal(err)
		}
		if err := c.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
