// Written by hand in the shape of mdatagen's generated_component_test.go
// (mdatagen is not served here).

package tenantprocessor

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/evalcol/evalcol/internal/tenant"
)

func TestComponentFactoryType(t *testing.T) {
	if got := NewFactory().Type().String(); got != "tenant" {
		t.Fatalf("type = %q, want tenant", got)
	}
}

func TestComponentConfigStruct(t *testing.T) {
	if err := componenttest.CheckConfigStruct(NewFactory().CreateDefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestComponentLifecycle creates each signal's processor from the factory,
// shuts it down without starting it, and runs create → start → consume →
// shutdown, checking the data reached the next consumer stamped with the
// key's environment.
func TestComponentLifecycle(t *testing.T) {
	factory := NewFactory()
	cfg := factory.CreateDefaultConfig()
	traces, metrics := new(consumertest.TracesSink), new(consumertest.MetricsSink)
	tests := []struct {
		name     string
		createFn func(ctx context.Context, set processor.Settings, cfg component.Config) (component.Component, error)
		consume  func(ctx context.Context, c component.Component) error
		received func() (n int, env string)
	}{
		{
			name: "traces",
			createFn: func(ctx context.Context, set processor.Settings, cfg component.Config) (component.Component, error) {
				return factory.CreateTraces(ctx, set, cfg, traces)
			},
			consume: func(ctx context.Context, c component.Component) error {
				return c.(processor.Traces).ConsumeTraces(ctx, generateLifecycleTestTraces())
			},
			received: func() (int, string) {
				all := traces.AllTraces()
				if len(all) == 0 {
					return 0, ""
				}
				return all[len(all)-1].SpanCount(), getStr(all[len(all)-1].ResourceSpans().At(0).Resource().Attributes(), "deployment.environment.name")
			},
		},
		{
			name: "metrics",
			createFn: func(ctx context.Context, set processor.Settings, cfg component.Config) (component.Component, error) {
				return factory.CreateMetrics(ctx, set, cfg, metrics)
			},
			consume: func(ctx context.Context, c component.Component) error {
				return c.(processor.Metrics).ConsumeMetrics(ctx, generateLifecycleTestMetrics())
			},
			received: func() (int, string) {
				all := metrics.AllMetrics()
				if len(all) == 0 {
					return 0, ""
				}
				return all[len(all)-1].DataPointCount(), getStr(all[len(all)-1].ResourceMetrics().At(0).Resource().Attributes(), "deployment.environment.name")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name+"-shutdown", func(t *testing.T) {
			c, err := tt.createFn(context.Background(), processortest.NewNopSettings(factory.Type()), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
		t.Run(tt.name+"-lifecycle", func(t *testing.T) {
			c, err := tt.createFn(context.Background(), processortest.NewNopSettings(factory.Type()), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(context.Background(), componenttest.NewNopHost()); err != nil {
				t.Fatal(err)
			}
			ctx := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "lifecycle"})
			if err := tt.consume(ctx, c); err != nil {
				t.Fatal(err)
			}
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n, env := tt.received(); n != 1 || env != "lifecycle" {
				t.Errorf("next consumer got %d items in environment %q, want 1 in lifecycle", n, env)
			}
		})
	}
}

func generateLifecycleTestMetrics() pmetric.Metrics {
	metrics := pmetric.NewMetrics()
	rm := metrics.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("resource", "R1")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("test_metric")
	dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.Attributes().PutStr("test_attr", "value_1")
	dp.SetIntValue(123)
	dp.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	return metrics
}

func generateLifecycleTestTraces() ptrace.Traces {
	traces := ptrace.NewTraces()
	rs := traces.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("resource", "R1")
	span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.Attributes().PutStr("test_attr", "value_1")
	span.SetName("test_span")
	span.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	span.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	span.SetStartTimestamp(pcommon.NewTimestampFromTime(time.Now().Add(-1 * time.Second)))
	span.SetEndTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	return traces
}
