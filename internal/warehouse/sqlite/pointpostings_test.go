package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// inReadTx runs f in a read transaction of st.
func inReadTx[T any](t *testing.T, st *Store, f func(tx *sql.Tx) (T, error)) T {
	t.Helper()
	tx, err := st.reader.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	v, err := f(tx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// usesLabelPostings reports whether q's pages read the points a label's
// postings name (planPoints: index.PointCandidates).
func usesLabelPostings(t *testing.T, st *Store, q warehouse.MetricQuery) bool {
	t.Helper()
	return inReadTx(t, st, func(tx *sql.Tx) (bool, error) {
		plan, err := planPoints(context.Background(), tx, q, int64(q.Limit), math.MaxInt64)
		return plan.Access == index.PointCandidates, err
	})
}

// resolvesPointFilters reports whether q has a filter on a label or a
// point attribute that point_counts' values resolve into an in-list
// (resolvePointFilters).
func resolvesPointFilters(t *testing.T, st *Store, q warehouse.MetricQuery) bool {
	t.Helper()
	r := inReadTx(t, st, func(tx *sql.Tx) (warehouse.MetricQuery, error) {
		return resolvePointFilters(context.Background(), tx, q)
	})
	return !reflect.DeepEqual(r.Filters, q.Filters)
}

// TestLabelFiltersResolved: filters on labels and point attributes other
// than text equality are resolved into in-lists of the values
// point_counts records (a label of one value per hour shows an hour left
// out at either end of the range), except on a key point_counts leaves
// out, and answer what reading every point answers.
func TestLabelFiltersResolved(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	ctx := context.Background()
	st := openWith(t, Options{countedValues: 30})
	start := int64(1_790_000_000_000)
	rng := rand.New(rand.NewPCG(9, 10))
	for k := range 6 {
		if err := st.WriteMetricPoints(ctx, testPoints(rng, "a", 60, start+int64(k)*index.HourMs, start+int64(k+1)*index.HourMs)); err != nil {
			t.Fatal(err)
		}
	}
	label := func(key string, op warehouse.Operator, value string, typ warehouse.ValueType) warehouse.Filter {
		return warehouse.Filter{Field: warehouse.PrefixLabel + key, Operator: op, Value: value, ValueType: typ}
	}
	attr := func(key string, op warehouse.Operator, value string) warehouse.Filter {
		return warehouse.Filter{Field: warehouse.PrefixAttribute + key, Operator: op, Value: value}
	}
	for _, c := range []struct {
		f        warehouse.Filter
		resolved bool
	}{
		{label("hour_tag", warehouse.OpStartsWith, "h", ""), true},
		{label("hour_tag", warehouse.OpContains, "1", ""), true},
		{label("band", warehouse.OpGreaterThan, "6", warehouse.TypeNumber), true},
		{label("band", warehouse.OpEquals, "5.0", warehouse.TypeNumber), true},
		{label("agent_name", warehouse.OpContains, "t-1", ""), true},
		{label("trace_id", warehouse.OpContains, "a1", ""), false},      // uncounted: an id
		{label("workflow_name", warehouse.OpEquals, "wf-1", ""), false}, // an in-list already
		{attr("user.id", warehouse.OpStartsWith, "u"), true},
		{attr("user.id", warehouse.OpContains, "1"), true},
		{attr("request.id", warehouse.OpContains, "a1"), false}, // uncounted: an id
	} {
		for _, r := range []struct{ from, to int64 }{
			{0, 0}, {start + index.HourMs/2, start + 3*index.HourMs + index.HourMs/6}, {start + 2*index.HourMs, 0}, {start + 5*index.HourMs + 1, start + 6*index.HourMs - 1},
			{start + 10*index.HourMs, 0}, // no point: nothing passes
		} {
			q := warehouse.MetricQuery{Environments: []string{"a"}, FromMs: r.from, ToMs: r.to, Limit: 9, Desc: true,
				SortBy: warehouse.MetricSortNumericValue, Filters: []warehouse.Filter{c.f}}
			if got := resolvesPointFilters(t, st, q); got != c.resolved {
				t.Errorf("%s %s %q over [%d, %d]: resolved %v, want %v", c.f.Field, c.f.Operator, c.f.Value, r.from, r.to, got, c.resolved)
			}
			want := metricPages(t, st, q, true)
			got := metricPages(t, st, q, false)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s %q over [%d, %d]: access paths %d pages, first total %d; every point %d pages, first total %d",
					c.f.Field, c.f.Operator, c.f.Value, r.from, r.to, len(got), got[0].TotalResults, len(want), want[0].TotalResults)
			}
		}
	}
}

// TestLabelPostingsLeaveOutUncountedKeys: once point_counts leaves a
// label key out (more values in an hour than it counts: an id), writes no
// longer list its values, and filters on it read the points.
func TestLabelPostingsLeaveOutUncountedKeys(t *testing.T) {
	ctx := context.Background()
	st := openWith(t, Options{countedValues: 5})
	start := int64(1_790_000_000_000)
	write := func(batch, values int) {
		var pts []warehouse.MetricPoint
		for i := range 40 {
			v := float64(i)
			pts = append(pts, warehouse.MetricPoint{Environment: "a", MetricName: "m", EventTime: start + int64(batch*40+i)*1000,
				NumericValue: &v, Labels: map[string]string{"tag": fmt.Sprint("t", i%values), "kind": "k"}})
		}
		if err := st.WriteMetricPoints(ctx, pts); err != nil {
			t.Fatal(err)
		}
	}
	lists := func() (n int) {
		t.Helper()
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM point_postings`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	write(0, 3) // counted: 3 tags and a kind
	write(1, 9) // goes uncounted in this write
	before := lists()
	write(2, 9) // not listed any more: the kind alone
	if got := lists() - before; got != 1 {
		t.Errorf("the write after the key went uncounted added %d lists, want 1 (the kind's)", got)
	}
	for _, f := range []warehouse.Filter{
		{Field: "labels.tag", Operator: warehouse.OpEquals, Value: "t7"},
		{Field: "labels.tag", Operator: warehouse.OpIn, Values: []string{"t1", "t8"}},
		{Field: "labels.kind", Operator: warehouse.OpEquals, Value: "k"},
	} {
		q := warehouse.MetricQuery{Environments: []string{"a"}, Limit: 7, MetricName: "m", Filters: []warehouse.Filter{f}}
		if got, want := usesLabelPostings(t, st, q), f.Field == "labels.kind"; got != want {
			t.Errorf("%s: reads the label postings %v, want %v", f.Field, got, want)
		}
		want := metricPages(t, st, q, true)
		got := metricPages(t, st, q, false)
		if !reflect.DeepEqual(got, want) || want[0].TotalResults == 0 {
			t.Fatalf("%s %v: access paths %d pages, first total %d; every point %d pages, first total %d",
				f.Field, f.Values, len(got), got[0].TotalResults, len(want), want[0].TotalResults)
		}
	}
}
