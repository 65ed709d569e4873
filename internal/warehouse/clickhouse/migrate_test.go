package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/migrate"
)

// latestVersion is the highest version among the migration files.
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
	return int(v)
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

// preRelease makes the database of st look as a pre-release build left it
// at version: schema_migrations rows 1..version under their old names.
func preRelease(t *testing.T, st *Store, version int) {
	t.Helper()
	setVersions(t, st, version, func(v int) string {
		if v == 1 {
			return "spans"
		}
		return fmt.Sprintf("%05d_step", v)
	})
}

// setVersions makes schema_migrations of st's database rows 1..version,
// named by name.
func setVersions(t *testing.T, st *Store, version int, name func(int) string) {
	t.Helper()
	ctx := context.Background()
	tbl := st.schema.table("schema_migrations")
	if err := st.conn.Exec(ctx, "DROP TABLE "+tbl); err != nil {
		t.Fatal(err)
	}
	table, err := st.schema.versionTable()
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range table.Create {
		if err := st.conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for v := 1; v <= version; v++ {
		if err := st.conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (version, name) SELECT %d, '%s'", tbl, v, name(v))); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpgradeFromV010 opens a database as v0.1.0 left it with this build:
// every later migration runs on it and its data reads back. v0.1.0's
// writer is this one without the tables of later migrations, so the
// database is this build's after writes, those tables dropped and
// schema_migrations set back to version 1. Today that is 00002: the trace
// stats, filled from the stored spans.
func TestUpgradeFromV010(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	db := st.opts.Database
	var spans []warehouse.Span
	for i := range 12 {
		sp := warehouse.Span{Environment: "prod", TraceID: fmt.Sprintf("t%02d", i%4), SpanID: fmt.Sprintf("s%02d", i),
			Timestamp: 1_767_225_600_000 + int64(i)*1000, Duration: int64(10 * (i + 1)), TotalTokens: int64(i),
			SpanAttributes: map[string]string{"user.id": fmt.Sprintf("u%d", i%3)}}
		spans = append(spans, sp)
	}
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if err := st.conn.Exec(ctx, "DROP TABLE "+st.schema.table("trace_stats")); err != nil {
		t.Fatal(err)
	}
	setVersions(t, st, 1, func(int) string { return v010Name })
	st.Close()

	st, err := Open(ctx, Options{Addr: addr, Database: db})
	if err != nil {
		t.Fatalf("open the v0.1.0 database: %v", err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v; want %d", v, err, latestVersion(t))
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}, Limit: 100,
		Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}}})
	if err != nil || page.TotalResults != 4 {
		t.Errorf("spans of u1 after the upgrade: %d, %v; want 4", page.TotalResults, err)
	}
	rows, err := st.ReadTraceStats(ctx, warehouse.TraceStatRead{Environments: []string{"prod"}, SortBy: warehouse.TraceSortTokens,
		Desc: true, Limit: 10})
	if err != nil || len(rows) != 4 {
		t.Fatalf("trace stats after the upgrade: %+v, %v; want the 4 traces", rows, err)
	}
	// t03 holds spans 3, 7 and 11: tokens 21, from 3 s to 11 s + 120 ms.
	if r := rows[0]; r.TraceID != "t03" || r.Spans != 3 || r.Tokens != 21 || r.LatencyMs() != 8120 {
		t.Errorf("the trace with most tokens: %+v; want t03, 3 spans, 21 tokens, 8 120 ms", r)
	}
}

// TestAdoptPreRelease: a database a pre-release build left at its last
// version (15) opens as a v0.1.0 one (schema_migrations: version 1), its
// spans kept; one at an older version, or with spans stored without a
// content hash, is refused with an error naming the database, the version
// and what to do.
func TestAdoptPreRelease(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	db := st.opts.Database
	if err := st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", TraceID: "t1", SpanID: "s1", Timestamp: 5000}}); err != nil {
		t.Fatal(err)
	}
	preRelease(t, st, 7)
	if _, err := Open(ctx, Options{Addr: addr, Database: db}); err == nil || !errors.Is(err, ErrPreRelease) ||
		!strings.Contains(err.Error(), db) || !strings.Contains(err.Error(), "schema 7") {
		t.Errorf("open at pre-release schema 7: %v; want ErrPreRelease naming %s and schema 7", err, db)
	}
	preRelease(t, st, preReleaseVersion)
	if err := st.conn.Exec(ctx, "INSERT INTO "+st.schema.table("spans")+
		" (environment, timestamp, trace_id, span_id, content_hash) SELECT 'e', 6000, 't2', 's2', 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{Addr: addr, Database: db}); err == nil || !errors.Is(err, ErrPreRelease) {
		t.Errorf("open with spans without content hash: %v; want ErrPreRelease", err)
	}
	if err := st.conn.Exec(ctx, "ALTER TABLE "+st.schema.table("spans")+" DROP PARTITION 0"); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", TraceID: "t1", SpanID: "s1", Timestamp: 5000}}); err != nil {
		t.Fatal(err)
	}
	// A pre-release database has no table of a later migration.
	if err := st.conn.Exec(ctx, "DROP TABLE "+st.schema.table("trace_stats")); err != nil {
		t.Fatal(err)
	}
	st.Close()

	core, logs := observer.New(zap.InfoLevel)
	adopted, err := Open(ctx, Options{Addr: addr, Database: db, Logger: zap.New(core)})
	if err != nil {
		t.Fatalf("open the pre-release database: %v", err)
	}
	defer adopted.Close()
	if logs.FilterMessageSnippet("adopted").Len() != 1 {
		t.Errorf("logs %v; want the adoption at info", logs.All())
	}
	// Adopted as version 1, then migrated as a v0.1.0 database.
	var n uint64
	if err := adopted.conn.QueryRow(ctx, "SELECT count() FROM "+adopted.schema.table("schema_migrations")).Scan(&n); err != nil || int(n) != latestVersion(t) {
		t.Errorf("schema_migrations rows %d, %v; want %d", n, err, latestVersion(t))
	}
	traces, err := adopted.QueryTraces(ctx, warehouse.TraceQuery{Environments: []string{"e"}, SortBy: warehouse.TraceSortLatency})
	if err != nil || traces.Total != 1 || len(traces.Traces) != 1 {
		t.Errorf("traces after adoption: %+v, %v; want t1, its stats filled", traces, err)
	}
	if v, err := adopted.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v; want %d", v, err, latestVersion(t))
	}
	page, err := adopted.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}})
	if err != nil || len(page.Spans) != 1 {
		t.Errorf("spans after adoption: %+v, %v; want s1", page.Spans, err)
	}
}
