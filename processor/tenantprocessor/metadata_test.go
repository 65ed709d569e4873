package tenantprocessor

import (
	"context"
	"flag"
	"math"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/evalcol/evalcol/internal/telemetrytest"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/processor/tenantprocessor/internal/metadata"
)

var updateDocs = flag.Bool("update", false, "rewrite documentation.md from metadata.yaml")

func TestDocumentation(t *testing.T) { telemetrytest.Documentation(t, ".", *updateDocs) }

// TestTelemetryMatchesMetadata runs both signals' processors with data
// that takes every path that records a metric (a resource whose declared
// environment disagrees with its key's, a span with all-zero ids, a span ending after 2262, a data point after 2262) and
// compares what they recorded with metadata.yaml.
func TestTelemetryMatchesMetadata(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	set := processortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
	ctx := tenant.NewClientContext(context.Background(), tenant.Tenant{Environment: "staging"})

	tp, err := NewFactory().CreateTraces(context.Background(), set, &Config{}, consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	td := traces(map[string]string{"deployment.environment.name": "declared-env"})
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SetTraceID([16]byte{1})
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SetSpanID([8]byte{1})
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty().SetName("all-zero ids")
	late := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty()
	late.SetName("ends after 2262")
	late.SetTraceID([16]byte{2})
	late.SetSpanID([8]byte{2})
	late.SetEndTimestamp(pcommon.Timestamp(math.MaxUint64))
	mp, err := NewFactory().CreateMetrics(context.Background(), set, &Config{}, consumertest.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	md2 := generateLifecycleTestMetrics()
	md2.ResourceMetrics().At(0).Resource().Attributes().PutStr("deployment.environment", "declared-env")
	lateMetric := md2.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty()
	lateMetric.SetName("after 2262")
	lateMetric.SetEmptyGauge().DataPoints().AppendEmpty().SetTimestamp(pcommon.Timestamp(math.MaxUint64))
	for _, run := range []func() error{
		func() error { return tp.Start(context.Background(), componenttest.NewNopHost()) },
		func() error { return mp.Start(context.Background(), componenttest.NewNopHost()) },
		func() error { return tp.ConsumeTraces(ctx, td) },
		func() error { return mp.ConsumeMetrics(ctx, md2) },
		func() error { return tp.Shutdown(context.Background()) },
		func() error { return mp.Shutdown(context.Background()) },
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
