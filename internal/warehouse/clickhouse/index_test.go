package clickhouse

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// traceFixture writes, in separate inserts (separate unmerged parts):
// trace "t1" with spans an hour apart in two batches, trace "t2" in one
// batch, background spans of other traces in between, the same trace id
// in environment "other", and then the first t1 batch again (a retried
// export). It returns the span ids per trace of environment "e".
func traceFixture(t *testing.T, st *Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	const hour = int64(3_600_000)
	mk := func(env, trace, id string, ts int64) warehouse.Span {
		return warehouse.Span{Environment: env, TraceID: trace, SpanID: id, Timestamp: ts, Duration: ts % 97,
			SpanName: "op", SpanAttributes: map[string]string{"user.id": "u-" + id[len(id)-1:]}}
	}
	first := []warehouse.Span{mk("e", "t1", "t1-a", 10*hour), mk("e", "t1", "t1-b", 10*hour+5), mk("e", "t2", "t2-a", 10*hour+7)}
	var background []warehouse.Span
	for i := range 40 {
		background = append(background, mk("e", fmt.Sprintf("bg%02d", i), fmt.Sprintf("bg-%02d", i), 10*hour+int64(i)*60_000))
	}
	later := []warehouse.Span{mk("e", "t1", "t1-c", 11*hour), mk("other", "t1", "o-a", 10*hour+1)}
	for i, b := range [][]warehouse.Span{first, background, later, first} {
		if err := st.WriteSpans(ctx, b); err != nil {
			t.Fatalf("write batch %d: %v", i, err)
		}
	}
	return map[string][]string{"t1": {"t1-a", "t1-b", "t1-c"}, "t2": {"t2-a"}}
}

// allPages follows the cursor and returns the span ids of every page and
// the first page's total.
func allPages(t *testing.T, st *Store, q warehouse.SpanQuery) ([]string, int64) {
	t.Helper()
	var ids []string
	var total int64
	for page := 0; ; page++ {
		p, err := st.QuerySpans(context.Background(), q)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if page == 0 {
			total = p.TotalResults
		} else if p.TotalResults != total {
			t.Errorf("page %d total %d, first page said %d", page, p.TotalResults, total)
		}
		for _, sp := range p.Spans {
			ids = append(ids, sp.SpanID)
		}
		if p.NextCursor == "" || page > 50 {
			return ids, total
		}
		q.Cursor = p.NextCursor
	}
}

func TestTraceIndexLookups(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	traces := traceFixture(t, st)
	const hour = int64(3_600_000)
	type F = warehouse.Filter
	for _, tc := range []struct {
		name      string
		q         warehouse.SpanQuery
		want      []string
		wantIndex bool // whether the lookup reads the trace index
	}{
		{"equals, spans in two batches an hour apart", warehouse.SpanQuery{
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}}}, traces["t1"], true},
		{"equals, pages of one", warehouse.SpanQuery{Limit: 1,
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}}}, traces["t1"], true},
		{"in, two traces", warehouse.SpanQuery{Limit: 2,
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpIn, Values: []string{"t2", "t1"}}}},
			append(slices.Clone(traces["t1"]), traces["t2"]...), true},
		{"equals, range cuts the trace", warehouse.SpanQuery{FromMs: 10*hour + 1, ToMs: 10*hour + 30*60_000,
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}}}, []string{"t1-b"}, true},
		{"equals, range misses the trace", warehouse.SpanQuery{FromMs: 12 * hour,
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}}}, nil, true},
		{"equals, unknown trace", warehouse.SpanQuery{
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "nope"}}}, nil, true},
		{"equals plus another filter", warehouse.SpanQuery{Filters: []F{
			{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"},
			{Field: "user.id", Operator: warehouse.OpEquals, Value: "u-c"}}}, []string{"t1-c"}, true},
		{"not_equals does not use the index", warehouse.SpanQuery{Limit: 7,
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpNotEquals, Value: "t1"}}}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Environments = []string{"e"}
			_, usesIndex := traceFilterIDs(tc.q.Filters)
			if usesIndex != tc.wantIndex {
				t.Fatalf("traceFilterIDs ok = %v, want %v", usesIndex, tc.wantIndex)
			}
			got, total := allPages(t, st, tc.q)
			want := tc.want
			if !tc.wantIndex { // every span of "e" but t1's
				want = append([]string{"t2-a"}, bgIDs(40)...)
			}
			slices.Sort(got)
			want = slices.Sorted(slices.Values(want))
			if !slices.Equal(got, want) {
				t.Errorf("got spans %v, want %v", got, want)
			}
			if total != int64(len(want)) {
				t.Errorf("total_results %d, want %d", total, len(want))
			}
		})
	}
}

func bgIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("bg-%02d", i)
	}
	return ids
}

func TestTraceIndexRows(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	traceFixture(t, st)
	ctx := context.Background()
	const hour = int64(3_600_000)
	for _, tc := range []struct {
		name           string
		envs, traces   []string
		from, to       int64
		wantLo, wantHi int64
		wantFound      bool
	}{
		{"whole trace", []string{"e"}, []string{"t1"}, 0, 0, 10 * hour, 11 * hour, true},
		// The first batch's row [10h, 10h+5] overlaps; the later [11h, 11h] does not.
		{"clipped to the query range", []string{"e"}, []string{"t1"}, 10*hour + 1, 10*hour + 100, 10*hour + 1, 10*hour + 5, true},
		{"other environment", []string{"other"}, []string{"t1"}, 0, 0, 10*hour + 1, 10*hour + 1, true},
		{"outside the range", []string{"e"}, []string{"t2"}, 11 * hour, 0, 0, 0, false},
		{"no ids", []string{"e"}, nil, 0, 0, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, found, err := st.traceRange(ctx, tc.envs, tc.traces, tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if found != tc.wantFound || (found && (lo != tc.wantLo || hi != tc.wantHi)) {
				t.Errorf("got [%d, %d] found %v, want [%d, %d] found %v", lo, hi, found, tc.wantLo, tc.wantHi, tc.wantFound)
			}
		})
	}
}

// TestTotalsWithDuplicates checks total_results, taken from the page
// query's rows_before_limit, against the fixture while duplicates are
// still in separate parts: spans and points written twice count once.
func TestTotalsWithDuplicates(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	ctx := context.Background()
	var spans []warehouse.Span
	var pts []warehouse.MetricPoint
	for i := range 30 {
		user := []string{"a", "b", "c"}[i%3]
		spans = append(spans, warehouse.Span{Environment: "e", TraceID: fmt.Sprintf("t%d", i/4), SpanID: fmt.Sprintf("s%02d", i),
			Timestamp: 1_000_000 + int64(i)*1000, Duration: int64(i % 7), SpanAttributes: map[string]string{"user.id": user}})
		v := float64(i)
		pts = append(pts, warehouse.MetricPoint{Environment: "e", MetricName: []string{"m1", "m2"}[i%2], EventTime: 2_000_000 + int64(i),
			NumericValue: &v, Labels: map[string]string{"user": user}})
	}
	// Three inserts: all, then the first half again, then the second half
	// again (nothing is merged yet).
	for _, r := range [][2]int{{0, 30}, {0, 15}, {15, 30}} {
		if err := st.WriteSpans(ctx, spans[r[0]:r[1]]); err != nil {
			t.Fatal(err)
		}
		if err := st.WriteMetricPoints(ctx, pts[r[0]:r[1]]); err != nil {
			t.Fatal(err)
		}
	}
	type F = warehouse.Filter
	for _, tc := range []struct {
		name string
		q    warehouse.SpanQuery
		want int
	}{
		{"no filter", warehouse.SpanQuery{Limit: 4}, 30},
		{"attribute equality", warehouse.SpanQuery{Limit: 4, SortBy: warehouse.SortDuration, Desc: true,
			Filters: []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "b"}}}, 10},
		{"time range", warehouse.SpanQuery{Limit: 3, FromMs: 1_005_000, ToMs: 1_014_000}, 10},
		{"trace in", warehouse.SpanQuery{Limit: 2,
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpIn, Values: []string{"t0", "t7"}}}}, 6},
	} {
		t.Run("spans "+tc.name, func(t *testing.T) {
			tc.q.Environments = []string{"e"}
			ids, total := allPages(t, st, tc.q)
			if total != int64(tc.want) || len(ids) != tc.want {
				t.Errorf("total_results %d, %d spans over all pages; want %d", total, len(ids), tc.want)
			}
			if c := slices.Compact(slices.Sorted(slices.Values(ids))); len(c) != len(ids) {
				t.Errorf("a span was returned twice: %v", ids)
			}
		})
	}
	for _, tc := range []struct {
		name string
		q    warehouse.MetricQuery
		want int
	}{
		{"no filter", warehouse.MetricQuery{Limit: 4}, 30},
		{"metric name", warehouse.MetricQuery{Limit: 4, MetricName: "m2", Desc: true}, 15},
		{"label equality", warehouse.MetricQuery{Limit: 3,
			Filters: []F{{Field: "labels.user", Operator: warehouse.OpEquals, Value: "c"}}}, 10},
	} {
		t.Run("points "+tc.name, func(t *testing.T) {
			tc.q.Environments = []string{"e"}
			seen := 0
			for page := 0; ; page++ {
				p, err := st.QueryMetrics(ctx, tc.q)
				if err != nil {
					t.Fatalf("page %d: %v", page, err)
				}
				if p.TotalResults != int64(tc.want) {
					t.Errorf("page %d: total_results %d, want %d", page, p.TotalResults, tc.want)
				}
				for _, g := range p.Groups {
					seen += len(g.Points)
				}
				if p.NextCursor == "" || page > 50 {
					break
				}
				if tc.q.Cursor, err = strconv.ParseInt(p.NextCursor, 10, 64); err != nil {
					t.Fatalf("page %d cursor %q: %v", page, p.NextCursor, err)
				}
			}
			if seen != tc.want {
				t.Errorf("%d points over all pages, want %d", seen, tc.want)
			}
		})
	}
}

// TestSettledPartitions reads merged partitions without FINAL: after
// OPTIMIZE ... FINAL every week is one merged part and counts stay exact;
// a retried write into one week makes that week unsettled again (read
// with FINAL), and nothing shows twice either way.
func TestSettledPartitions(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	ctx := context.Background()
	const week = int64(weekMs)
	base := 2900 * week
	var spans []warehouse.Span
	var pts []warehouse.MetricPoint
	for i := range 20 {
		ts := base + int64(i%2)*week + int64(i)*1000 // weeks 2900 and 2901
		spans = append(spans, warehouse.Span{Environment: "e", TraceID: fmt.Sprintf("t%d", i), SpanID: fmt.Sprintf("s%02d", i),
			Timestamp: ts, Duration: int64(i), SpanAttributes: map[string]string{"odd": strconv.FormatBool(i%2 == 1)}})
		v := float64(i)
		pts = append(pts, warehouse.MetricPoint{Environment: "e", MetricName: "m", EventTime: ts, NumericValue: &v})
	}
	// Raw span inserts: WriteSpans skips spans already stored, so the
	// duplicates two collectors writing the same span at once leave are
	// made by inserting the columns directly.
	write := func(s []warehouse.Span, p []warehouse.MetricPoint) {
		t.Helper()
		cols := newSpanColumnsData(len(s))
		for i := range s {
			cols.add(&s[i])
		}
		if err := st.writeColumns(ctx, cols); err != nil {
			t.Fatal(err)
		}
		if err := st.WriteMetricPoints(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	write(spans, pts)
	write(spans[:10], pts[:10]) // a retried export before the merge
	for _, table := range []string{"spans", "metric_points"} {
		if err := st.conn.Exec(ctx, "OPTIMIZE TABLE "+st.schema.table(table)+" FINAL"); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T, minSettled, maxSettled int) { // settled weeks per table
		t.Helper()
		for _, table := range []string{"spans", "metric_points"} {
			weeks, err := st.settledWeeks(ctx, table, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(weeks) < minSettled || len(weeks) > maxSettled {
				t.Errorf("%s: settled weeks %v, want %d to %d", table, weeks, minSettled, maxSettled)
			}
		}
		for _, tc := range []struct {
			name string
			q    warehouse.SpanQuery
			want int
		}{
			{"all, sort timestamp", warehouse.SpanQuery{Limit: 3}, 20},
			{"attribute, sort duration DESC", warehouse.SpanQuery{Limit: 4, SortBy: warehouse.SortDuration, Desc: true,
				Filters: []warehouse.Filter{{Field: "odd", Operator: warehouse.OpEquals, Value: "true"}}}, 10},
			{"second week only", warehouse.SpanQuery{Limit: 3, FromMs: base + week}, 10},
		} {
			tc.q.Environments = []string{"e"}
			ids, total := allPages(t, st, tc.q)
			if total != int64(tc.want) || len(ids) != tc.want {
				t.Errorf("%s: total_results %d, %d spans; want %d", tc.name, total, len(ids), tc.want)
			}
			if c := slices.Compact(slices.Sorted(slices.Values(ids))); len(c) != len(ids) {
				t.Errorf("%s: a span was returned twice: %v", tc.name, ids)
			}
		}
		p, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"e"}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalResults != 20 {
			t.Errorf("metric total_results %d, want 20", p.TotalResults)
		}
	}
	t.Run("merged", func(t *testing.T) { check(t, 2, 2) })
	// Retried again after the merge: the first week gets a second part,
	// kept apart from the merged one.
	for _, table := range []string{"spans", "metric_points"} {
		if err := st.conn.Exec(ctx, "SYSTEM STOP MERGES "+st.schema.table(table)); err != nil {
			t.Fatal(err)
		}
	}
	write(spans[:1], pts[:1])
	t.Run("first week written again", func(t *testing.T) { check(t, 1, 1) })
}

// TestDifferingCopies re-sends a span's key with other attributes: the
// first stored copy wins, and a filter matches the span only through
// that copy, before and after the copies are merged.
func TestDifferingCopies(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	ctx := context.Background()
	first := warehouse.Span{Environment: "e", TraceID: "t", SpanID: "s", Timestamp: 5 * weekMs, Duration: 1,
		SpanAttributes: map[string]string{"user.id": "first"}}
	second := first
	second.Duration = 2
	second.SpanAttributes = map[string]string{"user.id": "second"}
	other := warehouse.Span{Environment: "e", TraceID: "t2", SpanID: "o", Timestamp: 5*weekMs + 1,
		SpanAttributes: map[string]string{"user.id": "first"}}
	for _, b := range [][]warehouse.Span{{first, other}, {second}} {
		if err := st.WriteSpans(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	check := func(t *testing.T) {
		for _, tc := range []struct {
			user string
			want []string
		}{{"first", []string{"o", "s"}}, {"second", nil}} {
			for _, limit := range []int{1, 10} {
				q := warehouse.SpanQuery{Environments: []string{"e"}, Limit: limit,
					Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: tc.user}}}
				ids, total := allPages(t, st, q)
				slices.Sort(ids)
				if !slices.Equal(ids, tc.want) || total != int64(len(tc.want)) {
					t.Errorf("user.id = %s, limit %d: got %v (total %d), want %v", tc.user, limit, ids, total, tc.want)
				}
			}
		}
		p, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"},
			Filters: []warehouse.Filter{{Field: "span_id", Operator: warehouse.OpEquals, Value: "s"}}})
		if err != nil || len(p.Spans) != 1 || p.Spans[0].Duration != 1 {
			t.Errorf("span s: %+v, %v; want the first copy (duration 1)", p.Spans, err)
		}
	}
	t.Run("unmerged", check)
	if err := st.conn.Exec(ctx, "OPTIMIZE TABLE "+st.schema.table("spans")+" FINAL"); err != nil {
		t.Fatal(err)
	}
	t.Run("merged", check)
}

func TestCopyInvariantGroupBy(t *testing.T) {
	type F = warehouse.Filter
	for _, tc := range []struct {
		name string
		q    warehouse.MetricQuery
		sort string
		want bool
	}{
		{"metric name", warehouse.MetricQuery{MetricName: "m"}, "event_time", true},
		{"label filter", warehouse.MetricQuery{Filters: []F{{Field: "labels.model", Operator: warehouse.OpEquals, Value: "x"}}}, "event_time", true},
		{"source and trace id", warehouse.MetricQuery{MetricSource: "otlp",
			Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t"}}}, "metric_name", true},
		{"no filter reads FINAL", warehouse.MetricQuery{}, "event_time", false},
		{"value filter: copies may differ", warehouse.MetricQuery{MetricName: "m",
			Filters: []F{{Field: "numeric_value", Operator: warehouse.OpGreaterThan, Value: "1"}}}, "event_time", false},
		{"organization filter", warehouse.MetricQuery{MetricName: "m",
			Filters: []F{{Field: "organization_id", Operator: warehouse.OpEquals, Value: "o"}}}, "event_time", false},
		{"sort by value", warehouse.MetricQuery{MetricName: "m"}, "numeric_value", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := copyInvariantGroupBy(tc.q, tc.sort) != ""; got != tc.want {
				t.Errorf("group by: %v, want %v", got, tc.want)
			}
		})
	}
}
