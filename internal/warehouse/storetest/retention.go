package storetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// RetentionOpener opens a new, empty store enforcing r; the suite calls
// its Prune (warehouse.Pruner) itself, so r.Interval is long.
type RetentionOpener func(t *testing.T, r warehouse.Retention) warehouse.Store

// RunRetention runs the retention suite against a backend that implements
// warehouse.Pruner.
func RunRetention(t *testing.T, open RetentionOpener) {
	t.Run("ExpiredDisappearNewerStay", func(t *testing.T) { testRetentionExpired(t, open) })
	t.Run("OnlyWhatIsConfigured", func(t *testing.T) { testRetentionOnlyConfigured(t, open) })
	t.Run("SpanPaginationAcrossPrune", func(t *testing.T) { testRetentionSpanPaging(t, open) })
	t.Run("MetricPaginationAcrossPrune", func(t *testing.T) { testRetentionMetricPaging(t, open) })
	t.Run("EvaluationCounts", func(t *testing.T) { testRetentionEvaluationCounts(t, open) })
	t.Run("SpanStats", func(t *testing.T) { testRetentionSpanStats(t, open) })
}

const (
	day  = int64(24 * 3600 * 1000) // ms
	week = 7 * 24 * time.Hour
)

// retentionFixture writes, per kind, old rows (30 days old: their whole
// week is past a 7-day retention) and new ones (this hour), named
// old-N / new-N, and returns the store's Pruner.
func retentionFixture(t *testing.T, open RetentionOpener, r warehouse.Retention, n int) (warehouse.Store, warehouse.Pruner) {
	t.Helper()
	r.Interval = time.Hour // the suite prunes itself
	st := open(t, r)
	t.Cleanup(func() { st.Close() })
	p, ok := st.(warehouse.Pruner)
	if !ok {
		t.Fatalf("%T does not implement warehouse.Pruner", st)
	}
	now := time.Now().UnixMilli()
	var spans []warehouse.Span
	var pts []warehouse.MetricPoint
	for i := range n {
		for _, age := range []struct {
			name string
			ts   int64
		}{{"old", now - 30*day + int64(i)}, {"new", now - 3600_000 + int64(i)}} {
			id := fmt.Sprintf("%s-%d", age.name, i)
			sp := span("prod", id, 0)
			sp.Timestamp, sp.SpanAttributes = age.ts, map[string]string{"user.id": "u-" + age.name}
			spans = append(spans, sp)
			pt := point("prod", "m", 0)
			pt.EventTime, pt.SpanID, pt.NumericValue = age.ts, id, ptr(float64(i))
			pts = append(pts, pt)
		}
	}
	writeSpans(t, st, spans...)
	writePoints(t, st, pts...)
	return st, p
}

func prune(t *testing.T, p warehouse.Pruner) warehouse.Pruned {
	t.Helper()
	got, err := p.Prune(context.Background())
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	return got
}

// countPrefix counts the ids starting with prefix.
func countPrefix(ids []string, prefix string) int {
	n := 0
	for _, id := range ids {
		if len(id) > len(prefix) && id[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}

func testRetentionExpired(t *testing.T, open RetentionOpener) {
	st, p := retentionFixture(t, open, warehouse.Retention{Spans: week, MetricPoints: week, Grace: -1}, 3)
	got := prune(t, p)
	if got.Spans != 3 || got.MetricPoints != 3 {
		t.Errorf("Prune deleted %+v, want 3 spans and 3 points", got)
	}
	spans := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"prod"}, Limit: 2}))
	if want := []string{"new-0", "new-1", "new-2"}; !slices.Equal(spans, want) {
		t.Errorf("spans after pruning: %v, want %v", spans, want)
	}
	pts := pointIDs(allMetricPages(t, st, warehouse.MetricQuery{Environments: []string{"prod"}, Limit: 2}))
	if want := []string{"new-0", "new-1", "new-2"}; !slices.Equal(pts, want) {
		t.Errorf("points after pruning: %v, want %v", pts, want)
	}
	// An attribute lookup (the SQLite index path) finds nothing old.
	page := querySpans(t, st, warehouse.SpanQuery{Environments: []string{"prod"},
		Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u-old"}}})
	if len(page.Spans) != 0 || page.TotalResults != 0 {
		t.Errorf("user.id = u-old after pruning: %v", ids(page.Spans))
	}
	// A second pass has nothing left to delete.
	if again := prune(t, p); again != (warehouse.Pruned{}) {
		t.Errorf("second Prune deleted %+v, want nothing", again)
	}
	// Writes go on after pruning.
	sp := span("prod", "later", 0)
	sp.Timestamp = time.Now().UnixMilli()
	writeSpans(t, st, sp)
	if n := len(allPages(t, st, warehouse.SpanQuery{Environments: []string{"prod"}})); n != 4 {
		t.Errorf("%d spans after a new write, want 4", n)
	}
}

func testRetentionOnlyConfigured(t *testing.T, open RetentionOpener) {
	st, p := retentionFixture(t, open, warehouse.Retention{Spans: week, Grace: -1}, 2)
	if got := prune(t, p); got.Spans != 2 || got.MetricPoints != 0 {
		t.Errorf("Prune with a span retention only deleted %+v, want 2 spans", got)
	}
	if n := len(allMetricPages(t, st, warehouse.MetricQuery{Environments: []string{"prod"}})); n != 4 {
		t.Errorf("%d points kept, want all 4 (no point retention)", n)
	}
	// A retention longer than the data's age deletes nothing.
	st2, p2 := retentionFixture(t, open, warehouse.Retention{Spans: 400 * 24 * time.Hour, MetricPoints: 400 * 24 * time.Hour, Grace: -1}, 2)
	if got := prune(t, p2); got != (warehouse.Pruned{}) {
		t.Errorf("a 400-day retention deleted %+v", got)
	}
	if n := len(allPages(t, st2, warehouse.SpanQuery{Environments: []string{"prod"}})); n != 4 {
		t.Errorf("%d spans kept, want 4", n)
	}
}

// testRetentionSpanPaging: a pagination that starts before a prune and
// ends after it returns every span that is not pruned exactly once, in
// order, without an error, whatever the sort.
func testRetentionSpanPaging(t *testing.T, open RetentionOpener) {
	for _, tc := range []struct {
		name string
		sort warehouse.SortKey
		desc bool
	}{{"oldest first", warehouse.SortTimestamp, false}, {"newest first", warehouse.SortTimestamp, true}, {"by name", warehouse.SortSpanName, false}} {
		t.Run(tc.name, func(t *testing.T) {
			st, p := retentionFixture(t, open, warehouse.Retention{Spans: week, Grace: -1}, 5)
			q := warehouse.SpanQuery{Environments: []string{"prod"}, SortBy: tc.sort, Desc: tc.desc, Limit: 3}
			first := querySpans(t, st, q)
			seen := ids(first.Spans)
			if first.NextCursor == "" {
				t.Fatal("one page holds everything")
			}
			prune(t, p)
			q.Cursor = first.NextCursor
			seen = append(seen, ids(allPages(t, st, q))...)
			counts := map[string]int{}
			for _, id := range seen {
				counts[id]++
				if counts[id] > 1 {
					t.Errorf("%s returned twice: %v", id, seen)
				}
			}
			if n := countPrefix(seen, "new-"); n != 5 {
				t.Errorf("%d of 5 new spans returned: %v", n, seen)
			}
		})
	}
}

// testRetentionMetricPaging: the same for metric points, newest first
// (the API's default order): every point that is not pruned exactly once.
func testRetentionMetricPaging(t *testing.T, open RetentionOpener) {
	st, p := retentionFixture(t, open, warehouse.Retention{MetricPoints: week, Grace: -1}, 5)
	q := warehouse.MetricQuery{Environments: []string{"prod"}, Desc: true, Limit: 3}
	first := queryMetrics(t, st, q)
	seen := pointIDs(flatten(first))
	if first.NextCursor == "" {
		t.Fatal("one page holds everything")
	}
	prune(t, p)
	next, err := strconv.ParseInt(first.NextCursor, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	q.Cursor = next
	seen = append(seen, pointIDs(allMetricPages(t, st, q))...)
	if want := []string{"new-4", "new-3", "new-2", "new-1", "new-0"}; !slices.Equal(seen, want) {
		t.Errorf("points across a prune: %v, want %v", seen, want)
	}
}
