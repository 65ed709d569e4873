package sqlite

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/migrate"
)

// latestVersion is the highest version among the migration files.
func latestVersion(t *testing.T) int {
	t.Helper()
	v, err := migrate.Latest(migrations)
	if err != nil {
		t.Fatal(err)
	}
	return max(int(v), latestGoMigration)
}

// TestUpgradeFromPreviousSchema loads a database written by the code
// before the DDL moved to .sql files (testdata/schema_v4.sql: its schema,
// schema_migrations versions 1-4 and rows of every table), opens it with
// the current code and reads everything back.
func TestUpgradeFromPreviousSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "previous.db")
	loadSQL(t, path, "testdata/schema_v4.sql")

	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("Open on the previous schema: %v", err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v; want %d", v, err, latestVersion(t))
	}
	var names []string
	rows, err := st.writer.QueryContext(ctx, `SELECT name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	// The four steps of the old code keep their rows; nothing ran twice.
	if len(names) < 4 || !slices.Equal(names[:4], []string{"spans", "metric_points", "idempotent writes", "monitor_setups"}) {
		t.Errorf("schema_migrations names %q", names)
	}

	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Spans) != 2 || page.TotalResults != 2 {
		t.Fatalf("prod spans: %d (total %d), want 2", len(page.Spans), page.TotalResults)
	}
	s1 := page.Spans[0]
	if s1.SpanID != "s1" || s1.SpanAttributes["user.id"] != "u1" || s1.ResourceAttributes["service.name"] != "svc" ||
		s1.Prompts["0.content"] != "hello" || s1.Completions["0.content"] != "hi there" || s1.TotalTokens != 42 ||
		s1.ResponseModel != "gpt-4o-2024" || len(s1.Evaluations) != 1 || s1.Evaluations[0].ScoreLabel != "safe" {
		t.Errorf("span s1 read back as %+v", s1)
	}
	// The attribute index written by the old code still answers.
	page, err = st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod", "dev"},
		Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}}})
	if err != nil || len(page.Spans) != 2 || page.Spans[0].SpanID != "s1" || page.Spans[1].SpanID != "s3" {
		t.Errorf("user.id = u1: %+v, %v; want s1, s3", page.Spans, err)
	}
	mp, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"prod"}})
	if err != nil || mp.TotalResults != 3 {
		t.Errorf("metric points: %+v, %v; want 3", mp, err)
	}
	setup, err := st.GetSetup(ctx, "prod", "setup-1")
	if err != nil || setup.ExternalID != "ext-1" || len(setup.Evaluators) != 1 {
		t.Errorf("setup-1: %+v, %v", setup, err)
	}
	// Writes carry on: a re-sent old span is still a duplicate, a new one
	// gets the next sequence number.
	if err := st.WriteSpans(ctx, []warehouse.Span{{Environment: "prod", TraceID: "t1", SpanID: "s1", Timestamp: 1},
		{Environment: "prod", TraceID: "t9", SpanID: "s9", Timestamp: 1_767_225_603_000, WorkflowName: "wf",
			ServiceName: "svc", SpanName: "chat"}}); err != nil {
		t.Fatal(err)
	}
	page, err = st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}})
	if err != nil || len(page.Spans) != 3 || page.Spans[2].SpanID != "s9" {
		t.Errorf("after writing: %+v, %v; want s1, s2, s9", page.Spans, err)
	}
	// Filters on the columns the postings index since migration 14, and on
	// attribute keys (migration 15), find the old spans too
	// (span_attr_index listed neither), whatever the sort, with their
	// totals; and the new span, listed in a run of the same hour.
	for _, tc := range []struct {
		envs []string
		f    warehouse.Filter
		want []string
	}{
		{[]string{"prod"}, warehouse.Filter{Field: "workflow_name", Operator: warehouse.OpEquals, Value: "wf"}, []string{"s1", "s9"}},
		{[]string{"prod"}, warehouse.Filter{Field: "workflow_name", Operator: warehouse.OpNotEquals, Value: "wf"}, []string{"s2"}},
		{[]string{"prod"}, warehouse.Filter{Field: "service_name", Operator: warehouse.OpIn, Values: []string{"svc", "x"}}, []string{"s1", "s2", "s9"}},
		{[]string{"prod", "dev"}, warehouse.Filter{Field: "span_name", Operator: warehouse.OpEquals, Value: "chat"}, []string{"s1", "s3", "s9"}},
		{[]string{"prod", "dev"}, warehouse.Filter{Field: "span_name", Operator: warehouse.OpNotIn, Values: []string{"chat"}}, []string{"s2"}},
		{[]string{"prod"}, warehouse.Filter{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}, []string{"s1", "s2"}},
		{[]string{"prod"}, warehouse.Filter{Field: "user.id", Operator: warehouse.OpExists}, []string{"s1", "s2"}},
		{[]string{"prod"}, warehouse.Filter{Field: "llm.vendor", Operator: warehouse.OpNotExists}, []string{"s2", "s9"}},
	} {
		for _, sort := range []warehouse.SortKey{warehouse.SortTimestamp, warehouse.SortDuration, warehouse.SortSpanName} {
			page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: tc.envs, SortBy: sort,
				Filters: []warehouse.Filter{tc.f}})
			var got []string
			for _, sp := range page.Spans {
				got = append(got, sp.SpanID)
			}
			slices.Sort(got)
			if err != nil || !slices.Equal(got, tc.want) || page.TotalResults != int64(len(tc.want)) {
				t.Errorf("%v in %v sorted by %s: %v (total %d), %v; want %v", tc.f, tc.envs, sort, got,
					page.TotalResults, err, tc.want)
			}
		}
	}
	var maxSeq int64
	if err := st.reader.QueryRowContext(ctx, `SELECT max(seq) FROM spans`).Scan(&maxSeq); err != nil || maxSeq != 4 {
		t.Errorf("max seq %d, %v; want 4", maxSeq, err)
	}
}

// loadSQL runs the statements of the SQL file src in a new database at
// path.
func loadSQL(t *testing.T, path, src string) {
	t.Helper()
	script, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatalf("load %s: %v", src, err)
	}
}

// TestNewMigrationRunsOnce adds a migration file to the embedded ones: an
// existing database applies it once, records it under its file name, and
// applies nothing on the next start.
func TestNewMigrationRunsOnce(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	fsys := fstest.MapFS{}
	if err := fs.WalkDir(migrations, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations, p)
		fsys[p] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const next = 9000
	fsys["09000_extra.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE extra (x INTEGER);\nINSERT INTO extra VALUES (1);\n")}
	for i, want := range [][]int64{{next}, {}} {
		applied, err := applyMigrations(ctx, st.writer, fsys)
		if err != nil || !slices.Equal(applied, want) {
			t.Fatalf("run %d: applied %v, %v; want %v", i, applied, err, want)
		}
	}
	var n int
	var name string
	if err := st.writer.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM extra), name FROM schema_migrations WHERE version = ?`, next).Scan(&n, &name); err != nil || n != 1 || name != "09000_extra" {
		t.Errorf("extra rows %d, recorded as %q, %v; want 1 row, 09000_extra", n, name, err)
	}
	// A failing step names its file and leaves neither its changes nor a
	// schema_migrations row behind.
	fsys["09001_broken.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\nCREATE TABLE half (x INTEGER);\nCREATE TABLE extra (x INTEGER);\n")}
	_, err := applyMigrations(ctx, st.writer, fsys)
	if err == nil || !strings.Contains(err.Error(), "09001_broken.sql") {
		t.Fatalf("broken migration: %v, want an error naming 09001_broken.sql", err)
	}
	if err := st.writer.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'half'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the failed step left table half behind (%d, %v)", n, err)
	}
	if v, err := st.SchemaVersion(ctx); err != nil || v != next {
		t.Errorf("schema version %d, %v after the failed step; want %d", v, err, next)
	}
}
