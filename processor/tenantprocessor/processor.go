package tenantprocessor

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/partialsuccess"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/processor/tenantprocessor/internal/metadata"
)

// Names of the processor's own metrics (declared in metadata.yaml).
const (
	MetricEnvironmentOverrides = "otelcol_processor_tenant_environment_overrides"
	MetricRejectedSpans        = "otelcol_processor_tenant_rejected_spans"
	MetricRejectedDataPoints   = "otelcol_processor_tenant_rejected_data_points"
)

// maxLoggedValue caps a declared environment in the debug log (it is
// untrusted input).
const maxLoggedValue = 256

// Reasons of rejected spans: the partialsuccess reason and the value of
// the reason attribute of MetricRejectedSpans.
const (
	reasonInvalidID      = "invalid_id"
	reasonTimeOutOfRange = "time_out_of_range"
)

// tenantProcessor files requests under their key's environment and rejects
// spans no store can key or read back.
type tenantProcessor struct {
	logger    *zap.Logger
	overrides metric.Int64Counter
	rejected  metric.Int64Counter
	// rejectedPoints counts the metric data points rejected (reason
	// time_out_of_range).
	rejectedPoints metric.Int64Counter
	// the reason attribute of rejected, built once
	reasonInvalidID, reasonTimeOutOfRange metric.AddOption
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
		metric.WithDescription("Spans rejected because their trace id or span id is all zero (reason invalid_id) or their start or end time is after 2262-04-11 (reason time_out_of_range); reported to the sender in the OTLP partial_success."),
		metric.WithUnit("{span}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricRejectedSpans, err)
	}
	rejectedPoints, err := meter.Int64Counter(MetricRejectedDataPoints,
		metric.WithDescription("Metric data points rejected because their time_unix_nano or start_time_unix_nano is after 2262-04-11 (reason time_out_of_range); reported to the sender in the OTLP partial_success."),
		metric.WithUnit("{datapoint}"))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricRejectedDataPoints, err)
	}
	return &tenantProcessor{
		logger: set.Logger, overrides: overrides, rejected: rejected, rejectedPoints: rejectedPoints,
		reasonInvalidID:      metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", reasonInvalidID))),
		reasonTimeOutOfRange: metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", reasonTimeOutOfRange))),
	}, nil
}

func (p *tenantProcessor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	t, overrides, ok := tenant.StampTraces(ctx, td)
	if ok {
		p.recordOverrides(ctx, t, overrides, "traces")
	}
	if bad := removeInvalidSpans(td); bad.ids+bad.times > 0 {
		if bad.ids > 0 {
			msg := fmt.Sprintf("%d span(s) rejected: an all-zero trace_id or span_id is invalid (OTLP); the other spans were accepted", bad.ids)
			partialsuccess.Reject(ctx, reasonInvalidID, int64(bad.ids), msg)
			p.rejected.Add(ctx, int64(bad.ids), p.reasonInvalidID)
		}
		if bad.times > 0 {
			msg := fmt.Sprintf("%d span(s) rejected: start_time_unix_nano or end_time_unix_nano is after %s (the largest time a signed 64-bit count of nanoseconds holds); the other spans were accepted",
				bad.times, spanconv.MaxSpanTime().Format(time.RFC3339))
			partialsuccess.Reject(ctx, reasonTimeOutOfRange, int64(bad.times), msg)
			p.rejected.Add(ctx, int64(bad.times), p.reasonTimeOutOfRange)
		}
		p.logger.Debug("rejected invalid spans", zap.Int("zero_ids", bad.ids), zap.Int("times_out_of_range", bad.times))
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
	if bad := removeLatePoints(md); bad > 0 {
		msg := fmt.Sprintf("%d data point(s) rejected: time_unix_nano or start_time_unix_nano is after %s (the largest time a signed 64-bit count of nanoseconds holds); the other data points were accepted",
			bad, spanconv.MaxSpanTime().Format(time.RFC3339))
		partialsuccess.RejectDataPoints(ctx, reasonTimeOutOfRange, int64(bad), msg)
		p.rejectedPoints.Add(ctx, int64(bad), p.reasonTimeOutOfRange)
		p.logger.Debug("rejected metric data points", zap.Int("times_out_of_range", bad))
		if md.DataPointCount() == 0 {
			return md, processorhelper.ErrSkipProcessingData
		}
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

// invalidSpans counts the spans removeInvalidSpans removed, by reason.
type invalidSpans struct {
	ids   int // an all-zero trace or span id
	times int // a start or end time past spanconv.MaxSpanTime
}

// removeInvalidSpans removes the spans whose trace id or span id is all
// zero (invalid in OTLP; no store can key them) and those whose start or
// end time is past spanconv.MaxSpanTime, and returns how many of each.
//
// A time past 2262-04-11 is rejected rather than clamped: such a time does
// not fit the signed 64-bit nanoseconds that pdata (Timestamp.AsTime), Go's
// time package, the OTel SDKs and every backend we forward to use, so it
// came from a broken clock or encoding and cannot be read back as sent
// anywhere (it used to be stored wrapped, near 1715, where no query found
// it). Clamping would invent a time that looks real; rejecting tells the
// sender, in partial_success, which spans and why.
func removeInvalidSpans(td ptrace.Traces) invalidSpans {
	var bad invalidSpans
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			sss.At(j).Spans().RemoveIf(func(s ptrace.Span) bool {
				switch {
				case s.TraceID() == pcommon.NewTraceIDEmpty() || s.SpanID() == pcommon.NewSpanIDEmpty():
					bad.ids++
					return true
				case !spanconv.ValidSpanTime(s.StartTimestamp()) || !spanconv.ValidSpanTime(s.EndTimestamp()):
					bad.times++
					return true
				}
				return false
			})
		}
	}
	return bad
}

// removeLatePoints removes the metric data points whose time or start time
// is past spanconv.MaxSpanTime (a point is stored at its time in ms; past
// 2262 it used to wrap, near 1715 or at 0, where no query found it) and
// the metrics left without points, and returns how many points it
// removed. Rejected, not clamped, for the reasons removeInvalidSpans gives.
func removeLatePoints(md pmetric.Metrics) int {
	bad := 0
	late := func(start, ts pcommon.Timestamp) bool {
		if spanconv.ValidSpanTime(start) && spanconv.ValidSpanTime(ts) {
			return false
		}
		bad++
		return true
	}
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			sms.At(j).Metrics().RemoveIf(func(m pmetric.Metric) bool {
				switch m.Type() {
				case pmetric.MetricTypeGauge:
					return removePoints(m.Gauge().DataPoints(), late)
				case pmetric.MetricTypeSum:
					return removePoints(m.Sum().DataPoints(), late)
				case pmetric.MetricTypeHistogram:
					return removePoints(m.Histogram().DataPoints(), late)
				case pmetric.MetricTypeExponentialHistogram:
					return removePoints(m.ExponentialHistogram().DataPoints(), late)
				case pmetric.MetricTypeSummary:
					return removePoints(m.Summary().DataPoints(), late)
				}
				return false
			})
		}
	}
	return bad
}

// timedPoint is a metric data point of any type.
type timedPoint interface {
	StartTimestamp() pcommon.Timestamp
	Timestamp() pcommon.Timestamp
}

// pointSlice is a slice of metric data points of any type.
type pointSlice[P timedPoint] interface {
	RemoveIf(func(P) bool)
	Len() int
}

// removePoints removes the points of dps that late reports and whether
// dps is left empty having held points.
func removePoints[P timedPoint, S pointSlice[P]](dps S, late func(start, ts pcommon.Timestamp) bool) bool {
	n := dps.Len()
	dps.RemoveIf(func(p P) bool { return late(p.StartTimestamp(), p.Timestamp()) })
	return n > 0 && dps.Len() == 0
}
