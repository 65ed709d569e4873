package tenantprocessor

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/partialsuccess"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/processor/tenantprocessor/internal/metadata"
)

// Names of the processor's own metrics (declared in metadata.yaml).
const (
	MetricEnvironmentOverrides = "otelcol_processor_tenant_environment_overrides"
	MetricRejectedSpans        = "otelcol_processor_tenant_rejected_spans"
)

// maxLoggedValue caps a declared environment in the debug log (it is
// untrusted input).
const maxLoggedValue = 256

// tenantProcessor files requests under their key's environment and rejects
// spans no store can key.
type tenantProcessor struct {
	logger    *zap.Logger
	overrides metric.Int64Counter
	rejected  metric.Int64Counter
}

func newTenantProcessor(set processor.Settings) (*tenantProcessor, error) {
	meter := set.MeterProvider.Meter(metadata.ScopeName)
	overrides, err := meter.Int64Counter(MetricEnvironmentOverrides,
		metric.WithDescription("Resources whose declared deployment.environment.name or deployment.environment disagreed with the environment of the API key that sent them; the key's environment was used and the declared value kept as evalcol.declared.<attribute>."),
		metric.WithUnit("{resource}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricEnvironmentOverrides, err)
	}
	rejected, err := meter.Int64Counter(MetricRejectedSpans,
		metric.WithDescription("Spans rejected because their trace id or span id is all zero; reported to the sender in the OTLP partial_success."),
		metric.WithUnit("{span}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricRejectedSpans, err)
	}
	return &tenantProcessor{logger: set.Logger, overrides: overrides, rejected: rejected}, nil
}

func (p *tenantProcessor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	t, overrides, ok := tenant.StampTraces(ctx, td)
	if ok {
		p.recordOverrides(ctx, t, overrides, "traces")
	}
	if n := removeInvalidSpans(td); n > 0 {
		msg := fmt.Sprintf("%d span(s) rejected: an all-zero trace_id or span_id is invalid (OTLP); the other spans were accepted", n)
		partialsuccess.Reject(ctx, int64(n), msg)
		p.rejected.Add(ctx, int64(n))
		p.logger.Debug("rejected spans with an all-zero trace or span id", zap.Int("spans", n))
		if td.SpanCount() == 0 {
			return td, processorhelper.ErrSkipProcessingData
		}
	}
	return td, nil
}

func (p *tenantProcessor) processMetrics(ctx context.Context, md pmetric.Metrics) (pmetric.Metrics, error) {
	t, overrides, ok := tenant.StampMetrics(ctx, md)
	if ok {
		p.recordOverrides(ctx, t, overrides, "metrics")
	}
	return md, nil
}

func (p *tenantProcessor) recordOverrides(ctx context.Context, t tenant.Tenant, overrides []tenant.Override, signal string) {
	if len(overrides) == 0 {
		return
	}
	p.overrides.Add(ctx, int64(len(overrides)), metric.WithAttributes(
		attribute.String("environment", t.Environment), attribute.String("signal", signal)))
	if ce := p.logger.Check(zap.DebugLevel, "declared environment disagrees with the API key's; filed under the key's environment"); ce != nil {
		for _, o := range overrides {
			declared := o.Declared
			if len(declared) > maxLoggedValue {
				declared = declared[:maxLoggedValue] + "..."
			}
			ce.Write(zap.String("environment", t.Environment), zap.String("attribute", o.Attribute),
				zap.String("declared", declared), zap.String("signal", signal))
		}
	}
}

// removeInvalidSpans removes the spans whose trace id or span id is all
// zero (invalid in OTLP; no store can key them) and returns how many.
func removeInvalidSpans(td ptrace.Traces) int {
	n := 0
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			sss.At(j).Spans().RemoveIf(func(s ptrace.Span) bool {
				bad := s.TraceID() == pcommon.NewTraceIDEmpty() || s.SpanID() == pcommon.NewSpanIDEmpty()
				if bad {
					n++
				}
				return bad
			})
		}
	}
	return n
}
