package sqlite

import (
	"context"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
)

// TestEvaluationCountsMigrationFills: a store from before migration 00028
// (its spans with results, no count tables) gets counts equal to what the
// writer would have kept.
func TestEvaluationCountsMigrationFills(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	storetest.WriteCountFixture(t, st)
	q := warehouse.EvaluationCountQuery{Environment: "prod", FromMs: 0, ToMs: 1 << 50, BucketMs: 0}
	want, err := st.CountEvaluations(ctx, q)
	if err != nil || len(want) == 0 {
		t.Fatalf("counts before: %v, %v", want, err)
	}
	for _, stmt := range []string{`DROP TABLE evaluation_counts`, `DROP TABLE monitor_last_evaluations`,
		`DROP TABLE span_stats`, `DELETE FROM schema_migrations WHERE version >= 28`} {
		if _, err := st.writer.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if applied, err := applyMigrations(ctx, st.writer, migrations); err != nil || !slices.Equal(applied, []int64{28, 29, 30, 31}) {
		t.Fatalf("applied %v, %v; want [28 29 30 31] (goose applies none out of order)", applied, err)
	}
	got, err := st.CountEvaluations(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	storetest.SameCountRows(t, got, want)
	last, err := st.LastEvaluations(ctx, "prod", []string{"safety"})
	if err != nil || last["safety"] == 0 {
		t.Errorf("last evaluation of safety after the migration: %v, %v", last, err)
	}
}
