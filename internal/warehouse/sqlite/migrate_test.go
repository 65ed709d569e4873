package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
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

// v010Dump is testdata/v0.1.0.sql: a store v0.1.0 wrote.
func v010Dump(t *testing.T) string {
	t.Helper()
	dump, err := os.ReadFile(filepath.Join("testdata", "v0.1.0.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return string(dump)
}

// execOn runs SQL statements on the database file at path (created when
// missing), outside a store.
func execOn(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%.80s: %v", stmt, err)
		}
	}
}

// TestUpgradeFromV010 opens a store that v0.1.0 wrote
// (testdata/v0.1.0.sql: its file as sqlite3 .dump printed it; three
// spans, a metric point and a document) with this build: every later
// migration runs on it, everything reads back as written, the trace
// stats (00002) are filled from its spans, the full-text index merges
// 16 segments at a time (00003), and writes carry on.
func TestUpgradeFromV010(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warehouse.db")
	execOn(t, path, v010Dump(t))
	st, err := Open(ctx, path, Options{Prices: storetest.Prices(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v; want %d", v, err, latestVersion(t))
	}
	ids := func(q warehouse.SpanQuery) []string {
		t.Helper()
		page, err := st.QuerySpans(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		var out []string
		for _, sp := range page.Spans {
			out = append(out, sp.SpanID)
		}
		return out
	}
	for _, c := range []struct {
		q    warehouse.SpanQuery
		want []string
	}{
		{warehouse.SpanQuery{Environments: []string{"prod", "dev"}}, []string{"s1", "s2", "s3"}},
		{warehouse.SpanQuery{Environments: []string{"prod"}, Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}}}, []string{"s1"}},
		{warehouse.SpanQuery{Environments: []string{"prod"}, Filters: []warehouse.Filter{{Field: "tier", Operator: warehouse.OpStartsWith, Value: "gold"}}}, []string{"s1"}},
		{warehouse.SpanQuery{Environments: []string{"prod"}, SortBy: warehouse.SortDuration, Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpExists}}}, []string{"s2", "s1"}},
		{warehouse.SpanQuery{Environments: []string{"dev"}, Text: "question"}, []string{"s3"}},
		{warehouse.SpanQuery{Environments: []string{"prod"}, Text: "hello"}, []string{"s1"}},
	} {
		if got := ids(c.q); !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.q, got, c.want)
		}
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"}, Filters: []warehouse.Filter{
		{Field: "span_id", Operator: warehouse.OpEquals, Value: "s1"}}})
	if err != nil || len(page.Spans) != 1 {
		t.Fatalf("s1: %+v, %v", page.Spans, err)
	}
	s1 := page.Spans[0]
	if s1.SpanAttributes["tier"] != "gold-1" || s1.Prompts["llm.prompts.0.content"]+s1.Prompts["0.content"] != "hello" ||
		len(s1.Evaluations) != 1 || s1.Evaluations[0].Name != "toxicity" || s1.TotalTokens != 42 {
		t.Errorf("s1 read back as %+v", s1)
	}
	mp, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"prod"}})
	if err != nil || mp.TotalPoints != 1 {
		t.Errorf("metric points: %+v, %v; want the one written", mp, err)
	}
	doc, err := st.GetDocument(ctx, "dataset", "org/proj", "golden")
	if err != nil || string(doc.Body) != `{"rows":1}` {
		t.Errorf("document: %+v, %v", doc, err)
	}
	// 00002 filled the trace stats from the spans (cost 0: not priced).
	traces, err := st.QueryTraces(ctx, warehouse.TraceQuery{Environments: []string{"prod"}, SortBy: warehouse.TraceSortLatency, Desc: true})
	if err != nil || traces.Total != 1 || len(traces.Traces) != 1 || traces.Traces[0].TraceID != "t1" || traces.Traces[0].SpanCount != 2 {
		t.Fatalf("prod's traces by latency: %+v, %v; want t1 of 2 spans, counted", traces, err)
	}

	// 00003: the full-text index merges 16 segments at a time.
	var automerge int
	if err := st.writer.QueryRowContext(ctx, "SELECT v FROM span_text_config WHERE k = 'automerge'").Scan(&automerge); err != nil || automerge != 16 {
		t.Errorf("span_text automerge %d, %v; want 16", automerge, err)
	}

	// Writes carry on: a resent span is a duplicate, the same one with
	// other content a conflict; a new priced span of t1 adds its cost.
	resent := warehouse.Span{Environment: "dev", TraceID: "t2", SpanID: "s3", Timestamp: 1_767_225_602_000, SpanName: "chat", Input: "question", Output: "answer"}
	changed := resent
	changed.Output = "other"
	rep, err := st.WriteSpansReport(ctx, []warehouse.Span{resent, changed})
	if err != nil || !slices.Equal(rep.Conflicts, []int{1}) {
		t.Errorf("resent spans: %+v, %v; want a conflict of the second", rep, err)
	}
	if got := ids(warehouse.SpanQuery{Environments: []string{"dev"}}); !slices.Equal(got, []string{"s3"}) {
		t.Errorf("dev after resending: %v", got)
	}
	more := warehouse.Span{Environment: "prod", TraceID: "t1", SpanID: "s4", ParentSpanID: "s1", Timestamp: 1_767_225_601_500,
		Duration: 2000, SpanName: "chat", ResponseModel: "gpt-4o", TotalTokens: 1500,
		SpanAttributes: map[string]string{"gen_ai.usage.input_tokens": "1000", "gen_ai.usage.output_tokens": "500"}}
	if err := st.WriteSpans(ctx, []warehouse.Span{more}); err != nil {
		t.Fatal(err)
	}
	rows, err := st.ReadTraceStats(ctx, warehouse.TraceStatRead{Environments: []string{"prod"}, SortBy: warehouse.TraceSortCost, Limit: 5})
	if err != nil || len(rows) != 1 || rows[0].Spans != 3 || rows[0].Tokens != 1542 || rows[0].CostUSD <= 0 || rows[0].LatencyMs() != 3500 {
		t.Errorf("t1's stats after a new span: %+v, %v; want 3 spans, 1542 tokens, a cost, 3 500 ms", rows, err)
	}
}

// preRelease creates at path a store as a pre-release build left it at
// schema version: v0.1.0's (testdata/v0.1.0.sql, with its data) plus the
// pre-release-only tables (empty, their marks as a new store set them)
// and schema_migrations rows 1..version under their old names.
func preRelease(t *testing.T, path string, version int) {
	t.Helper()
	stmts := []string{v010Dump(t),
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
	}
	for v := 1; v <= version; v++ {
		name := fmt.Sprintf("%05d_step", v)
		if v == 1 {
			name = preReleaseFirst
		}
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO schema_migrations (version, name) VALUES (%d, '%s')`, v, name))
	}
	execOn(t, path, stmts...)
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
	// Adopted as version 1, then migrated as a v0.1.0 store.
	files, err := fs.Glob(migrations, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, f := range files {
		want = append(want, fmt.Sprintf("%d %s", i+1, strings.TrimSuffix(f, ".sql")))
	}
	if want[0] != "1 "+v010Name || !slices.Equal(rows, want) {
		t.Errorf("schema_migrations %q; want %q", rows, want)
	}
	if got, want := schemaOf(t, path), schemaOf(t, fresh); !reflect.DeepEqual(got, want) {
		t.Errorf("adopted schema differs from a new store's:\n%v\nwant\n%v", got, want)
	}
	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"prod"},
		Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}}})
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
		{"points before point postings", preReleaseVersion, `UPDATE point_postings_from SET min_ts = 0, max_ts = 9000000000000`},
		{"span keys without content", preReleaseVersion, `UPDATE span_keys_by_time SET content = NULL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "warehouse.db")
			preRelease(t, path, tc.version)
			if tc.stmt != "" {
				execOn(t, path, tc.stmt)
			}
			before := schemaOf(t, path)
			st, err := Open(ctx, path, Options{})
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
