package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// testPoints makes n metric points of env over [from, to): two metric
// names of two sources, scores with ties and points without a value,
// labels of a few values, an id label and a label some points lack.
func testPoints(rng *rand.Rand, env string, n int, from, to int64) []warehouse.MetricPoint {
	pts := make([]warehouse.MetricPoint, 0, n)
	for i := range n {
		labels := map[string]string{
			"workflow_name": "wf-" + strconv.Itoa(rng.IntN(4)),
			"agent_name":    "agent-" + strconv.Itoa(rng.IntN(12)),
			"trace_id":      fmt.Sprintf("%016x", rng.Uint64()),
		}
		if i%3 == 0 {
			labels["verdict"] = []string{"pass", "fail"}[rng.IntN(2)]
		}
		if i%17 == 0 { // as the labels JSON spells them: U+FFFD
			labels["odd"] = "bad\xffvalue"
		}
		if i%4 != 0 { // a number as text, which some points lack
			labels["band"] = strconv.Itoa(i % 10)
		}
		p := warehouse.MetricPoint{Environment: env, OrganizationID: "org", MetricName: []string{"tox.score", "pii.pass"}[i%2],
			Source:    []string{warehouse.SourceEvaluator, warehouse.SourceOTLP}[rng.IntN(2)],
			EventTime: from + rng.Int64N(to-from), TraceID: labels["trace_id"], SpanID: strconv.Itoa(i),
			Labels: labels, Attributes: map[string]string{"user.id": "u" + strconv.Itoa(rng.IntN(3)),
				"request.id": fmt.Sprintf("%016x", rng.Uint64())}} // an id: uncounted
		if i%5 == 0 { // an attribute some points lack
			delete(p.Attributes, "user.id")
		}
		if i%3 != 0 && i > 0 { // one map shared by the points of an evaluated span (of either hour)
			p.Attributes = pts[i-1].Attributes
		}
		labels["hour_tag"] = "h" + strconv.FormatInt(index.HourOf(p.EventTime)%100, 10) // a value of one hour
		if i%7 == 0 {                                                                   // names of some hours only
			p.MetricName = "hour" + strconv.FormatInt(index.HourOf(p.EventTime)%3, 10) + ".score"
		}
		switch rng.IntN(4) {
		case 0: // no value: NULL numeric_value
			b := rng.IntN(2) == 0
			p.BoolValue = &b
		case 1: // ties
			v := float64(rng.IntN(3))
			p.NumericValue = &v
		default:
			v := rng.Float64()
			p.NumericValue = &v
		}
		pts = append(pts, p)
	}
	return pts
}

// randomMetricQuery draws a metric query over [start, end): environments,
// ranges (whole hours, part hours, open), name, source, a label filter of
// every operator or filters the counts cannot answer, every sort.
func randomMetricQuery(rng *rand.Rand, start, end int64) warehouse.MetricQuery {
	q := warehouse.MetricQuery{Environments: [][]string{{"a"}, {"b"}, {"a", "b"}}[rng.IntN(3)],
		Limit: 3 + rng.IntN(20), Desc: rng.IntN(2) == 0,
		SortBy: []string{warehouse.MetricSortEventTime, warehouse.MetricSortMetricName, warehouse.MetricSortNumericValue}[rng.IntN(3)]}
	q.FromMs = start + rng.Int64N(end-start)
	if rng.IntN(3) == 0 {
		q.FromMs -= q.FromMs % index.HourMs
	}
	if rng.IntN(4) > 0 {
		q.ToMs = q.FromMs + rng.Int64N(7*index.HourMs)
		if rng.IntN(3) == 0 {
			q.ToMs -= q.ToMs%index.HourMs + 1
		}
		q.ToMs = max(q.ToMs, q.FromMs)
	}
	if rng.IntN(3) == 0 {
		q.FromMs = start - index.HourMs
	}
	if rng.IntN(3) == 0 {
		q.MetricName = []string{"tox.score", "pii.pass"}[rng.IntN(2)]
	}
	if rng.IntN(4) == 0 {
		q.MetricSource = []string{warehouse.SourceEvaluator, warehouse.SourceOTLP}[rng.IntN(2)]
	}
	key := []string{"workflow_name", "agent_name", "verdict", "trace_id", "odd", "missing"}[rng.IntN(6)]
	value := map[string]string{"workflow_name": "wf-1", "agent_name": "agent-3", "verdict": "fail",
		"trace_id": "0000", "odd": "bad\uFFFDvalue", "missing": "x"}[key]
	label := warehouse.PrefixLabel + key
	switch rng.IntN(16) {
	case 0:
	case 1:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpEquals, Value: value}}
	case 2:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpNotEquals, Value: value}}
	case 3:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpIn, Values: []string{value, "wf-2", "agent-5", value}}}
	case 4:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpNotIn, Values: []string{value, "wf-3"}}}
	case 5:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpExists}}
	case 6:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpNotExists}}
	case 7: // not for the counts: numeric, two filters, attributes
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpEquals, Value: value},
			{Field: "numeric_value", Operator: warehouse.OpGreaterThan, Value: "0.5", ValueType: warehouse.TypeNumber}}
		q.Or = rng.IntN(2) == 0
	case 8, 9: // attributes: counted since migration 21, the id not
		attr := warehouse.PrefixAttribute + []string{"user.id", "user.id", "request.id"}[rng.IntN(3)]
		q.Filters = []warehouse.Filter{[]warehouse.Filter{
			{Field: attr, Operator: warehouse.OpEquals, Value: "u1"},
			{Field: attr, Operator: warehouse.OpNotEquals, Value: "u1"},
			{Field: attr, Operator: warehouse.OpIn, Values: []string{"u0", "u2", "x"}},
			{Field: attr, Operator: warehouse.OpNotIn, Values: []string{"u0", "u2"}},
			{Field: attr, Operator: warehouse.OpExists},
			{Field: attr, Operator: warehouse.OpNotExists},
		}[rng.IntN(6)]}
	case 10, 11: // one comparison of the value: counted on the value index
		op := []warehouse.Operator{warehouse.OpEquals, warehouse.OpGreaterThan, warehouse.OpGreaterThanOrEqual,
			warehouse.OpLessThan, warehouse.OpLessThanOrEqual}[rng.IntN(5)]
		q.Filters = []warehouse.Filter{{Field: "numeric_value", Operator: op, Value: []string{"0", "1", "0.5", "2"}[rng.IntN(4)]}}
	case 13, 14: // resolved against point_counts' values of the label
		band := warehouse.PrefixLabel + "band"
		q.Filters = []warehouse.Filter{[]warehouse.Filter{
			{Field: band, Operator: warehouse.OpGreaterThan, Value: "6", ValueType: warehouse.TypeNumber},
			{Field: band, Operator: warehouse.OpLessThanOrEqual, Value: "3", ValueType: warehouse.TypeNumber},
			{Field: band, Operator: warehouse.OpEquals, Value: "5.0", ValueType: warehouse.TypeNumber},
			{Field: band, Operator: warehouse.OpIn, Values: []string{"2", "7"}, ValueType: warehouse.TypeNumber},
			{Field: band, Operator: warehouse.OpLessThan, Value: "-1", ValueType: warehouse.TypeNumber}, // none
			{Field: band, Operator: warehouse.OpGreaterThan, Value: "5"},                                // as text
			{Field: label, Operator: warehouse.OpContains, Value: "t-1"},
			{Field: label, Operator: warehouse.OpContains, Value: "a1"}, // trace ids too, uncounted
			{Field: warehouse.PrefixLabel + "hour_tag", Operator: warehouse.OpStartsWith, Value: "h"},
			{Field: warehouse.PrefixLabel + "hour_tag", Operator: warehouse.OpContains, Value: "1"},
		}[rng.IntN(10)]}
		if rng.IntN(2) == 0 {
			q.Filters = append(q.Filters, warehouse.Filter{Field: warehouse.PrefixLabel + "workflow_name", Operator: warehouse.OpNotEquals, Value: "wf-0"})
			q.Or = rng.IntN(2) == 0
		}
	default:
		q.Filters = []warehouse.Filter{{Field: label, Operator: warehouse.OpStartsWith, Value: "wf"}}
	}
	return q
}

// metricPages reads every page of q (up to 40), with the access paths of
// pointplan.go or without them.
func metricPages(t *testing.T, st *Store, q warehouse.MetricQuery, plain bool) []warehouse.MetricPage {
	t.Helper()
	st.plainPointReads = plain
	defer func() { st.plainPointReads = false }()
	var pages []warehouse.MetricPage
	for range 40 {
		page, err := st.QueryMetrics(context.Background(), q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		pages = append(pages, page)
		if page.NextCursor == "" {
			break
		}
		if q.Cursor, err = strconv.ParseInt(page.NextCursor, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// TestPointAccessesAgree checks that the metric access paths (totals from
// point_counts, pages merged by value, the name index) answer what
// reading every point answers, page by page, for random queries.
func TestPointAccessesAgree(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	ctx := context.Background()
	// A key with more than 30 combinations in an hour goes uncounted:
	// trace_id at once, agent_name by (value, name, source) later. Label
	// postings runs merge by three.
	st := openWith(t, Options{countedValues: 30, runFanout: 3})
	start := int64(1_790_000_000_000)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, env := range []string{"a", "b"} {
		for k := range 6 {
			pts := testPoints(rng, env, 50, start+int64(k)*index.HourMs, start+int64(k+1)*index.HourMs)
			if err := st.WriteMetricPoints(ctx, pts); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The runs merged, then a run of late points (an earlier hour) on top.
	if _, err := st.mergeRuns(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteMetricPoints(ctx, testPoints(rng, "a", 50, start+2*index.HourMs, start+3*index.HourMs)); err != nil {
		t.Fatal(err)
	}
	var levels int
	if err := st.reader.QueryRowContext(ctx, `SELECT count(DISTINCT level) FROM point_posting_runs`).Scan(&levels); err != nil || levels < 2 {
		t.Fatalf("label posting runs of %d levels (%v), want two", levels, err)
	}
	uncounted, err := uncountedKeys(ctx, st.reader, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !uncounted["trace_id"] || uncounted["workflow_name"] || uncounted["verdict"] {
		t.Fatalf("uncounted keys of a: %v; want trace_id, not workflow_name nor verdict", uncounted)
	}
	queries := 100
	if raceEnabled {
		queries = 25
	}
	checked, viaPostings, resolved := 0, 0, 0
	for i := range queries {
		q := randomMetricQuery(rng, start, start+6*index.HourMs)
		if usesLabelPostings(t, st, q) {
			viaPostings++
		}
		if resolvesPointFilters(t, st, q) {
			resolved++
		}
		want := metricPages(t, st, q, true)
		got := metricPages(t, st, q, false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("query %d %+v:\naccess paths: %d pages, first total %d\nevery point:  %d pages, first total %d",
				i, q, len(got), got[0].TotalResults, len(want), want[0].TotalResults)
		}
		if want[0].TotalResults > int64(q.Limit) {
			checked++
		}
	}
	if checked < queries*2/5 {
		t.Fatalf("only %d of %d queries had more than one page", checked, queries)
	}
	if viaPostings < queries/10 || resolved < queries/20 {
		t.Fatalf("of %d queries, %d read the label postings, %d resolved a label filter", queries, viaPostings, resolved)
	}
	// Pages sorted by name without filters or source: the name index.
	for i := range queries / 3 {
		q := randomMetricQuery(rng, start, start+6*index.HourMs)
		q.SortBy, q.Filters, q.MetricSource = warehouse.MetricSortMetricName, nil, ""
		want := metricPages(t, st, q, true)
		if got := metricPages(t, st, q, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("query by name %d %+v:\naccess paths: %d pages, first total %d\nevery point:  %d pages, first total %d",
				i, q, len(got), got[0].TotalResults, len(want), want[0].TotalResults)
		}
	}
}

// TestPointCountsWithinSnapshot checks that later pages report the first
// page's total while points keep arriving in the range, and that pruned
// points leave the counts.
func TestPointCountsWithinSnapshot(t *testing.T) {
	ctx := context.Background()
	st := openRetention(t, warehouse.Retention{MetricPoints: 24 * time.Hour, Interval: time.Hour, Grace: -1})
	now := time.Now().UnixMilli()
	start := now - now%index.HourMs - 30*index.HourMs
	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 30 {
		if err := st.WriteMetricPoints(ctx, testPoints(rng, "a", 20, start+int64(k)*index.HourMs, start+int64(k+1)*index.HourMs)); err != nil {
			t.Fatal(err)
		}
	}
	q := warehouse.MetricQuery{Environments: []string{"a"}, FromMs: start, Limit: 25,
		Filters: []warehouse.Filter{{Field: warehouse.PrefixLabel + "workflow_name", Operator: warehouse.OpEquals, Value: "wf-2"}}}
	first, err := st.QueryMetrics(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if first.TotalResults < 100 || first.NextCursor == "" {
		t.Fatalf("first page: total %d, cursor %q", first.TotalResults, first.NextCursor)
	}
	// More points in the range's whole hours: not part of the pagination.
	if err := st.WriteMetricPoints(ctx, testPoints(rng, "a", 100, start+2*index.HourMs, start+20*index.HourMs)); err != nil {
		t.Fatal(err)
	}
	q.Cursor, _ = strconv.ParseInt(first.NextCursor, 10, 64)
	second, err := st.QueryMetrics(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if second.TotalResults != first.TotalResults {
		t.Fatalf("second page total %d, first %d", second.TotalResults, first.TotalResults)
	}
	// Pruning takes the points older than a day off the counts.
	if _, err := st.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	q.Cursor = 0
	for _, f := range []warehouse.Filter{
		{Field: warehouse.PrefixLabel + "workflow_name", Operator: warehouse.OpEquals, Value: "wf-2"},
		{Field: warehouse.PrefixLabel + "verdict", Operator: warehouse.OpNotExists},
	} {
		q.Filters = []warehouse.Filter{f}
		q.FromMs = 0
		want := metricPages(t, st, q, true)
		got := metricPages(t, st, q, false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after pruning, %v: total %d, reading every point %d", f, got[0].TotalResults, want[0].TotalResults)
		}
		var rows int64
		if err := st.reader.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM point_counts WHERE key = '' AND hour < ?`,
			index.HourOf(now-24*index.HourMs)).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != 0 {
			t.Fatalf("point_counts still counts %d pruned points", rows)
		}
	}
}
