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
	if applied, err := applyMigrations(ctx, st.writer, migrations); err != nil || !slices.Equal(applied, []int64{29, 30}) {
		t.Fatalf("applied %v, %v; want [29 30] (goose applies none out of order)", applied, err)
	}
	got, err := st.SpanStats(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameStatRows(t, got, want)
}
