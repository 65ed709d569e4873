package clickhouse

import (
	"context"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/migrate"
)

// latestVersion is the highest version among the migration files and the
// Go migrations.
func latestVersion(t testing.TB) int {
	t.Helper()
	sub, err := fs.Sub(schemaFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	v, err := migrate.Latest(sub)
	if err != nil {
		t.Fatal(err)
	}
	return max(int(v), latestGoMigration)
}

// TestUpgradeFromPreviousSchema loads a database written by the code
// before the DDL moved to .sql files (testdata/schema_v4.sql: its tables,
// schema_migrations versions 1-4 and rows of every table), opens it with
// the current code and reads everything back.
func TestUpgradeFromPreviousSchema(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr) // only for its connection and a fresh database name
	db := st.opts.Database + "_previous"
	t.Cleanup(func() { dropDatabase(t, addr, db) })
	script, err := os.ReadFile("testdata/schema_v4.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.conn.Exec(ctx, "CREATE DATABASE `"+db+"`"); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(strings.ReplaceAll(string(script), "evalcol_previous", "`"+db+"`"), ";\n") {
		if stmt = strings.TrimSpace(stripComments(stmt)); stmt != "" {
			if err := st.conn.Exec(ctx, stmt); err != nil {
				t.Fatalf("load %.80s: %v", stmt, err)
			}
		}
	}
	st.Close()

	old, err := Open(ctx, Options{Addr: addr, Database: db})
	if err != nil {
		t.Fatalf("Open on the previous schema: %v", err)
	}
	defer old.Close()
	if v, err := old.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v; want %d", v, err, latestVersion(t))
	}
	var names []string
	rows, err := old.conn.Query(ctx, "SELECT name FROM "+old.schema.table("schema_migrations")+" ORDER BY version")
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
	if len(names) < 4 || !slices.Equal(names[:4], []string{"spans", "metric_points", "monitor_setups", "span_traces"}) {
		t.Errorf("schema_migrations names %q", names)
	}

	page, err := old.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Spans) != 2 || page.TotalResults != 2 {
		t.Fatalf("prod spans: %d (total %d), want 2", len(page.Spans), page.TotalResults)
	}
	s1 := page.Spans[0]
	if s1.SpanID != "s1" || s1.SpanAttributes["user.id"] != "u1" || s1.ResourceAttributes["service.name"] != "svc" ||
		s1.Prompts["0.content"] != "hello" || s1.Completions["0.content"] != "hi 'there'" || s1.TotalTokens != 42 ||
		s1.ResponseModel != "gpt-4o-2024" || len(s1.Evaluations) != 1 || s1.Evaluations[0].ScoreLabel != "safe" {
		t.Errorf("span s1 read back as %+v", s1)
	}
	// The trace index written by the old code still narrows trace queries.
	page, err = old.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"},
		Filters: []warehouse.Filter{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}}})
	if err != nil || len(page.Spans) != 2 {
		t.Errorf("trace t1: %+v, %v; want 2 spans", page.Spans, err)
	}
	mp, err := old.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"prod"}})
	if err != nil || mp.TotalResults != 3 {
		t.Errorf("metric points: %+v, %v; want 3", mp, err)
	}
	setup, err := old.GetSetup(ctx, "prod", "setup-1")
	if err != nil || setup.ExternalID != "ext-1" || len(setup.Evaluators) != 1 {
		t.Errorf("setup-1: %+v, %v", setup, err)
	}
	if err := old.WriteSpans(ctx, []warehouse.Span{{Environment: "prod", TraceID: "t9", SpanID: "s9", Timestamp: 1_767_225_603_000}}); err != nil {
		t.Fatal(err)
	}
	page, err = old.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}})
	if err != nil || len(page.Spans) != 3 || page.Spans[2].SpanID != "s9" {
		t.Errorf("after writing: %+v, %v; want s1, s2, s9", page.Spans, err)
	}
}

// TestNewMigrationRunsOnce adds a migration file to the embedded ones: an
// existing database applies it once, records it under its file name, and
// applies nothing on the next start.
func TestNewMigrationRunsOnce(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	defer st.Close()
	files := fstest.MapFS{}
	if err := fs.WalkDir(schemaFiles, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(schemaFiles, p)
		files[p] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	const next = 9000
	files["migrations/09000_extra.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\n-- +goose NO TRANSACTION\n" +
		"CREATE TABLE IF NOT EXISTS {{table \"extra\"}} (x UInt8) ENGINE = {{engine \"MergeTree\" \"extra\" \"\"}} ORDER BY x;\n" +
		"{{distributed \"extra\" \"x\"}}\n")}
	for i, want := range [][]int64{{next}, {}} {
		applied, err := st.applyMigrations(ctx, files)
		if err != nil || !slices.Equal(applied, want) {
			t.Fatalf("run %d: applied %v, %v; want %v", i, applied, err, want)
		}
	}
	var name string
	if err := st.conn.QueryRow(ctx, "SELECT name FROM "+st.schema.table("schema_migrations")+" WHERE version = ?", uint32(next)).Scan(&name); err != nil || name != "09000_extra" {
		t.Errorf("recorded as %q, %v; want 09000_extra", name, err)
	}
	var n uint64
	if err := st.conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = ? AND name = 'extra'", st.opts.Database).Scan(&n); err != nil || n != 1 {
		t.Errorf("table extra: %d, %v", n, err)
	}
	// A failing step names its file and is not recorded.
	files["migrations/09001_broken.sql"] = &fstest.MapFile{Data: []byte("-- +goose Up\n-- +goose NO TRANSACTION\nSELECT no_such_function();\n")}
	if _, err := st.applyMigrations(ctx, files); err == nil || !strings.Contains(err.Error(), "09001_broken.sql") {
		t.Fatalf("broken migration: %v, want an error naming 09001_broken.sql", err)
	}
	if v, err := st.SchemaVersion(ctx); err != nil || v != next {
		t.Errorf("schema version %d, %v after the failed step; want %d", v, err, next)
	}
}
