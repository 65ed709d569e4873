package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// Shape of the synthetic metric points: evaluator results as the
// exporter writes them (internal/spanconv): each evaluation of a span
// makes a score point and a pass/fail point, sharing one label map.
var pointEvaluators = []string{"toxicity", "pii", "faithfulness", "answer-relevancy", "prompt-injection"}

const (
	// pointWorkflows is the number of distinct labels.workflow_name values.
	pointWorkflows = 10
	// pointAgents is the number of distinct labels.agent_name values.
	pointAgents = 100
)

// pointBatch makes the points of n evaluations spread over [from, to).
func pointBatch(rng *rand.Rand, env string, n int, from, to int64) []warehouse.MetricPoint {
	out := make([]warehouse.MetricPoint, 0, 2*n)
	for i := range n {
		ev := pointEvaluators[rng.IntN(len(pointEvaluators))]
		ts := from + (to-from)*int64(i)/int64(n)
		trace, span := fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()), fmt.Sprintf("%016x", rng.Uint64())
		score := rng.Float64()
		pass := score < 0.8
		verdict := "pass"
		if !pass {
			verdict = "fail"
		}
		labels := map[string]string{
			"evaluator_name": ev, "metric_source": warehouse.SourceEvaluator, "monitor_id": "monitor-" + strconv.Itoa(rng.IntN(20)),
			"trace_id": trace, "span_id": span, "service_name": "service-" + strconv.Itoa(rng.IntN(synthspans.Services)),
			"environment": env, "workflow_name": "workflow-" + strconv.Itoa(rng.IntN(pointWorkflows)),
			"agent_name": "agent-" + strconv.Itoa(rng.IntN(pointAgents)), "entity_name": "entity-" + strconv.Itoa(rng.IntN(30)),
			"model": "gpt-4o", "vendor": "openai", "verdict": verdict,
		}
		attrs := map[string]string{"llm.request.model": "gpt-4o", "user.id": synthspans.UserID(rng.IntN(synthspans.Users))}
		base := warehouse.MetricPoint{Environment: env, OrganizationID: "org-1", Source: warehouse.SourceEvaluator,
			EventTime: ts, TraceID: trace, SpanID: span, Labels: labels, Attributes: attrs}
		p := base
		p.MetricName, p.NumericValue = ev+".score", &score
		q := base
		q.MetricName, q.BoolValue = ev+".pass", &pass
		out = append(out, p, q)
	}
	return out
}

// fillPoints writes about n points over [start, end) in batches of about
// batch points and prints the ingest speed.
func fillPoints(ctx context.Context, st *sqlite.Store, env string, n, batch int, start, end int64) error {
	rng := rand.New(rand.NewPCG(11, 12))
	var writeTime, writeCPU time.Duration
	evals := n / 2
	per := max(batch/2, 1)
	for i := 0; i < evals; i += per {
		k := min(per, evals-i)
		from := start + (end-start)*int64(i)/int64(evals)
		to := start + (end-start)*int64(i+k)/int64(evals)
		pts := pointBatch(rng, env, k, from, to)
		t0, c0 := time.Now(), synthspans.CPUTime()
		if err := st.WriteMetricPoints(ctx, pts); err != nil {
			return err
		}
		writeTime += time.Since(t0)
		writeCPU += synthspans.CPUTime() - c0
		if (i/per)%200 == 0 {
			log.Printf("written %d points", 2*(i+k))
		}
	}
	fmt.Printf("ingest: %d points in %s = %.0f points/s (batches of %d); CPU %s = %.0f points per CPU-second\n",
		2*evals, writeTime.Round(time.Millisecond), float64(2*evals)/writeTime.Seconds(), 2*per,
		writeCPU.Round(time.Millisecond), float64(2*evals)/writeCPU.Seconds())
	return nil
}

// metricQuery is a named metric query shape.
type metricQuery struct {
	Name string
	Make func() warehouse.MetricQuery
}

// metricQueries are the metric query shapes: every sort key over an hour,
// a day and a week, the metric name and each kind of filter (label,
// attribute, column), selective and not, alone and with a numeric sort.
func metricQueries(rng *rand.Rand, start, end int64) []metricQuery {
	day := func() (int64, int64) { return synthspans.Window(rng, start, end, synthspans.Day) }
	name := func() string { return pointEvaluators[rng.IntN(len(pointEvaluators))] + ".score" }
	label := func(key, value string) []warehouse.Filter {
		return []warehouse.Filter{{Field: warehouse.PrefixLabel + key, Operator: warehouse.OpEquals, Value: value}}
	}
	out := []metricQuery{
		{"(m-a) 1h range, sort event_time DESC", func() warehouse.MetricQuery {
			from, to := synthspans.Window(rng, start, end, synthspans.Hour)
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true}
		}},
		{"(m-b) 7d range, sort event_time DESC, no filter", func() warehouse.MetricQuery {
			return warehouse.MetricQuery{FromMs: start, Desc: true}
		}},
		{"(m-c) 1d range, metric_name (10%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, MetricName: name(), Desc: true}
		}},
		{"(m-d) 7d range, metric_name (10%), sort event_time DESC", func() warehouse.MetricQuery {
			return warehouse.MetricQuery{FromMs: start, MetricName: name(), Desc: true}
		}},
		{"(m-e) 1d range, labels.workflow_name (10%), sort numeric_value DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, SortBy: warehouse.MetricSortNumericValue, Desc: true,
				Filters: label("workflow_name", "workflow-"+strconv.Itoa(rng.IntN(pointWorkflows)))}
		}},
		{"(m-f) 7d range, labels.workflow_name (10%), sort numeric_value DESC", func() warehouse.MetricQuery {
			return warehouse.MetricQuery{FromMs: start, SortBy: warehouse.MetricSortNumericValue, Desc: true,
				Filters: label("workflow_name", "workflow-"+strconv.Itoa(rng.IntN(pointWorkflows)))}
		}},
		{"(m-g) 1d range, labels.agent_name (1%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true,
				Filters: label("agent_name", "agent-"+strconv.Itoa(rng.IntN(pointAgents)))}
		}},
		{"(m-h) 7d range, labels.agent_name (1%) and metric_name, sort numeric_value DESC", func() warehouse.MetricQuery {
			return warehouse.MetricQuery{FromMs: start, MetricName: name(), SortBy: warehouse.MetricSortNumericValue, Desc: true,
				Filters: label("agent_name", "agent-"+strconv.Itoa(rng.IntN(pointAgents)))}
		}},
		{"(m-i) 1d range, labels.verdict fail (10%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true, Filters: label("verdict", "fail")}
		}},
		{"(m-j) 1d range, attributes.user.id (1%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true, Filters: []warehouse.Filter{{
				Field: warehouse.PrefixAttribute + "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(rng.IntN(synthspans.Users))}}}
		}},
		{"(m-k) 1d range, numeric_value greater_than 0.99, sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true, Filters: []warehouse.Filter{{
				Field: "numeric_value", Operator: warehouse.OpGreaterThan, Value: "0.99", ValueType: warehouse.TypeNumber}}}
		}},
		{"(m-l) 1d range, labels.agent_name starts_with (11%), sort numeric_value DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, SortBy: warehouse.MetricSortNumericValue, Desc: true,
				Filters: []warehouse.Filter{{Field: warehouse.PrefixLabel + "agent_name", Operator: warehouse.OpStartsWith,
					Value: "agent-" + strconv.Itoa(1+rng.IntN(9))}}}
		}},
		{"(m-m) 1d range, labels.workflow_name contains (10%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true, Filters: []warehouse.Filter{{
				Field: warehouse.PrefixLabel + "workflow_name", Operator: warehouse.OpContains, Value: "w-" + strconv.Itoa(rng.IntN(pointWorkflows))}}}
		}},
		{"(m-n) 1d range, attributes.user.id starts_with (10%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, Desc: true, Filters: []warehouse.Filter{{
				Field: warehouse.PrefixAttribute + "user.id", Operator: warehouse.OpStartsWith, Value: "user-0" + strconv.Itoa(rng.IntN(10))}}}
		}},
		{"(m-o) 1d range, metric_source and labels.workflow_name (10%), sort event_time DESC", func() warehouse.MetricQuery {
			from, to := day()
			return warehouse.MetricQuery{FromMs: from, ToMs: to, MetricSource: warehouse.SourceEvaluator, Desc: true,
				Filters: label("workflow_name", "workflow-"+strconv.Itoa(rng.IntN(pointWorkflows)))}
		}},
		{"(m-p) 7d range, metric_source and labels.workflow_name (10%), sort event_time DESC", func() warehouse.MetricQuery {
			return warehouse.MetricQuery{FromMs: start, MetricSource: warehouse.SourceEvaluator, Desc: true,
				Filters: label("workflow_name", "workflow-"+strconv.Itoa(rng.IntN(pointWorkflows)))}
		}},
		{"(m-q) 7d range, metric_source and labels.verdict fail (10%), sort numeric_value DESC", func() warehouse.MetricQuery {
			return warehouse.MetricQuery{FromMs: start, MetricSource: warehouse.SourceEvaluator, SortBy: warehouse.MetricSortNumericValue,
				Desc: true, Filters: label("verdict", "fail")}
		}},
	}
	for _, key := range []string{warehouse.MetricSortNumericValue, warehouse.MetricSortMetricName} {
		out = append(out,
			metricQuery{fmt.Sprintf("(m) sort %s DESC, 1h range", key), func() warehouse.MetricQuery {
				from, to := synthspans.Window(rng, start, end, synthspans.Hour)
				return warehouse.MetricQuery{FromMs: from, ToMs: to, SortBy: key, Desc: true}
			}},
			metricQuery{fmt.Sprintf("(m) sort %s, 1d range", key), func() warehouse.MetricQuery {
				from, to := day()
				return warehouse.MetricQuery{FromMs: from, ToMs: to, SortBy: key}
			}},
			metricQuery{fmt.Sprintf("(m) sort %s DESC, 7d range", key), func() warehouse.MetricQuery {
				return warehouse.MetricQuery{FromMs: start, SortBy: key, Desc: true}
			}})
	}
	return out
}

// runMetricQueries measures each metric shape whose name holds only: the
// first page of 100 points with total_results, and the page at offset
// 1 000 (its cursor), runs times each.
func runMetricQueries(ctx context.Context, st *sqlite.Store, env string, runs int, only string, start, end int64) error {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, qd := range metricQueries(rng, start, end) {
		if !strings.Contains(qd.Name, only) {
			continue
		}
		var first, deep []time.Duration
		var matched, inRange int64
		for range runs {
			q := qd.Make()
			q.Environments, q.Limit = []string{env}, 100
			t0 := time.Now()
			page, err := st.QueryMetrics(ctx, q)
			if err != nil {
				return fmt.Errorf("%s: %w", qd.Name, err)
			}
			first = append(first, time.Since(t0))
			if page.NextCursor != "" && page.TotalResults > 1100 {
				// The eleventh page: cursors carry an offset.
				next, err := strconv.ParseInt(page.NextCursor, 10, 64)
				if err != nil {
					return err
				}
				snapshot, _, _, err := warehouse.DecodeMetricCursor(next)
				if err != nil {
					return err
				}
				q.Cursor, err = warehouse.EncodeMetricCursor(snapshot, 1000)
				if err != nil {
					return err
				}
				t0 := time.Now()
				if _, err := st.QueryMetrics(ctx, q); err != nil {
					return fmt.Errorf("%s, offset 1000: %w", qd.Name, err)
				}
				deep = append(deep, time.Since(t0))
			}
			all, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: q.Environments, FromMs: q.FromMs, ToMs: q.ToMs, Limit: 1})
			if err != nil {
				return err
			}
			matched += page.TotalResults
			inRange += all.TotalResults
		}
		slices.Sort(first)
		slices.Sort(deep)
		deepP50 := "      –"
		if len(deep) > 0 {
			deepP50 = fmt.Sprintf("%7.1f", p50(deep))
		}
		fmt.Printf("%-72s p50 %7.1f ms  p99 %7.1f ms  offset 1000 p50 %s ms  %d of %d points in range per query\n",
			qd.Name, p50(first), p99(first), deepP50,
			matched/int64(runs), inRange/int64(runs))
	}
	return nil
}
