package clickhouse

import (
	"context"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
)

// TestEvaluationCountsMigrationFills: the fill of migration 00013 counts
// the results of the spans stored before it as the writer would have.
func TestEvaluationCountsMigrationFills(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	defer st.Close()
	storetest.WriteCountFixture(t, st)
	q := warehouse.EvaluationCountQuery{Environment: "prod", FromMs: 0, ToMs: 1 << 50}
	want, err := st.CountEvaluations(ctx, q)
	if err != nil || len(want) == 0 {
		t.Fatalf("counts before: %v, %v", want, err)
	}
	for _, tbl := range []string{"evaluation_counts", "monitor_last_evaluations"} {
		if err := st.conn.Exec(ctx, "DROP TABLE "+st.schema.table(tbl)); err != nil {
			t.Fatal(err)
		}
	}
	ddl, err := st.schema.render("ddl", evaluationCountsDDL)
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
	if err := st.fillEvaluationCounts(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.CountEvaluations(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameCountRows(t, got, want)
	if last, err := st.LastEvaluations(ctx, "prod", []string{"safety"}); err != nil || last["safety"] == 0 {
		t.Errorf("last evaluation of safety after the fill: %v, %v", last, err)
	}
}
