// Package aggregate turns the evaluation results recorded on spans
// (gen_ai.evaluation.result events) into cumulative OTel metrics: a count
// of evaluations and a histogram of scores, by evaluator and a chosen set
// of dimensions, with a bounded number of series. It works on pdata alone;
// the connector only calls Add for each batch and Metrics on each flush.
package aggregate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/genai"
	"github.com/evalcol/evalcol/internal/tenant"
)

// Names and units of the metrics.
const (
	// MetricEvaluations counts evaluation results (a monotonic cumulative
	// sum). Prometheus: evalcol_evaluations_total.
	MetricEvaluations = "evalcol.evaluations"
	// MetricScore is the histogram of evaluation scores
	// (gen_ai.evaluation.score.value). Prometheus:
	// evalcol_evaluation_score_bucket, _sum, _count.
	MetricScore = "evalcol.evaluation.score"

	unitEvaluations = "{evaluation}"
	unitScore       = "{score}"
)

// Attribute keys of the data points.
const (
	// AttrEvaluator is the evaluator's slug (always present).
	AttrEvaluator = genai.AttrEvaluationName
	// AttrVerdict is pass, fail, error or none.
	AttrVerdict = "evalcol.evaluation.verdict"
	// AttrMonitor is the monitor id (a static monitor's name or an auto
	// monitor setup's id).
	AttrMonitor = genai.AttrMonitorID
	// AttrWorkflow is the span's workflow (traceloop.workflow.name).
	AttrWorkflow = "traceloop.workflow.name"
	// AttrAgent is the span's agent (gen_ai.agent.name, or the entity
	// name of a Traceloop agent span).
	AttrAgent = "gen_ai.agent.name"
	// AttrService is the resource's service.name.
	AttrService = "service.name"
	// AttrEnvironment is the resource's environment
	// (deployment.environment.name, else deployment.environment).
	AttrEnvironment = tenant.EnvironmentAttribute
	// AttrOverflow marks the series that holds every evaluation of a
	// combination first seen after MaxSeries series existed.
	AttrOverflow = "otel.metric.overflow"
)

// VerdictNone is the verdict attribute of a result whose evaluator is not
// in the catalogue (a result an application recorded itself).
const VerdictNone = "none"

// Dimension is an optional attribute of the data points.
type Dimension int

// The dimensions, in the order their attributes are listed.
const (
	DimVerdict Dimension = iota
	DimMonitor
	DimWorkflow
	DimAgent
	DimService
	DimEnvironment
	numDimensions
)

// dimensionNames are the configuration names of the dimensions.
var dimensionNames = [numDimensions]string{"verdict", "monitor", "workflow", "agent", "service", "environment"}

// dimensionAttrs are the attribute keys of the dimensions.
var dimensionAttrs = [numDimensions]string{AttrVerdict, AttrMonitor, AttrWorkflow, AttrAgent, AttrService, AttrEnvironment}

// String returns the dimension's configuration name.
func (d Dimension) String() string { return dimensionNames[d] }

// Attribute returns the data point attribute key of the dimension.
func (d Dimension) Attribute() string { return dimensionAttrs[d] }

// DimensionNames returns the configuration names of all dimensions, in a
// new slice.
func DimensionNames() []string { return slices.Clone(dimensionNames[:]) }

// ParseDimension returns the dimension called name.
func ParseDimension(name string) (Dimension, error) {
	for i, n := range dimensionNames {
		if n == name {
			return Dimension(i), nil
		}
	}
	return 0, fmt.Errorf("unknown dimension %q (known: %s)", name, strings.Join(dimensionNames[:], ", "))
}

// MaxValueBytes bounds a dimension value: longer values (a workflow name
// is whatever the application sent) are cut at a UTF-8 boundary, so that
// the memory of MaxSeries series is bounded too.
const MaxValueBytes = 256

// Options configure an Aggregator.
type Options struct {
	// Dimensions are the attributes besides the evaluator. The score
	// histogram ignores DimVerdict.
	Dimensions []Dimension
	// MaxSeries bounds the series of each metric; the evaluations of
	// every later combination count in one overflow series. Must be
	// positive.
	MaxSeries int
	// Buckets are the explicit bounds of the score histogram, increasing.
	Buckets []float64
	// Expiration drops a series not updated for this long at the next
	// Metrics call, making room for new combinations; 0 keeps series for
	// ever.
	Expiration time.Duration
}

// Aggregator accumulates evaluation results. It is safe for concurrent
// use.
type Aggregator struct {
	counterDims []Dimension // Options.Dimensions
	histDims    []Dimension // without DimVerdict
	maxSeries   int
	buckets     []float64
	expiration  time.Duration

	mu         sync.Mutex
	counts     map[string]*countSeries
	hists      map[string]*histSeries
	countOver  *countSeries
	histOver   *histSeries
	key        []byte         // scratch for series keys
	output     map[string]any // scratch for an event's output fields
	values     [numDimensions]string
	dropped    int64 // evaluation events without a name
	overflowed int64 // evaluations counted in an overflow series
}

// series is what both kinds of series share.
type series struct {
	attrs    []string // values of evaluator and the metric's dimensions, in order
	start    pcommon.Timestamp
	lastSeen time.Time
}

type countSeries struct {
	series
	count int64
}

type histSeries struct {
	series
	count    uint64
	sum      float64
	min, max float64
	buckets  []uint64 // len(Options.Buckets)+1
}

// New returns an Aggregator with opts.
func New(opts Options) *Aggregator {
	a := &Aggregator{
		counterDims: append([]Dimension(nil), opts.Dimensions...),
		maxSeries:   opts.MaxSeries,
		buckets:     append([]float64(nil), opts.Buckets...),
		expiration:  opts.Expiration,
		counts:      map[string]*countSeries{},
		hists:       map[string]*histSeries{},
		output:      map[string]any{},
	}
	for _, d := range opts.Dimensions {
		if d != DimVerdict {
			a.histDims = append(a.histDims, d)
		}
	}
	return a
}

// Add counts the evaluation results recorded on the spans of td at now and
// returns how many it counted. Spans without results cost a look at their
// events.
func (a *Aggregator) Add(td ptrace.Traces, now time.Time) int {
	n := 0
	ts := pcommon.NewTimestampFromTime(now)
	a.mu.Lock()
	defer a.mu.Unlock()
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		res := rs.Resource().Attributes()
		resourceRead := false
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				sp := spans.At(k)
				events := sp.Events()
				namesRead := false
				for e := 0; e < events.Len(); e++ {
					ev := events.At(e)
					if ev.Name() != genai.EvaluationEvent {
						continue
					}
					attrs := ev.Attributes()
					slug := str(attrs, genai.AttrEvaluationName)
					if slug == "" {
						a.dropped++
						continue
					}
					if !resourceRead {
						a.values[DimService] = str(res, AttrService)
						a.values[DimEnvironment] = environment(res)
						resourceRead = true
					}
					if !namesRead {
						names := genai.ExtractNames(sp.Attributes())
						a.values[DimWorkflow], a.values[DimAgent] = names.Workflow, names.Agent
						namesRead = true
					}
					a.values[DimMonitor] = str(attrs, genai.AttrMonitorID)
					a.values[DimVerdict] = a.verdict(slug, attrs)
					a.count(slug, ts, now)
					if v, ok := score(attrs); ok {
						a.observe(slug, v, ts, now)
					}
					n++
				}
			}
		}
	}
	return n
}

// verdict returns the verdict of one result: error when it records an
// error.type, else pass or fail by the evaluator's pass condition (as the
// warehouse and /v2/guardrails decide), none for an evaluator outside the
// catalogue.
func (a *Aggregator) verdict(slug string, attrs pcommon.Map) string {
	// The verdict the evaluator processor decided, when it recorded one.
	switch v := str(attrs, genai.AttrEvaluationVerdict); v {
	case string(evaluators.VerdictPass), string(evaluators.VerdictFail), string(evaluators.VerdictError):
		return v
	}
	errType := str(attrs, genai.AttrErrorType)
	clear(a.output)
	if errType == "" {
		for k, v := range attrs.All() {
			if field, ok := strings.CutPrefix(k, genai.AttrEvaluationOutputPrefix); ok {
				a.output[field] = v.AsRaw()
			}
		}
	}
	v := evaluators.VerdictOf(slug, a.output, errType)
	if v == evaluators.VerdictNone {
		return VerdictNone
	}
	return string(v)
}

// count adds one evaluation to its series.
func (a *Aggregator) count(slug string, ts pcommon.Timestamp, now time.Time) {
	key := a.seriesKey(slug, a.counterDims)
	s, ok := a.counts[string(key)]
	if !ok {
		if len(a.counts) >= a.maxSeries {
			if a.countOver == nil {
				a.countOver = &countSeries{series: series{start: ts}}
			}
			s = a.countOver
			a.overflowed++
		} else {
			s = &countSeries{series: series{attrs: a.seriesAttrs(slug, a.counterDims), start: ts}}
			a.counts[string(key)] = s
		}
	}
	s.count++
	s.lastSeen = now
}

// observe adds one score to its histogram series.
func (a *Aggregator) observe(slug string, v float64, ts pcommon.Timestamp, now time.Time) {
	key := a.seriesKey(slug, a.histDims)
	s, ok := a.hists[string(key)]
	if !ok {
		if len(a.hists) >= a.maxSeries {
			if a.histOver == nil {
				a.histOver = a.newHist(nil, ts)
			}
			s = a.histOver
		} else {
			s = a.newHist(a.seriesAttrs(slug, a.histDims), ts)
			a.hists[string(key)] = s
		}
	}
	if s.count == 0 || v < s.min {
		s.min = v
	}
	if s.count == 0 || v > s.max {
		s.max = v
	}
	s.count++
	s.sum += v
	// Bucket i holds (bounds[i-1], bounds[i]]; the last one is above
	// every bound.
	i := 0
	for i < len(a.buckets) && v > a.buckets[i] {
		i++
	}
	s.buckets[i]++
	s.lastSeen = now
}

func (a *Aggregator) newHist(attrs []string, ts pcommon.Timestamp) *histSeries {
	return &histSeries{series: series{attrs: attrs, start: ts}, buckets: make([]uint64, len(a.buckets)+1)}
}

// seriesKey returns the key of the series of slug with the current
// dimension values, in the scratch buffer (valid until the next call).
func (a *Aggregator) seriesKey(slug string, dims []Dimension) []byte {
	a.key = append(a.key[:0], truncate(slug)...)
	for _, d := range dims {
		a.key = append(a.key, 0)
		a.key = append(a.key, truncate(a.values[d])...)
	}
	return a.key
}

// seriesAttrs returns the attribute values of a new series.
func (a *Aggregator) seriesAttrs(slug string, dims []Dimension) []string {
	attrs := make([]string, 0, len(dims)+1)
	attrs = append(attrs, strings.Clone(truncate(slug)))
	for _, d := range dims {
		attrs = append(attrs, strings.Clone(truncate(a.values[d])))
	}
	return attrs
}

// Stats are counts of what Add did not put in a series of its own.
type Stats struct {
	// Dropped counts evaluation events without gen_ai.evaluation.name.
	Dropped int64
	// Overflowed counts evaluations counted in the overflow series.
	Overflowed int64
	// Series is the number of evaluation count series (without the
	// overflow series).
	Series int
	// ScoreSeries is the number of score histogram series (without the
	// overflow series).
	ScoreSeries int
}

// Stats returns the counts so far.
func (a *Aggregator) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Stats{Dropped: a.dropped, Overflowed: a.overflowed, Series: len(a.counts), ScoreSeries: len(a.hists)}
}

// Metrics drops the series not updated within the expiration and returns
// the cumulative value of every other series at now; an empty
// pmetric.Metrics when there is none. scope names the instrumentation
// scope of the metrics.
func (a *Aggregator) Metrics(now time.Time, scope, version string) pmetric.Metrics {
	md := pmetric.NewMetrics()
	ts := pcommon.NewTimestampFromTime(now)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.expiration > 0 {
		cutoff := now.Add(-a.expiration)
		for k, s := range a.counts {
			if s.lastSeen.Before(cutoff) {
				delete(a.counts, k)
			}
		}
		for k, s := range a.hists {
			if s.lastSeen.Before(cutoff) {
				delete(a.hists, k)
			}
		}
	}
	if len(a.counts) == 0 && a.countOver == nil {
		return md
	}
	sm := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(scope)
	sm.Scope().SetVersion(version)

	m := sm.Metrics().AppendEmpty()
	m.SetName(MetricEvaluations)
	m.SetUnit(unitEvaluations)
	m.SetDescription("Evaluation results recorded on spans, by evaluator, verdict (pass, fail, error, none) and the configured dimensions.")
	sum := m.SetEmptySum()
	sum.SetIsMonotonic(true)
	sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dps := sum.DataPoints()
	dps.EnsureCapacity(len(a.counts) + 1)
	for _, s := range a.counts {
		dp := dps.AppendEmpty()
		a.putAttrs(dp.Attributes(), s.attrs, a.counterDims)
		dp.SetStartTimestamp(s.start)
		dp.SetTimestamp(ts)
		dp.SetIntValue(s.count)
	}
	if s := a.countOver; s != nil {
		dp := dps.AppendEmpty()
		dp.Attributes().PutBool(AttrOverflow, true)
		dp.SetStartTimestamp(s.start)
		dp.SetTimestamp(ts)
		dp.SetIntValue(s.count)
	}

	if len(a.hists) == 0 && a.histOver == nil {
		return md
	}
	m = sm.Metrics().AppendEmpty()
	m.SetName(MetricScore)
	m.SetUnit(unitScore)
	m.SetDescription("Scores of evaluation results (gen_ai.evaluation.score.value; booleans and safe/unsafe as 1/0), by evaluator and the configured dimensions.")
	hist := m.SetEmptyHistogram()
	hist.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	hdps := hist.DataPoints()
	hdps.EnsureCapacity(len(a.hists) + 1)
	for _, s := range a.hists {
		dp := hdps.AppendEmpty()
		a.putAttrs(dp.Attributes(), s.attrs, a.histDims)
		a.putHist(dp, s, ts)
	}
	if s := a.histOver; s != nil {
		dp := hdps.AppendEmpty()
		dp.Attributes().PutBool(AttrOverflow, true)
		a.putHist(dp, s, ts)
	}
	return md
}

// putAttrs sets the attributes of a data point: the evaluator, then each
// dimension that has a value (a span without a workflow has no workflow
// attribute).
func (a *Aggregator) putAttrs(m pcommon.Map, values []string, dims []Dimension) {
	m.EnsureCapacity(len(values))
	m.PutStr(AttrEvaluator, values[0])
	for i, d := range dims {
		if v := values[i+1]; v != "" {
			m.PutStr(d.Attribute(), v)
		}
	}
}

func (a *Aggregator) putHist(dp pmetric.HistogramDataPoint, s *histSeries, ts pcommon.Timestamp) {
	dp.SetStartTimestamp(s.start)
	dp.SetTimestamp(ts)
	dp.SetCount(s.count)
	dp.SetSum(s.sum)
	if s.count > 0 {
		dp.SetMin(s.min)
		dp.SetMax(s.max)
	}
	dp.ExplicitBounds().FromRaw(a.buckets)
	dp.BucketCounts().FromRaw(s.buckets)
}

// score returns the result's numeric score, if it has one.
func score(attrs pcommon.Map) (float64, bool) {
	v, ok := attrs.Get(genai.AttrEvaluationScoreValue)
	if !ok {
		return 0, false
	}
	var f float64
	switch v.Type() {
	case pcommon.ValueTypeDouble:
		f = v.Double()
	case pcommon.ValueTypeInt:
		f = float64(v.Int())
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// environment returns the environment of a resource, decided as
// everywhere else (tenant.EnvironmentOf).
func environment(res pcommon.Map) string { return tenant.EnvironmentOf(res) }

// str returns the attribute k as text, "" when it is absent.
func str(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// truncate cuts s to MaxValueBytes at a UTF-8 boundary.
func truncate(s string) string {
	if len(s) <= MaxValueBytes {
		return s
	}
	i := MaxValueBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
