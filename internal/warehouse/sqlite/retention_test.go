package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

const dayMs = int64(24 * 3600 * 1000)

func openRetention(t *testing.T, r warehouse.Retention) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "warehouse.db"), Options{Retention: r})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func count(t *testing.T, st *Store, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := st.reader.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestRetentionMetricPaginationStaysExact: a metric pagination sorted
// oldest first (offset paging, where deleting rows before the offset would
// skip points) started within the grace period sees the same points on
// every page while the job deletes: the first page already hides what the
// job deletes later.
func TestRetentionMetricPaginationStaysExact(t *testing.T) {
	ctx := context.Background()
	const grace = 300 * time.Millisecond
	st := openRetention(t, warehouse.Retention{MetricPoints: 24 * time.Hour, Interval: time.Hour, Grace: grace})
	now := time.Now().UnixMilli()
	var pts []warehouse.MetricPoint
	for i := range 6 {
		for _, age := range []struct {
			name string
			t    int64
		}{{"old", now - 2*dayMs + int64(i)}, {"new", now - 1000 + int64(i)}} {
			v := float64(i)
			pts = append(pts, warehouse.MetricPoint{Environment: "e", MetricName: "m", Source: warehouse.SourceEvaluator,
				EventTime: age.t, SpanID: fmt.Sprintf("%s-%d", age.name, i), NumericValue: &v})
		}
	}
	if err := st.WriteMetricPoints(ctx, pts); err != nil {
		t.Fatal(err)
	}
	// Run 1 records a mark (cutoff: one day ago) and deletes nothing yet:
	// no mark is older than the grace period.
	if got, err := st.Prune(ctx); err != nil || got.MetricPoints != 0 {
		t.Fatalf("first Prune: %+v, %v; want nothing deleted within the grace period", got, err)
	}
	if n := count(t, st, `SELECT count(*) FROM metric_points`); n != 12 {
		t.Fatalf("%d points stored after the first run, want 12", n)
	}
	q := warehouse.MetricQuery{Environments: []string{"e"}, Limit: 4}
	page, err := st.QueryMetrics(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, g := range page.Groups {
		for _, p := range g.Points {
			seen = append(seen, p.SpanID)
		}
	}
	if page.TotalResults != 6 || page.NextCursor == "" {
		t.Fatalf("first page: total %d, cursor %q; want 6 (old points hidden) and a cursor", page.TotalResults, page.NextCursor)
	}
	time.Sleep(grace + 50*time.Millisecond)
	// Run 2 deletes below run 1's cutoff: the points the pagination
	// already hides.
	if got, err := st.Prune(ctx); err != nil || got.MetricPoints != 6 {
		t.Fatalf("second Prune: %+v, %v; want the 6 old points deleted", got, err)
	}
	for page.NextCursor != "" {
		q.Cursor, _ = strconv.ParseInt(page.NextCursor, 10, 64)
		if page, err = st.QueryMetrics(ctx, q); err != nil {
			t.Fatal(err)
		}
		if page.TotalResults != 6 {
			t.Errorf("total_results %d on a later page, want 6", page.TotalResults)
		}
		for _, g := range page.Groups {
			for _, p := range g.Points {
				seen = append(seen, p.SpanID)
			}
		}
	}
	if want := []string{"new-0", "new-1", "new-2", "new-3", "new-4", "new-5"}; !slices.Equal(seen, want) {
		t.Errorf("pagination across the prune: %v, want %v", seen, want)
	}
	if n := count(t, st, `SELECT count(*) FROM point_keys_by_time`); n != 6 {
		t.Errorf("%d point keys kept, want 6 (the deleted points' keys go too)", n)
	}
}

// TestRetentionNeverReusesSequenceNumbers: when every row is pruned
// (the newest included), new rows are still numbered above the deleted
// ones, so a pagination that started before cannot see them.
func TestRetentionNeverReusesSequenceNumbers(t *testing.T) {
	ctx := context.Background()
	st := openRetention(t, warehouse.Retention{Spans: 24 * time.Hour, MetricPoints: 24 * time.Hour, Interval: time.Hour, Grace: -1})
	old := time.Now().UnixMilli() - 3*dayMs
	var spans []warehouse.Span
	for i := range 4 {
		spans = append(spans, warehouse.Span{Environment: "e", TraceID: "t", SpanID: fmt.Sprint("s", i), Timestamp: old + int64(i),
			SpanAttributes: map[string]string{"user.id": "u1"}})
	}
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	v := 1.0
	if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{{Environment: "e", MetricName: "m", EventTime: old, NumericValue: &v,
		Labels: map[string]string{"agent_name": "a1"}}}); err != nil {
		t.Fatal(err)
	}
	q := warehouse.SpanQuery{Environments: []string{"e"}, Limit: 2}
	first, err := st.QuerySpans(ctx, q) // snapshot 4, before the prune
	if err != nil || len(first.Spans) != 2 || first.NextCursor == "" {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	if got, err := st.Prune(ctx); err != nil || got.Spans != 4 || got.MetricPoints != 1 {
		t.Fatalf("Prune: %+v, %v; want 4 spans and 1 point", got, err)
	}
	if n := count(t, st, `SELECT count(*) FROM spans`) + count(t, st, `SELECT count(*) FROM span_keys_by_time`) +
		count(t, st, `SELECT count(*) FROM span_postings`) + count(t, st, `SELECT count(*) FROM span_counts`) +
		count(t, st, `SELECT count(*) FROM metric_points`) + count(t, st, `SELECT count(*) FROM span_values`) +
		count(t, st, `SELECT count(*) FROM point_postings`) + count(t, st, `SELECT count(*) FROM point_posting_runs`); n != 0 {
		t.Errorf("%d rows of spans, keys, index, counts, points, attribute values and label postings left, want none", n)
	}
	now := time.Now().UnixMilli()
	if err := st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", TraceID: "t", SpanID: "fresh", Timestamp: now}}); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{{Environment: "e", MetricName: "m", EventTime: now, NumericValue: &v}}); err != nil {
		t.Fatal(err)
	}
	if seq := count(t, st, `SELECT max(seq) FROM spans`); seq <= 4 {
		t.Errorf("new span numbered %d, want above the deleted 1..4", seq)
	}
	if seq := count(t, st, `SELECT max(seq) FROM metric_points`); seq <= 1 {
		t.Errorf("new point numbered %d, want above the deleted 1", seq)
	}
	q.Cursor = first.NextCursor
	rest, err := st.QuerySpans(ctx, q)
	if err != nil || len(rest.Spans) != 0 || rest.NextCursor != "" {
		t.Errorf("the old pagination's next page: %+v, %v; want empty (its spans are gone, the new one is after its snapshot)", rest.Spans, err)
	}
	// A re-sent expired span is stored again (its key went with it) and
	// stays hidden until the next run deletes it.
	if err := st.WriteSpans(ctx, spans[:1]); err != nil {
		t.Fatal(err)
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}})
	if err != nil || len(page.Spans) != 1 || page.Spans[0].SpanID != "fresh" {
		t.Errorf("after re-sending an expired span: %+v, %v; want only the fresh span", page.Spans, err)
	}
}

// TestRetentionRunsInTheBackground: with a short interval, the job deletes
// expired spans by itself; Close stops it.
func TestRetentionRunsInTheBackground(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "w.db"), Options{
		Retention: warehouse.Retention{Spans: time.Hour, Interval: 20 * time.Millisecond, Grace: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().UnixMilli() - 2*3600_000
	var spans []warehouse.Span
	for i := range 1200 { // more than two delete batches
		spans = append(spans, warehouse.Span{Environment: fmt.Sprint("env-", i%3), TraceID: "t", SpanID: fmt.Sprint(i), Timestamp: old + int64(i)})
	}
	spans = append(spans, warehouse.Span{Environment: "env-0", TraceID: "t", SpanID: "new", Timestamp: time.Now().UnixMilli()})
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for count(t, st, `SELECT count(*) FROM spans`) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d spans left after 20 s, want 1", count(t, st, `SELECT count(*) FROM spans`))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prune(ctx); !warehouse.IsRetryable(err) {
		t.Errorf("Prune after Close: %v, want ErrUnavailable", err)
	}
}
