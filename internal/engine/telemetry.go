package engine

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/evalcol/evalcol/evaluators"
)

// DefaultScopeName is the instrumentation scope of the engine's metrics
// when Settings.ScopeName is empty.
const DefaultScopeName = "github.com/evalcol/evalcol/internal/engine"

// Names of the processor's own metrics.
const (
	MetricEvaluations = "otelcol_processor_evaluator_evaluations"
	MetricLatency     = "otelcol_processor_evaluator_evaluation_duration"
	MetricSkipped     = "otelcol_processor_evaluator_skipped"
	MetricTimeouts    = "otelcol_processor_evaluator_timeouts"
)

var outcomes = []string{"ok", ErrorTimeout, ErrorPanic, ErrorInvalidInput, ErrorInternal}

// telemetry holds the processor's instruments and, per evaluator and
// outcome, the option slices built once so that recording does not
// allocate.
type telemetry struct {
	evaluations metric.Int64Counter
	latency     metric.Float64Histogram
	skipped     metric.Int64Counter
	timeouts    metric.Int64Counter

	slugAdd    map[string][]metric.AddOption
	slugRecord map[string][]metric.RecordOption
	outcomeAdd map[string][]metric.AddOption // key slug + "\x00" + outcome
}

func newTelemetry(mp metric.MeterProvider, scope string) (*telemetry, error) {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	if scope == "" {
		scope = DefaultScopeName
	}
	meter := mp.Meter(scope)
	t := &telemetry{
		slugAdd:    map[string][]metric.AddOption{},
		slugRecord: map[string][]metric.RecordOption{},
		outcomeAdd: map[string][]metric.AddOption{},
	}
	var err error
	if t.evaluations, err = meter.Int64Counter(MetricEvaluations,
		metric.WithDescription("Evaluations run, by evaluator slug and outcome (ok, timeout, panic, invalid_input, internal)."),
		metric.WithUnit("{evaluation}")); err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricEvaluations, err)
	}
	if t.latency, err = meter.Float64Histogram(MetricLatency,
		metric.WithDescription("Duration of one evaluation, by evaluator slug."),
		metric.WithUnit("s"),
		// Evaluations take microseconds to the 2 s default timeout; the
		// SDK's default buckets start at 5 s.
		metric.WithExplicitBucketBoundaries(0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5)); err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricLatency, err)
	}
	if t.skipped, err = meter.Int64Counter(MetricSkipped,
		metric.WithDescription("Evaluations skipped because the span lacked a required input, by evaluator slug."),
		metric.WithUnit("{evaluation}")); err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricSkipped, err)
	}
	if t.timeouts, err = meter.Int64Counter(MetricTimeouts,
		metric.WithDescription("Evaluations abandoned at the timeout, by evaluator slug."),
		metric.WithUnit("{evaluation}")); err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricTimeouts, err)
	}
	for _, slug := range evaluators.Slugs() {
		o := metric.WithAttributeSet(attribute.NewSet(attribute.String("slug", slug)))
		t.slugAdd[slug] = []metric.AddOption{o}
		t.slugRecord[slug] = []metric.RecordOption{o}
		for _, oc := range outcomes {
			t.outcomeAdd[slug+"\x00"+oc] = []metric.AddOption{outcomeOption(slug, oc)}
		}
	}
	return t, nil
}

func outcomeOption(slug, outcome string) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(attribute.String("slug", slug), attribute.String("outcome", outcome)))
}

func (t *telemetry) addOptions(slug string) []metric.AddOption {
	if o, ok := t.slugAdd[slug]; ok {
		return o
	}
	return []metric.AddOption{metric.WithAttributes(attribute.String("slug", slug))}
}

func (t *telemetry) skip(ctx context.Context, slug string) {
	t.skipped.Add(ctx, 1, t.addOptions(slug)...)
}

// evaluated records one finished evaluation; ran is false when the request
// failed validation and the evaluator never ran.
func (t *telemetry) evaluated(ctx context.Context, slug, outcome string, d time.Duration, ran bool) {
	o, ok := t.outcomeAdd[slug+"\x00"+outcome]
	if !ok {
		o = []metric.AddOption{outcomeOption(slug, outcome)}
	}
	t.evaluations.Add(ctx, 1, o...)
	if ran {
		r, ok := t.slugRecord[slug]
		if !ok {
			r = []metric.RecordOption{metric.WithAttributes(attribute.String("slug", slug))}
		}
		t.latency.Record(ctx, d.Seconds(), r...)
	}
	if outcome == ErrorTimeout {
		t.timeouts.Add(ctx, 1, t.addOptions(slug)...)
	}
}
