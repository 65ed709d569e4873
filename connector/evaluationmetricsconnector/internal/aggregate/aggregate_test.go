package aggregate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// result is one evaluation result event of a test span.
type result struct {
	slug, monitor string
	output        map[string]any // gen_ai.evaluation.output.<field>
	score         any            // gen_ai.evaluation.score.value (float64 or int64); nil for none
	errType       string
}

// testSpan is a span of a test batch and its resource.
type testSpan struct {
	service, env string
	attrs        map[string]any
	results      []result
	otherEvents  int // events that are not evaluation results
}

// traces builds one batch, one resource per span.
func traces(t *testing.T, spans ...testSpan) ptrace.Traces {
	t.Helper()
	td := ptrace.NewTraces()
	for _, s := range spans {
		rs := td.ResourceSpans().AppendEmpty()
		if s.service != "" {
			rs.Resource().Attributes().PutStr("service.name", s.service)
		}
		if s.env != "" {
			rs.Resource().Attributes().PutStr("deployment.environment.name", s.env)
		}
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetName("chat")
		if err := sp.Attributes().FromRaw(s.attrs); err != nil {
			t.Fatal(err)
		}
		for range s.otherEvents {
			sp.Events().AppendEmpty().SetName("exception")
		}
		for _, r := range s.results {
			ev := sp.Events().AppendEmpty()
			ev.SetName("gen_ai.evaluation.result")
			a := ev.Attributes()
			if r.slug != "" {
				a.PutStr("gen_ai.evaluation.name", r.slug)
			}
			if r.monitor != "" {
				a.PutStr("evalcol.monitor.id", r.monitor)
			}
			switch v := r.score.(type) {
			case float64:
				a.PutDouble("gen_ai.evaluation.score.value", v)
			case int64:
				a.PutInt("gen_ai.evaluation.score.value", v)
			}
			for k, v := range r.output {
				if err := a.PutEmpty("gen_ai.evaluation.output." + k).FromRaw(v); err != nil {
					t.Fatal(err)
				}
			}
			if r.errType != "" {
				a.PutStr("error.type", r.errType)
				a.PutStr("gen_ai.evaluation.error.message", "evaluation timed out after 2s")
			}
		}
	}
	return td
}

var (
	safe   = result{slug: "toxicity-detector", monitor: "safety", output: map[string]any{"is_safe": "safe"}, score: 1.0}
	unsafe = result{slug: "toxicity-detector", monitor: "safety", output: map[string]any{"is_safe": "unsafe"}, score: 0.0}
	noPII  = result{slug: "pii-detector", monitor: "safety", output: map[string]any{"has_pii": false}, score: int64(1)}
	slow   = result{slug: "faithfulness", monitor: "rag", errType: "timeout"}
	own    = result{slug: "my-own-judge", monitor: "app", output: map[string]any{"score": 0.35}, score: 0.35}
)

var allDims = []Dimension{DimVerdict, DimMonitor, DimWorkflow, DimAgent, DimService, DimEnvironment}

var testBuckets = []float64{0, 0.5, 1}

// point is a data point read back: its attributes as text and its value.
type point struct {
	attrs   map[string]string
	count   int64 // the sum's value, or the histogram's count
	sum     float64
	buckets []uint64
}

// read returns the data points of metric name in md, by their attributes
// rendered as "k=v,k=v" (sorted).
func read(t *testing.T, md pmetric.Metrics, name string) map[string]point {
	t.Helper()
	out := map[string]point{}
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				if m.Name() != name {
					continue
				}
				switch m.Type() {
				case pmetric.MetricTypeSum:
					if !m.Sum().IsMonotonic() || m.Sum().AggregationTemporality() != pmetric.AggregationTemporalityCumulative {
						t.Errorf("%s is not a cumulative monotonic sum", name)
					}
					dps := m.Sum().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						dp := dps.At(d)
						out[render(dp.Attributes())] = point{attrs: attrText(dp.Attributes()), count: dp.IntValue()}
					}
				case pmetric.MetricTypeHistogram:
					if m.Histogram().AggregationTemporality() != pmetric.AggregationTemporalityCumulative {
						t.Errorf("%s is not cumulative", name)
					}
					dps := m.Histogram().DataPoints()
					for d := 0; d < dps.Len(); d++ {
						dp := dps.At(d)
						out[render(dp.Attributes())] = point{attrs: attrText(dp.Attributes()), count: int64(dp.Count()), sum: dp.Sum(),
							buckets: dp.BucketCounts().AsRaw()}
					}
				default:
					t.Errorf("%s has type %s", name, m.Type())
				}
			}
		}
	}
	return out
}

func attrText(m pcommon.Map) map[string]string {
	out := map[string]string{}
	for k, v := range m.All() {
		out[k] = v.AsString()
	}
	return out
}

func render(m pcommon.Map) string {
	a := attrText(m)
	keys := slices.Sorted(maps.Keys(a))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + a[k]
	}
	return strings.Join(parts, ",")
}

// sortedKey sorts the "k=v" parts of a rendered attribute set.
func sortedKey(k string) string {
	parts := strings.Split(k, ",")
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// counts returns the evaluation counts of md by rendered attributes.
func counts(t *testing.T, md pmetric.Metrics) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for k, p := range read(t, md, MetricEvaluations) {
		out[k] = p.count
	}
	return out
}

var t0 = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// TestAddCountsVerdictsAndScores: every result counts once under its
// evaluator, verdict, monitor, workflow, agent, service and environment;
// scores go into the histogram (without verdict); results without a score
// (errors) are counted but not observed; the values are cumulative across
// batches.
func TestAddCountsVerdictsAndScores(t *testing.T) {
	a := New(Options{Dimensions: allDims, MaxSeries: 100, Buckets: testBuckets})
	support := map[string]any{"traceloop.workflow.name": "support", "gen_ai.agent.name": "helper"}
	n := a.Add(traces(t,
		testSpan{service: "bot", env: "production", attrs: support, results: []result{safe, noPII}},
		testSpan{service: "bot", env: "production", attrs: support, results: []result{unsafe, safe}},
		testSpan{service: "rag", attrs: map[string]any{"traceloop.span.kind": "agent", "traceloop.entity.name": "researcher"}, results: []result{slow, own}},
	), t0)
	if n != 6 {
		t.Errorf("Add counted %d results, want 6", n)
	}
	n = a.Add(traces(t, testSpan{service: "bot", env: "production", attrs: support, results: []result{safe}}), t0.Add(time.Second))
	if n != 1 {
		t.Errorf("second Add counted %d results, want 1", n)
	}
	md := a.Metrics(t0.Add(2*time.Second), "scope", "1.0")

	const botTox = "deployment.environment.name=production,evalcol.monitor.id=safety,gen_ai.agent.name=helper,gen_ai.evaluation.name=toxicity-detector,service.name=bot,traceloop.workflow.name=support"
	wantCounts := map[string]int64{
		sortedKey(botTox + ",evalcol.evaluation.verdict=pass"): 3,
		sortedKey(botTox + ",evalcol.evaluation.verdict=fail"): 1,
		"deployment.environment.name=production,evalcol.evaluation.verdict=pass,evalcol.monitor.id=safety,gen_ai.agent.name=helper,gen_ai.evaluation.name=pii-detector,service.name=bot,traceloop.workflow.name=support": 1,
		// A Traceloop agent span's entity name is its agent; no
		// environment on the resource, no workflow on the span: no
		// attribute.
		"evalcol.evaluation.verdict=error,evalcol.monitor.id=rag,gen_ai.agent.name=researcher,gen_ai.evaluation.name=faithfulness,service.name=rag": 1,
		"evalcol.evaluation.verdict=none,evalcol.monitor.id=app,gen_ai.agent.name=researcher,gen_ai.evaluation.name=my-own-judge,service.name=rag":  1,
	}
	if got := counts(t, md); !maps.Equal(got, wantCounts) {
		t.Errorf("counts =\n%v\nwant\n%v", got, wantCounts)
	}

	hists := read(t, md, MetricScore)
	if len(hists) != 3 {
		t.Errorf("%d histogram series, want 3 (toxicity, pii, my-own-judge; the timeout has no score): %v", len(hists), slices.Collect(maps.Keys(hists)))
	}
	tox := hists[botTox]
	// Scores 1, 0, 1, 1 in buckets (-inf,0], (0,0.5], (0.5,1], (1,+inf).
	if tox.count != 4 || tox.sum != 3 || !slices.Equal(tox.buckets, []uint64{1, 0, 3, 0}) {
		t.Errorf("toxicity score histogram = count %d, sum %v, buckets %v; want 4, 3, [1 0 3 0]", tox.count, tox.sum, tox.buckets)
	}
	judge := hists["evalcol.monitor.id=app,gen_ai.agent.name=researcher,gen_ai.evaluation.name=my-own-judge,service.name=rag"]
	if judge.count != 1 || judge.sum != 0.35 || !slices.Equal(judge.buckets, []uint64{0, 1, 0, 0}) {
		t.Errorf("my-own-judge histogram = %+v, want one 0.35 in (0,0.5]", judge)
	}

	// Start times are the series' first evaluation; timestamps the flush.
	dp := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Sum().DataPoints().At(0)
	if dp.Timestamp().AsTime() != t0.Add(2*time.Second) || dp.StartTimestamp().AsTime().Before(t0) || dp.StartTimestamp().AsTime().After(t0.Add(time.Second)) {
		t.Errorf("data point times = start %s, time %s", dp.StartTimestamp().AsTime(), dp.Timestamp().AsTime())
	}
	if s := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Scope(); s.Name() != "scope" || s.Version() != "1.0" {
		t.Errorf("scope = %s %s, want scope 1.0", s.Name(), s.Version())
	}
}

// TestSpansWithoutEvaluationsIgnored: spans with no result events (or
// only other events) and result events without an evaluator name add no
// series; no series means no metrics at all.
func TestSpansWithoutEvaluationsIgnored(t *testing.T) {
	a := New(Options{Dimensions: allDims, MaxSeries: 10, Buckets: testBuckets})
	n := a.Add(traces(t,
		testSpan{service: "bot", attrs: map[string]any{"gen_ai.operation.name": "chat"}},
		testSpan{service: "bot", otherEvents: 2},
		testSpan{service: "bot", results: []result{{monitor: "nameless", score: 1.0}}},
	), t0)
	if n != 0 {
		t.Errorf("Add counted %d results, want 0", n)
	}
	if md := a.Metrics(t0, "scope", ""); md.DataPointCount() != 0 || md.ResourceMetrics().Len() != 0 {
		t.Errorf("metrics of spans without evaluations: %d points in %d resources, want none", md.DataPointCount(), md.ResourceMetrics().Len())
	}
	if s := a.Stats(); s.Dropped != 1 || s.Series != 0 {
		t.Errorf("stats = %+v, want 1 dropped nameless result and no series", s)
	}
}

// TestDimensions: only the configured dimensions become attributes, so
// results that differ elsewhere share a series; the evaluator is always
// there; without verdict the pass and fail results of an evaluator are
// one series.
func TestDimensions(t *testing.T) {
	batch := func() ptrace.Traces {
		return traces(t,
			testSpan{service: "a", env: "production", attrs: map[string]any{"traceloop.workflow.name": "w1"}, results: []result{safe, unsafe}},
			testSpan{service: "b", env: "staging", attrs: map[string]any{"traceloop.workflow.name": "w2"}, results: []result{safe, noPII}},
		)
	}
	tests := []struct {
		name string
		dims []Dimension
		want map[string]int64
	}{
		{"none", nil, map[string]int64{"gen_ai.evaluation.name=toxicity-detector": 3, "gen_ai.evaluation.name=pii-detector": 1}},
		{"verdict", []Dimension{DimVerdict}, map[string]int64{
			"evalcol.evaluation.verdict=pass,gen_ai.evaluation.name=toxicity-detector": 2,
			"evalcol.evaluation.verdict=fail,gen_ai.evaluation.name=toxicity-detector": 1,
			"evalcol.evaluation.verdict=pass,gen_ai.evaluation.name=pii-detector":      1,
		}},
		{"environment and workflow", []Dimension{DimEnvironment, DimWorkflow}, map[string]int64{
			"deployment.environment.name=production,gen_ai.evaluation.name=toxicity-detector,traceloop.workflow.name=w1": 2,
			"deployment.environment.name=staging,gen_ai.evaluation.name=toxicity-detector,traceloop.workflow.name=w2":    1,
			"deployment.environment.name=staging,gen_ai.evaluation.name=pii-detector,traceloop.workflow.name=w2":         1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(Options{Dimensions: tt.dims, MaxSeries: 100, Buckets: testBuckets})
			a.Add(batch(), t0)
			md := a.Metrics(t0, "scope", "")
			if got := counts(t, md); !maps.Equal(got, tt.want) {
				t.Errorf("counts =\n%v\nwant\n%v", got, tt.want)
			}
			for k := range read(t, md, MetricScore) {
				if strings.Contains(k, AttrVerdict) {
					t.Errorf("histogram series %s has a verdict", k)
				}
			}
		})
	}
}

// TestOverflow: once MaxSeries series exist, the results of every new
// combination count in one series whose only attribute is
// otel.metric.overflow=true (for the counter and the histogram); results
// of existing series still count in them; the number of series never
// grows past MaxSeries + 1 however many combinations arrive.
func TestOverflow(t *testing.T) {
	a := New(Options{Dimensions: []Dimension{DimWorkflow}, MaxSeries: 2, Buckets: testBuckets})
	workflow := func(i int) testSpan {
		return testSpan{attrs: map[string]any{"traceloop.workflow.name": fmt.Sprintf("w%d", i)}, results: []result{safe}}
	}
	for i := range 50 {
		a.Add(traces(t, workflow(i)), t0)
	}
	a.Add(traces(t, workflow(0), workflow(1)), t0) // existing series
	md := a.Metrics(t0, "scope", "")
	want := map[string]int64{
		"gen_ai.evaluation.name=toxicity-detector,traceloop.workflow.name=w0": 2,
		"gen_ai.evaluation.name=toxicity-detector,traceloop.workflow.name=w1": 2,
		"otel.metric.overflow=true": 48,
	}
	if got := counts(t, md); !maps.Equal(got, want) {
		t.Errorf("counts =\n%v\nwant\n%v", got, want)
	}
	hists := read(t, md, MetricScore)
	if len(hists) != 3 || hists["otel.metric.overflow=true"].count != 48 {
		t.Errorf("histogram series %v, want w0, w1 and an overflow series of 48 scores", hists)
	}
	if s := a.Stats(); s.Overflowed != 48 || s.Series != 2 {
		t.Errorf("stats = %+v, want 48 overflowed, 2 series", s)
	}
}

// TestExpiration: a series not updated within the expiration is dropped
// at the next Metrics, which frees a place under MaxSeries for a new
// combination; a series seen again later starts anew.
func TestExpiration(t *testing.T) {
	a := New(Options{Dimensions: []Dimension{DimWorkflow}, MaxSeries: 1, Buckets: testBuckets, Expiration: time.Minute})
	span := func(w string) ptrace.Traces {
		return traces(t, testSpan{attrs: map[string]any{"traceloop.workflow.name": w}, results: []result{safe}})
	}
	a.Add(span("old"), t0)
	a.Add(span("old"), t0.Add(30*time.Second))
	if got := counts(t, a.Metrics(t0.Add(80*time.Second), "s", "")); got["gen_ai.evaluation.name=toxicity-detector,traceloop.workflow.name=old"] != 2 {
		t.Errorf("counts at 80s = %v, want old = 2 (seen 50s ago)", got)
	}
	if got := counts(t, a.Metrics(t0.Add(91*time.Second), "s", "")); len(got) != 0 {
		t.Errorf("counts at 91s = %v, want none (old expired)", got)
	}
	a.Add(span("new"), t0.Add(92*time.Second))
	want := map[string]int64{"gen_ai.evaluation.name=toxicity-detector,traceloop.workflow.name=new": 1}
	if got := counts(t, a.Metrics(t0.Add(93*time.Second), "s", "")); !maps.Equal(got, want) {
		t.Errorf("counts = %v, want %v (the expired series made room)", got, want)
	}
}

// TestLongValuesTruncated: a dimension value longer than MaxValueBytes is
// cut at a UTF-8 boundary.
func TestLongValuesTruncated(t *testing.T) {
	a := New(Options{Dimensions: []Dimension{DimWorkflow}, MaxSeries: 10, Buckets: testBuckets})
	long := "x" + strings.Repeat("é", MaxValueBytes) // 1 + 2*256 bytes
	a.Add(traces(t, testSpan{attrs: map[string]any{"traceloop.workflow.name": long}, results: []result{safe}}), t0)
	for _, p := range read(t, a.Metrics(t0, "s", ""), MetricEvaluations) {
		w := p.attrs[AttrWorkflow]
		if len(w) > MaxValueBytes || !strings.HasPrefix(long, w) || len(w) < MaxValueBytes-1 {
			t.Errorf("workflow attribute of %d bytes, want the first %d bytes of the name at most, cut at a character", len(w), MaxValueBytes)
		}
	}
}

// TestParseDimension names the known dimensions in its error.
func TestParseDimension(t *testing.T) {
	for _, name := range DimensionNames() {
		d, err := ParseDimension(name)
		if err != nil || d.String() != name {
			t.Errorf("ParseDimension(%q) = %v, %v", name, d, err)
		}
	}
	_, err := ParseDimension("model")
	if err == nil || err.Error() != `unknown dimension "model" (known: verdict, monitor, workflow, agent, service, environment)` {
		t.Errorf("ParseDimension(model) error = %v", err)
	}
}

// BenchmarkAdd: a batch of 100 spans with two results each, the default
// dimensions, all series existing.
func BenchmarkAdd(b *testing.B) {
	t := &testing.T{}
	spans := make([]testSpan, 100)
	for i := range spans {
		spans[i] = testSpan{service: "bot", env: "production",
			attrs:   map[string]any{"traceloop.workflow.name": fmt.Sprintf("w%d", i%10), "gen_ai.operation.name": "chat"},
			results: []result{safe, noPII}}
	}
	td := traces(t, spans...)
	a := New(Options{Dimensions: allDims, MaxSeries: 1000, Buckets: testBuckets})
	b.ReportAllocs()
	for b.Loop() {
		a.Add(td, t0)
	}
}
