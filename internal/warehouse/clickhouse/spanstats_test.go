package clickhouse

import (
	"context"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
)

// TestSpanStatsMigrationFills: the fill of migration 00014 counts the
// spans stored before it as the writer would have.
func TestSpanStatsMigrationFills(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	defer st.Close()
	storetest.WriteStatsFixture(t, st)
	q := warehouse.SpanStatQuery{Environment: "prod", FromMs: 0, ToMs: 1 << 50}
	want, err := st.SpanStats(ctx, q)
	if err != nil || len(want) == 0 {
		t.Fatalf("stats before: %v, %v", want, err)
	}
	if err := st.conn.Exec(ctx, "DROP TABLE "+st.schema.table("span_stats")); err != nil {
		t.Fatal(err)
	}
	ddl, err := st.schema.render("ddl", spanStatsDDL)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(ddl, ";\n") {
		if strings.TrimSpace(stmt) != "" {
			if err := st.conn.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.fillSpanStats(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.SpanStats(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameStatRows(t, got, want)
}

// TestSpanStatsSixHoursMigration: migration 00015 sums a table of hour
// rows (as the writer kept them before it) into the six-hour rows the
// writer keeps now; run again, it adds nothing.
func TestSpanStatsSixHoursMigration(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	defer st.Close()
	storetest.WriteStatsFixture(t, st)
	six := warehouse.StatSixHours
	day := int64(1_767_225_600_000) // storetest's base, a midnight
	q := warehouse.SpanStatQuery{Environment: "prod", FromMs: day, ToMs: day + 4*six - 1, BucketMs: six}
	want, err := st.SpanStats(ctx, q)
	if err != nil || len(want) == 0 {
		t.Fatalf("stats before: %v, %v", want, err)
	}
	// The table as an older writer left it: minute and hour rows.
	var c warehouse.SpanStatChanges
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}, FromMs: day, Limit: 1000})
	if err != nil || page.NextCursor != "" {
		t.Fatalf("spans: %v (cursor %q)", err, page.NextCursor)
	}
	for i := range page.Spans {
		c.AddSpan(&page.Spans[i], 1)
	}
	for r := range c.Rows {
		if r.Width == six {
			delete(c.Rows, r)
		}
	}
	if err := st.conn.Exec(ctx, "TRUNCATE TABLE "+st.schema.table("span_stats")); err != nil {
		t.Fatal(err)
	}
	if err := st.writeSpanStats(ctx, &c); err != nil {
		t.Fatal(err)
	}
	if got, err := st.SpanStats(ctx, q); err != nil || len(got) != 0 {
		t.Fatalf("stats without six-hour rows: %d rows, %v", len(got), err)
	}
	for range 2 {
		if err := st.fillSixHourStats(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := st.SpanStats(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		storetest.SameStatRows(t, got, want)
	}
}
