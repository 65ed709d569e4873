package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// aggregateFixture: evaluation points of two evaluators over three 10 ms
// buckets in "agg", with verdict and workflow labels (one point without a
// workflow), plus one point in "other".
func aggregateFixture() []warehouse.MetricPoint {
	var out []warehouse.MetricPoint
	add := func(name string, offset int64, workflow, verdict string, set func(*warehouse.MetricPoint)) {
		p := point("agg", name, offset)
		p.SpanID = fmt.Sprintf("s%d-%s", offset, name)
		p.Labels = map[string]string{"evaluator_name": name[:3], "verdict": verdict}
		if workflow != "" {
			p.Labels["workflow"] = workflow
		}
		set(&p)
		out = append(out, p)
	}
	num := func(v float64) func(*warehouse.MetricPoint) {
		return func(p *warehouse.MetricPoint) { p.NumericValue = ptr(v) }
	}
	boolean := func(v bool) func(*warehouse.MetricPoint) {
		return func(p *warehouse.MetricPoint) { p.BoolValue = ptr(v) }
	}
	// Bucket 0 (0..9 ms).
	add("sim.score", 1, "wf-a", "pass", num(0.9))
	add("sim.score", 2, "wf-a", "fail", num(0.1))
	add("pii.has_pii", 3, "wf-a", "fail", boolean(true))
	// Bucket 1 (10..19 ms).
	add("sim.score", 11, "wf-b", "pass", num(1.0))
	add("pii.has_pii", 12, "wf-b", "pass", boolean(false))
	add("pii.has_pii", 13, "", "pass", boolean(false))
	// Bucket 2 (20..29 ms).
	add("sim.score", 25, "wf-a", "fail", num(-0.5))
	add("sim.score", 29, "wf-a", "pass", num(0.5))
	other := point("other", "sim.score", 5)
	other.NumericValue, other.Labels = ptr(0.7), map[string]string{"evaluator_name": "sim", "verdict": "pass", "workflow": "wf-a"}
	return append(out, other)
}

func testAggregates(t *testing.T, open Opener) {
	st := openStore(t, open)
	agg := st
	pts := aggregateFixture()
	writePoints(t, st, pts...)
	writePoints(t, st, pts[0]) // a retried write counts once
	all := warehouse.MetricAggregateQuery{Environments: []string{"agg"}, FromMs: base, ToMs: base + 29}
	run := func(t *testing.T, q warehouse.MetricAggregateQuery) []warehouse.MetricAggregateRow {
		t.Helper()
		res, err := agg.AggregateMetrics(context.Background(), q)
		if err != nil {
			t.Fatalf("AggregateMetrics(%+v): %v", q, err)
		}
		for i := range res.Rows {
			res.Rows[i].Sum = math.Round(res.Rows[i].Sum*1000) / 1000 // float sums in any order
		}
		return res.Rows
	}
	type R = warehouse.MetricAggregateRow
	t.Run("one bucket by verdict", func(t *testing.T) {
		q := all
		q.GroupBy = []string{"evaluator_name", "verdict"}
		want := []R{
			{Bucket: q.FromMs, Labels: []string{"pii", "fail"}, Count: 1, True: 1},
			{Bucket: q.FromMs, Labels: []string{"pii", "pass"}, Count: 2, False: 2},
			{Bucket: q.FromMs, Labels: []string{"sim", "fail"}, Count: 2, Numeric: 2, Sum: -0.4, Min: -0.5, Max: 0.1},
			{Bucket: q.FromMs, Labels: []string{"sim", "pass"}, Count: 3, Numeric: 3, Sum: 2.4, Min: 0.5, Max: 1},
		}
		if got := run(t, q); !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	})
	t.Run("buckets by workflow, missing label", func(t *testing.T) {
		q := all
		q.BucketMs, q.GroupBy, q.MetricName = 10, []string{"workflow"}, "pii.has_pii"
		want := []R{
			{Bucket: q.FromMs, Labels: []string{"wf-a"}, Count: 1, True: 1},
			{Bucket: q.FromMs + 10, Labels: []string{""}, Count: 1, False: 1},
			{Bucket: q.FromMs + 10, Labels: []string{"wf-b"}, Count: 1, False: 1},
		}
		if got := run(t, q); !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	})
	t.Run("histogram", func(t *testing.T) {
		q := all
		q.MetricName, q.Bins, q.Lo, q.Hi = "sim.score", 4, 0, 1
		// 0.9 → bin 3, 0.1 → 0, 1.0 (the top) → 3, -0.5 (below) → 0, 0.5 → 2.
		want := []R{{Bucket: q.FromMs, Labels: []string{}, Count: 5, Numeric: 5, Sum: 2, Min: -0.5, Max: 1, Bins: []int64{2, 0, 1, 2}}}
		if got := run(t, q); !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
		q.Lo, q.Hi = 0.5, 0.5 // a point range: every value in bin 0
		if got := run(t, q); len(got) != 1 || !reflect.DeepEqual(got[0].Bins, []int64{5, 0, 0, 0}) {
			t.Errorf("point range: %+v", got)
		}
	})
	t.Run("filters and time range", func(t *testing.T) {
		q := all
		q.FromMs, q.BucketMs = base+10, 10
		q.Filters = []warehouse.Filter{{Field: "metric_name", Operator: warehouse.OpIn, Values: []string{"sim.score", "pii.has_pii"}},
			{Field: "labels.verdict", Operator: warehouse.OpEquals, Value: "pass"}}
		q.GroupBy = []string{"evaluator_name"}
		want := []R{
			{Bucket: base + 10, Labels: []string{"pii"}, Count: 2, False: 2},
			{Bucket: base + 10, Labels: []string{"sim"}, Count: 1, Numeric: 1, Sum: 1, Min: 1, Max: 1},
			{Bucket: base + 20, Labels: []string{"sim"}, Count: 1, Numeric: 1, Sum: 0.5, Min: 0.5, Max: 0.5},
		}
		if got := run(t, q); !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	})
	t.Run("tenancy", func(t *testing.T) {
		q := all
		q.Environments = []string{"other"}
		if got := run(t, q); len(got) != 1 || got[0].Count != 1 {
			t.Errorf("other: %+v", got)
		}
		q.Environments = nil
		if got := run(t, q); len(got) != 0 {
			t.Errorf("no environment: %+v", got)
		}
	})
	t.Run("bad queries", func(t *testing.T) {
		for _, q := range []warehouse.MetricAggregateQuery{
			{Environments: []string{"agg"}, FromMs: base},
			{Environments: []string{"agg"}, FromMs: base, ToMs: base + 10_000_000, BucketMs: 1},
			{Environments: []string{"agg"}, FromMs: base, ToMs: base + 1, Bins: 3, Lo: 1, Hi: 0},
			{Environments: []string{"agg"}, FromMs: base, ToMs: base + 1, GroupBy: []string{"a", "b", "c", "d", "e"}},
			{Environments: []string{"agg"}, FromMs: base, ToMs: base + 1, Filters: []warehouse.Filter{{Field: "nope", Operator: warehouse.OpEquals, Value: "x"}}},
		} {
			_, err := agg.AggregateMetrics(context.Background(), q)
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) {
				t.Errorf("%+v: %v, want a QueryError", q, err)
			}
		}
	})
}
