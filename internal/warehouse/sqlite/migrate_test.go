package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
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
func latestVersion(t *testing.T) int {
	t.Helper()
	v, err := migrate.Latest(migrations)
	if err != nil {
		t.Fatal(err)
	}
	return int(v)
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

// v010Migrations is the schema of v0.1.0: the embedded migrations up to
// version 1 (00001_v0_1_0.sql, which is never edited).
func v010Migrations(t *testing.T) fs.FS {
	t.Helper()
	fsys := fstest.MapFS{}
	files, err := fs.Glob(migrations, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasPrefix(f, "00001_") {
			continue
		}
		b, err := fs.ReadFile(migrations, f)
		if err != nil {
			t.Fatal(err)
		}
		fsys[f] = &fstest.MapFile{Data: b}
	}
	if len(fsys) != 1 {
		t.Fatalf("v0.1.0's migration: %d files", len(fsys))
	}
	return fsys
}

// TestUpgradeFromV010 writes spans, points and documents into a store at
// v0.1.0's schema (version 1 alone), then opens it with every migration of
// this build: the later migrations run, and everything reads back as it
// did. With 00001 the only file today, it passes trivially; every later
// migration (00002_... on) runs in it. Should a later migration leave this
// build's writer unable to write at version 1, write the data here with
// SQL as v0.1.0 stored it instead.
func TestUpgradeFromV010(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warehouse.db")
	st, err := Open(ctx, path, Options{migrations: v010Migrations(t)})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := st.SchemaVersion(ctx); err != nil || v != 1 {
		t.Fatalf("v0.1.0 store at schema %d, %v; want 1", v, err)
	}
	spans := []warehouse.Span{
		{Environment: "prod", TraceID: "t1", SpanID: "s1", Timestamp: 1_767_225_600_000, Duration: 1200, SpanName: "chat",
			ServiceName: "svc", WorkflowName: "wf", ResponseModel: "gpt-4o", TotalTokens: 42,
			SpanAttributes: map[string]string{"user.id": "u1", "tier": "gold-1"}, ResourceAttributes: map[string]string{"service.name": "svc"},
			Prompts: map[string]string{"0.role": "user", "0.content": "hello"}, Completions: map[string]string{"0.content": "hi there"},
			Evaluations: []warehouse.Evaluation{{Name: "toxicity", ScoreLabel: "safe", ScoreValue: 1}}},
		{Environment: "prod", TraceID: "t1", SpanID: "s2", ParentSpanID: "s1", Timestamp: 1_767_225_601_000, Duration: 30,
			SpanName: "tool", ServiceName: "svc", StatusCode: "ERROR", SpanAttributes: map[string]string{"user.id": "u2"}},
		{Environment: "dev", TraceID: "t2", SpanID: "s3", Timestamp: 1_767_225_602_000, SpanName: "chat", Input: "question", Output: "answer"},
	}
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	score := 0.75
	if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{
		{Environment: "prod", MetricName: "relevance", Source: warehouse.SourceEvaluator, EventTime: 1_767_225_600_500,
			NumericValue: &score, TraceID: "t1", SpanID: "s1", Labels: map[string]string{"model": "gpt-4o"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateDocument(ctx, warehouse.Document{Kind: "dataset", Scope: "org/proj", ID: "d1", Slug: "golden",
		Body: []byte(`{"rows":1}`)}); err != nil {
		t.Fatal(err)
	}
	read := func(st *Store) []any {
		t.Helper()
		var out []any
		for _, q := range []warehouse.SpanQuery{
			{Environments: []string{"prod", "dev"}},
			{Environments: []string{"prod"}, Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}}},
			{Environments: []string{"prod"}, Filters: []warehouse.Filter{{Field: "tier", Operator: warehouse.OpStartsWith, Value: "gold"}}},
			{Environments: []string{"prod"}, SortBy: warehouse.SortDuration, Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpExists}}},
			{Environments: []string{"dev"}, Text: "question"},
		} {
			page, err := st.QuerySpans(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, page.Spans, page.TotalResults)
		}
		mp, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"prod"}})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := st.GetDocument(ctx, "dataset", "org/proj", "golden")
		if err != nil {
			t.Fatal(err)
		}
		return append(out, mp, doc)
	}
	before := read(st)
	if n := before[1].(int64); n != 3 {
		t.Fatalf("v0.1.0 store: %d spans, want 3", n)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v; want %d", v, err, latestVersion(t))
	}
	if after := read(st); !reflect.DeepEqual(after, before) {
		t.Errorf("read back after the upgrade:\n%+v\nwant\n%+v", after, before)
	}
	// Writes carry on: a resent span is a duplicate, the same one with
	// other content a conflict.
	changed := spans[0]
	changed.Output = "other"
	rep, err := st.WriteSpansReport(ctx, []warehouse.Span{spans[0], changed})
	if err != nil || !slices.Equal(rep.Conflicts, []int{1}) {
		t.Errorf("resent spans: %+v, %v; want a conflict of the second", rep, err)
	}
	if after := read(st); !reflect.DeepEqual(after, before) {
		t.Errorf("read back after resending:\n%+v\nwant\n%+v", after, before)
	}
}

// preRelease makes the store at path look as a pre-release build left it
// at schema version: v0.1.0's schema plus the pre-release-only tables
// (empty, their marks as a new store set them) and schema_migrations rows
// 1..version under their old names.
func preRelease(t *testing.T, path string, version int) {
	t.Helper()
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE span_attr_index (hour INTEGER NOT NULL, hash INTEGER NOT NULL, base INTEGER NOT NULL,
			offsets TEXT NOT NULL, PRIMARY KEY (hour, hash, base)) WITHOUT ROWID`,
		`CREATE TABLE span_keys (key INTEGER PRIMARY KEY)`,
		`CREATE TABLE point_keys (key INTEGER PRIMARY KEY)`,
		`CREATE TABLE legacy_keys (tbl TEXT PRIMARY KEY, max_ts INTEGER)`,
		`INSERT INTO legacy_keys VALUES ('span_keys', NULL), ('point_keys', NULL)`,
		`CREATE TABLE legacy_attr_index (max_hour INTEGER)`,
		`INSERT INTO legacy_attr_index VALUES (NULL)`,
		`CREATE TABLE key_postings_from (first_seq INTEGER NOT NULL)`,
		`INSERT INTO key_postings_from VALUES (1)`,
		`CREATE TABLE span_values_from (first_seq INTEGER NOT NULL)`,
		`INSERT INTO span_values_from VALUES (1)`,
		`CREATE TABLE resource_postings_from (first_seq INTEGER NOT NULL)`,
		`INSERT INTO resource_postings_from VALUES (1)`,
		`CREATE TABLE point_postings_from (min_ts INTEGER, max_ts INTEGER)`,
		`INSERT INTO point_postings_from VALUES (NULL, NULL)`,
		`DELETE FROM schema_migrations`,
	} {
		if _, err := st.writer.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for v := 1; v <= version; v++ {
		name := fmt.Sprintf("%05d_step", v)
		if v == 1 {
			name = preReleaseFirst
		}
		if _, err := st.writer.Exec(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, v, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// schemaOf returns the objects of the store at path, their SQL without
// whitespace and quotes (an ALTER TABLE or a quoted name spells the same
// table otherwise), by name.
func schemaOf(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, coalesce(sql, '') FROM sqlite_master`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, ddl string
		if err := rows.Scan(&name, &ddl); err != nil {
			t.Fatal(err)
		}
		out[name] = strings.NewReplacer(`"`, "", "'", "").Replace(strings.Join(strings.Fields(ddl), ""))
	}
	return out
}

// TestAdoptPreRelease: a store a pre-release build left at its last
// schema (31), with nothing written before its migrations, opens as a
// v0.1.0 store: the pre-release-only tables dropped, schema_migrations
// one row of version 1, the data kept.
func TestAdoptPreRelease(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.db")
	st, err := Open(ctx, fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	path := filepath.Join(dir, "warehouse.db")
	st, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp := warehouse.Span{Environment: "e", TraceID: "t1", SpanID: "s1", Timestamp: 5000, SpanAttributes: map[string]string{"k": "v"}}
	if err := st.WriteSpans(ctx, []warehouse.Span{sp}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	preRelease(t, path, preReleaseVersion)

	core, logs := observer.New(zap.InfoLevel)
	st, err = Open(ctx, path, Options{Logger: zap.New(core)})
	if err != nil {
		t.Fatalf("open the pre-release store: %v", err)
	}
	defer st.Close()
	if logs.FilterMessageSnippet("adopted").Len() != 1 {
		t.Errorf("logs %v; want the adoption at info", logs.All())
	}
	var rows []string
	r, err := st.writer.QueryContext(ctx, `SELECT version || ' ' || name FROM schema_migrations`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var s string
		r.Scan(&s)
		rows = append(rows, s)
	}
	r.Close()
	if want := []string{"1 " + v010Name}; !slices.Equal(rows, want) {
		t.Errorf("schema_migrations %q; want %q", rows, want)
	}
	if got, want := schemaOf(t, path), schemaOf(t, fresh); !reflect.DeepEqual(got, want) {
		t.Errorf("adopted schema differs from a new store's:\n%v\nwant\n%v", got, want)
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"},
		Filters: []warehouse.Filter{{Field: "k", Operator: warehouse.OpEquals, Value: "v"}}})
	if err != nil || len(page.Spans) != 1 || page.Spans[0].SpanID != "s1" {
		t.Errorf("span after adoption: %+v, %v", page.Spans, err)
	}
}

// TestRefusePreRelease: a pre-release store at an older schema, or at the
// last one with data written before one of its migrations, is not opened;
// the error names the file, the version and what to do, and the file is
// left as it was.
func TestRefusePreRelease(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		version int
		stmt    string
	}{
		{"schema 17", 17, ""},
		{"old dedup keys", preReleaseVersion, `INSERT INTO span_keys VALUES (42)`},
		{"old attribute index", preReleaseVersion, `INSERT INTO span_attr_index VALUES (1, 2, 3, '[0]')`},
		{"spans before key postings", preReleaseVersion, `UPDATE key_postings_from SET first_seq = 100`},
		{"points before point postings", preReleaseVersion, `UPDATE point_postings_from SET min_ts = 0, max_ts = 10000`},
		{"span keys without content", preReleaseVersion, `UPDATE span_keys_by_time SET content = NULL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "warehouse.db")
			st, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			score := 1.0
			if err := st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", TraceID: "t", SpanID: "s", Timestamp: 5000}}); err != nil {
				t.Fatal(err)
			}
			if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{{Environment: "e", MetricName: "m", EventTime: 5000,
				NumericValue: &score}}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			preRelease(t, path, tc.version)
			if tc.stmt != "" {
				db, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				_, err = db.Exec(tc.stmt)
				db.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			before := schemaOf(t, path)
			st, err = Open(ctx, path, Options{})
			if err == nil {
				st.Close()
				t.Fatal("opened a pre-release store it cannot adopt")
			}
			msg := err.Error()
			if !errors.Is(err, ErrPreRelease) || !strings.Contains(msg, path) ||
				!strings.Contains(msg, fmt.Sprintf("schema %d", tc.version)) || !strings.Contains(msg, "move the file away") {
				t.Errorf("error %q; want ErrPreRelease naming %s, schema %d and what to do", msg, path, tc.version)
			}
			if after := schemaOf(t, path); !reflect.DeepEqual(after, before) {
				t.Error("the refused store was changed")
			}
		})
	}
}
