package clickhouse

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestMetricCursorPastAnySnapshot: a metric cursor whose snapshot no
// collector's clock has reached (2^63-1, or hours ahead) is refused as a
// cursor this API never returned, as a negative one is, instead of paging
// through nothing; a real cursor still pages.
func TestMetricCursorPastAnySnapshot(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	ctx := context.Background()
	now := time.Now().UnixMilli()
	v1, v2 := 1.0, 2.0
	if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{
		{Environment: "e", MetricName: "m", Source: warehouse.SourceEvaluator, EventTime: now - 1000, NumericValue: &v1},
		{Environment: "e", MetricName: "m", Source: warehouse.SourceEvaluator, EventTime: now - 2000, NumericValue: &v2},
	}); err != nil {
		t.Fatal(err)
	}
	q := warehouse.MetricQuery{Environments: []string{"e"}, Limit: 1}
	first, err := st.QueryMetrics(ctx, q)
	if err != nil || first.NextCursor == "" {
		t.Fatalf("first page: %+v, %v; want a next cursor", first, err)
	}
	q.Cursor, _ = strconv.ParseInt(first.NextCursor, 10, 64)
	if second, err := st.QueryMetrics(ctx, q); err != nil || second.TotalPoints != 1 {
		t.Fatalf("second page: %+v, %v", second, err)
	}
	ahead, err := warehouse.EncodeMetricCursor(now-seqEpochMs+3*time.Hour.Milliseconds(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, cursor := range []int64{math.MaxInt64, ahead} {
		q.Cursor = cursor
		_, err := st.QueryMetrics(ctx, q)
		if !warehouse.IsQueryError(err) || !strings.HasSuffix(err.Error(), "cursor: "+strconv.FormatInt(cursor, 10)+" is not a cursor returned by this API") {
			t.Errorf("cursor %d: %v, want cursor: ... is not a cursor returned by this API", cursor, err)
		}
	}
}
