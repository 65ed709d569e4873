// Written by hand in the shape of mdatagen's generated_component_test.go
// (mdatagen is not served here). The exporter writes into the warehouse of
// the evalapi extension it looks up by id at start, so the lifecycle runs
// on a host holding a real evalapi extension (temporary SQLite warehouse,
// free loopback port) and checks the data was stored.

package warehouseexporter

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/evalapitest"
	"github.com/evalcol/evalcol/internal/warehouse"
)

func TestComponentFactoryType(t *testing.T) {
	if got := NewFactory().Type().String(); got != "warehouse" {
		t.Fatalf("type = %q, want warehouse", got)
	}
}

func TestComponentConfigStruct(t *testing.T) {
	if err := componenttest.CheckConfigStruct(NewFactory().CreateDefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

// lifecycleEnvironment is the environment of the lifecycle data.
const lifecycleEnvironment = "lifecycle"

func TestComponentLifecycle(t *testing.T) {
	factory := NewFactory()
	tests := []struct {
		name     string
		createFn func(ctx context.Context, set exporter.Settings, cfg component.Config) (component.Component, error)
		consume  func(ctx context.Context, c component.Component) error
		stored   func(t *testing.T, store warehouse.Store) int
	}{
		{
			name: "traces",
			createFn: func(ctx context.Context, set exporter.Settings, cfg component.Config) (component.Component, error) {
				return factory.CreateTraces(ctx, set, cfg)
			},
			consume: func(ctx context.Context, c component.Component) error {
				return c.(exporter.Traces).ConsumeTraces(ctx, generateLifecycleTestTraces())
			},
			stored: func(t *testing.T, store warehouse.Store) int {
				page, err := store.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{lifecycleEnvironment}, ToMs: time.Now().Add(time.Hour).UnixMilli()})
				if err != nil {
					t.Fatal(err)
				}
				return len(page.Spans)
			},
		},
		{
			name: "metrics",
			createFn: func(ctx context.Context, set exporter.Settings, cfg component.Config) (component.Component, error) {
				return factory.CreateMetrics(ctx, set, cfg)
			},
			consume: func(ctx context.Context, c component.Component) error {
				return c.(exporter.Metrics).ConsumeMetrics(ctx, generateLifecycleTestMetrics())
			},
			stored: func(t *testing.T, store warehouse.Store) int {
				page, err := store.QueryMetrics(context.Background(), warehouse.MetricQuery{Environments: []string{lifecycleEnvironment}, ToMs: time.Now().Add(time.Hour).UnixMilli()})
				if err != nil {
					t.Fatal(err)
				}
				return int(page.TotalPoints)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name+"-shutdown", func(t *testing.T) {
			c, err := tt.createFn(context.Background(), exportertest.NewNopSettings(factory.Type()), factory.CreateDefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
		t.Run(tt.name+"-lifecycle", func(t *testing.T) {
			api := evalapitest.Start(t, evalapitest.Options{})
			c, err := tt.createFn(context.Background(), exportertest.NewNopSettings(factory.Type()), factory.CreateDefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(context.Background(), api); err != nil {
				t.Fatal(err)
			}
			if err := tt.consume(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			// Shutdown drains the sending queue, if any, into the store.
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := tt.stored(t, api.Warehouse()); n != 1 {
				t.Errorf("the warehouse holds %d items of environment %s, want 1", n, lifecycleEnvironment)
			}
		})
	}
}

func generateLifecycleTestMetrics() pmetric.Metrics {
	metrics := pmetric.NewMetrics()
	rm := metrics.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("deployment.environment.name", lifecycleEnvironment)
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
	rs.Resource().Attributes().PutStr("deployment.environment.name", lifecycleEnvironment)
	span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.Attributes().PutStr("test_attr", "value_1")
	span.SetName("test_span")
	span.SetTraceID([16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	span.SetSpanID([8]byte{1, 2, 3, 4, 5, 6, 7, 8})
	span.SetStartTimestamp(pcommon.NewTimestampFromTime(time.Now().Add(-1 * time.Second)))
	span.SetEndTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	return traces
}
