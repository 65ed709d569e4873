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
