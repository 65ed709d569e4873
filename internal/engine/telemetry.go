package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
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

	MetricSpansEvaluated = "otelcol_processor_evaluator_spans_evaluated"
	MetricSpansSkipped   = "otelcol_processor_evaluator_spans_skipped"
)

// MaxSetupSeries bounds the setups that get their own series of the
// per-monitor metrics: the first MaxSetupSeries setup ids an engine sees
// since it started; later ones count under monitor OtherMonitor. Static
// monitors always get their own (the configuration bounds them).
const (
	MaxSetupSeries = 100
	OtherMonitor   = "_other"
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
	// spansEvaluated and spansSkipped are by monitor: asynchronous, so
	// that counting a span costs an atomic add, observed from monitors.
	spansEvaluated metric.Int64ObservableCounter
	spansSkipped   metric.Int64ObservableCounter
	monitors       monitorSeries
	registration   metric.Registration

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
	if t.spansEvaluated, err = meter.Int64ObservableCounter(MetricSpansEvaluated,
		metric.WithDescription("Spans a monitor evaluated (at least one evaluation result recorded on the span), by monitor."),
		metric.WithUnit("{span}")); err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricSpansEvaluated, err)
	}
	if t.spansSkipped, err = meter.Int64ObservableCounter(MetricSpansSkipped,
		metric.WithDescription("Spans a monitor matched but did not evaluate because the span lacked a required input of each of its evaluators, by monitor."),
		metric.WithUnit("{span}")); err != nil {
		return nil, fmt.Errorf("creating %s: %w", MetricSpansSkipped, err)
	}
	t.monitors.other = newMonitorCounts(OtherMonitor, sourceSetup)
	if t.registration, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		t.monitors.observe(o, t.spansEvaluated, t.spansSkipped)
		return nil
	}, t.spansEvaluated, t.spansSkipped); err != nil {
		return nil, fmt.Errorf("registering the per-monitor metrics: %w", err)
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

// monitorSpan records that monitor id (a setup's when dynamic) matched a
// span and evaluated it, or skipped it for want of inputs.
func (t *telemetry) monitorSpan(id string, dynamic, evaluated bool) {
	c := t.monitors.get(id, dynamic)
	if evaluated {
		c.evaluated.Add(1)
	} else {
		c.skipped.Add(1)
	}
}

// close stops reporting the per-monitor metrics.
func (t *telemetry) close() error {
	return t.registration.Unregister()
}

// Values of the monitor.source attribute.
const (
	sourceConfig = "config"
	sourceSetup  = "setup"
)

// monitorCounts are the spans one series counted.
type monitorCounts struct {
	attrs     metric.ObserveOption
	evaluated atomic.Int64
	skipped   atomic.Int64
}

func newMonitorCounts(id, source string) *monitorCounts {
	return &monitorCounts{attrs: metric.WithAttributeSet(attribute.NewSet(
		attribute.String("monitor", id), attribute.String("monitor.source", source)))}
}

// monitorSeries holds the counts of the per-monitor metrics: one series
// per static monitor, one per setup for the first MaxSetupSeries setup ids
// seen, and OtherMonitor for the setups after those, so that thousands of
// auto monitor setups cannot grow the series without bound. Lookups read
// an immutable map (no lock, no allocation); a new monitor copies it.
type monitorSeries struct {
	known  atomic.Pointer[map[seriesKey]*monitorCounts]
	full   atomic.Bool
	mu     sync.Mutex
	setups int
	other  *monitorCounts
}

type seriesKey struct {
	id      string
	dynamic bool
}

func (s *monitorSeries) get(id string, dynamic bool) *monitorCounts {
	key := seriesKey{id, dynamic}
	if m := s.known.Load(); m != nil {
		if c, ok := (*m)[key]; ok {
			return c
		}
	}
	if dynamic && s.full.Load() {
		return s.other
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.known.Load()
	if old != nil {
		if c, ok := (*old)[key]; ok {
			return c
		}
	}
	source := sourceConfig
	if dynamic {
		if s.setups >= MaxSetupSeries {
			s.full.Store(true)
			return s.other
		}
		s.setups++
		source = sourceSetup
	}
	c := newMonitorCounts(id, source)
	m := make(map[seriesKey]*monitorCounts, 1)
	if old != nil {
		m = make(map[seriesKey]*monitorCounts, len(*old)+1)
		for k, v := range *old {
			m[k] = v
		}
	}
	m[key] = c
	s.known.Store(&m)
	return c
}

// observe reports every series that counted a span.
func (s *monitorSeries) observe(o metric.Observer, evaluated, skipped metric.Int64Observable) {
	report := func(c *monitorCounts) {
		if n := c.evaluated.Load(); n > 0 {
			o.ObserveInt64(evaluated, n, c.attrs)
		}
		if n := c.skipped.Load(); n > 0 {
			o.ObserveInt64(skipped, n, c.attrs)
		}
	}
	if m := s.known.Load(); m != nil {
		for _, c := range *m {
			report(c)
		}
	}
	report(s.other)
}
