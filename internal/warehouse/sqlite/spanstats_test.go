package sqlite

import (
	"context"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
)

// TestSpanStatsMigrationFills: a store from before migration 00029 (its
// spans, no span_stats) gets stats equal to what the writer would have
// kept.
func TestSpanStatsMigrationFills(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	storetest.WriteStatsFixture(t, st)
	q := warehouse.SpanStatQuery{Environment: "prod", FromMs: 0, ToMs: 1 << 50}
	want, err := st.SpanStats(ctx, q)
	if err != nil || len(want) == 0 {
		t.Fatalf("stats before: %v, %v", want, err)
	}
	for _, stmt := range []string{`DROP TABLE span_stats`, `DELETE FROM schema_migrations WHERE version >= 29`} {
		if _, err := st.writer.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if applied, err := applyMigrations(ctx, st.writer, migrations); err != nil || !slices.Equal(applied, []int64{29, 30, 31}) {
		t.Fatalf("applied %v, %v; want [29 30 31] (goose applies none out of order)", applied, err)
	}
	got, err := st.SpanStats(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameStatRows(t, got, want)
}

// TestSpanStatsSixHoursMigration: a store whose span_stats has no
// six-hour rows (kept since migration 00031) gets them from its hour rows,
// equal to what the writer keeps; run again, it adds nothing.
func TestSpanStatsSixHoursMigration(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	storetest.WriteStatsFixture(t, st)
	six := warehouse.StatSixHours
	day := int64(1_767_225_600_000) // storetest's base, a midnight
	q := warehouse.SpanStatQuery{Environment: "prod", FromMs: day, ToMs: day + 4*six - 1, BucketMs: six}
	if !q.RowPerBucket() || q.Width() != six {
		t.Fatalf("a query of six-hour buckets reads rows of %d ms", q.Width())
	}
	want, err := st.SpanStats(ctx, q)
	buckets := map[int64]bool{}
	for _, r := range want {
		buckets[r.Bucket] = true
	}
	if err != nil || len(buckets) != 2 {
		t.Fatalf("stats before: %v, %v (want two six-hour buckets)", want, err)
	}
	for _, stmt := range []string{`DELETE FROM span_stats WHERE width = 21600000`, `DELETE FROM schema_migrations WHERE version >= 31`} {
		if _, err := st.writer.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := st.SpanStats(ctx, q); err != nil || len(got) != 0 {
		t.Fatalf("stats without six-hour rows: %d rows, %v", len(got), err)
	}
	for range 2 { // the second run finds the rows and adds nothing
		if applied, err := applyMigrations(ctx, st.writer, migrations); err != nil || !slices.Equal(applied, []int64{31}) {
			t.Fatalf("applied %v, %v; want [31]", applied, err)
		}
		got, err := st.SpanStats(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		storetest.SameStatRows(t, got, want)
		if _, err := st.writer.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version >= 31`); err != nil {
			t.Fatal(err)
		}
	}
}
