package clickhouse

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
	"text/template"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/pressly/goose/v3"

	"github.com/evalcol/evalcol/internal/warehouse/migrate"
)

// schema renders table names and DDL for one database, on one server or
// on a cluster.
type schema struct {
	db      string
	cluster string
}

func newSchema(db, cluster string) schema { return schema{db: db, cluster: cluster} }

// table is the qualified name queries and inserts use: on a cluster, the
// Distributed table in front of the shards.
func (sc schema) table(name string) string { return "`" + sc.db + "`." + name }

// onCluster is the ON CLUSTER clause of DDL ("" on one server).
func (sc schema) onCluster() string {
	if sc.cluster == "" {
		return ""
	}
	return " ON CLUSTER " + sc.cluster
}

// The schema, one goose .sql file per version (migrations/NNNNN_name.sql),
// and the DDL of schema_migrations. A new table or column is a new file
// with the next number; a file that has run is never edited. Every
// statement is idempotent (IF NOT EXISTS), so collectors starting at the
// same time may run the same step twice without harm.
//
// The files are text/template templates, so that one file serves one
// server and a cluster:
//
//	{{table "spans"}}                      the table to create: `db`.spans, or `db`.spans_local ON CLUSTER c
//	{{engine "ReplacingMergeTree" "spans" "ver"}}  ReplacingMergeTree(ver), or its Replicated form on the cluster
//	{{distributed "spans" "<shard key>"}}  nothing, or the CREATE of the Distributed spans in front of spans_local
//
//go:embed migrations/*.sql version_table.sql
var schemaFiles embed.FS

// render executes the template text for sc.
func (sc schema) render(name, text string) (string, error) {
	local := func(t string) string {
		if sc.cluster == "" {
			return t
		}
		return t + "_local"
	}
	funcs := template.FuncMap{
		"table": func(t string) string { return sc.table(local(t)) + sc.onCluster() },
		"engine": func(family, t, version string) string {
			if sc.cluster == "" {
				return family + "(" + version + ")"
			}
			args := fmt.Sprintf("'/clickhouse/tables/{shard}/%s/%s', '{replica}'", sc.db, t)
			if version != "" {
				args += ", " + version
			}
			return "Replicated" + family + "(" + args + ")"
		},
		"distributed": func(t, shardKey string) string {
			if sc.cluster == "" {
				return ""
			}
			return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s%s AS %s ENGINE = Distributed(%s, %s, %s, %s);",
				sc.table(t), sc.onCluster(), sc.table(local(t)), sc.cluster, sc.db, local(t), shardKey)
		},
	}
	tmpl, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", fmt.Errorf("schema file %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, nil); err != nil {
		return "", fmt.Errorf("schema file %s: %w", name, err)
	}
	return b.String(), nil
}

// migrations returns the migration files rendered for sc.
func (sc schema) migrations(files fs.FS) (fs.FS, error) {
	names, err := fs.Glob(files, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	out := fstest.MapFS{} // an in-memory fs.FS (the package does not need "testing")
	for _, name := range names {
		text, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		sql, err := sc.render(name, string(text))
		if err != nil {
			return nil, err
		}
		out[path.Base(name)] = &fstest.MapFile{Data: []byte(sql)}
	}
	return out, nil
}

// versionTable is schema_migrations for sc.
func (sc schema) versionTable() (migrate.Table, error) {
	text, err := fs.ReadFile(schemaFiles, "version_table.sql")
	if err != nil {
		return migrate.Table{}, err
	}
	ddl, err := sc.render("version_table.sql", string(text))
	if err != nil {
		return migrate.Table{}, err
	}
	var create []string
	for _, stmt := range strings.Split(stripComments(ddl), ";") {
		if s := strings.TrimSpace(stmt); s != "" {
			create = append(create, s)
		}
	}
	t := sc.table("schema_migrations")
	return migrate.Table{
		Create: create,
		// sc.db is an identifier (Options.validate), safe in SQL text.
		Exists:   "SELECT count() FROM system.tables WHERE database = '" + sc.db + "' AND name = 'schema_migrations'",
		Insert:   "INSERT INTO " + t + " (version, name) SELECT ?, ?",
		Delete:   "ALTER TABLE " + t + " DELETE WHERE version = ?",
		Versions: "SELECT DISTINCT version FROM " + t,
	}, nil
}

// stripComments drops the "--" comment lines of SQL text.
func stripComments(stmt string) string {
	var b strings.Builder
	for _, line := range strings.Split(stmt, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// migrate creates the database and applies the migrations not yet
// recorded in schema_migrations, through a database/sql connection (goose
// needs one) on the native protocol.
func (s *Store) migrate(ctx context.Context) error {
	_, err := s.applyMigrations(ctx, schemaFiles)
	return err
}

// applyMigrations applies the migrations of files (the store passes
// schemaFiles, tests their own) and returns the versions it applied.
func (s *Store) applyMigrations(ctx context.Context, files fs.FS) ([]int64, error) {
	sc := s.schema
	if err := s.conn.Exec(ctx, "CREATE DATABASE IF NOT EXISTS `"+sc.db+"`"+sc.onCluster()); err != nil {
		return nil, fmt.Errorf("create database %s: %w", sc.db, err)
	}
	rendered, err := sc.migrations(files)
	if err != nil {
		return nil, err
	}
	table, err := sc.versionTable()
	if err != nil {
		return nil, err
	}
	db := ch.OpenDB(&ch.Options{
		Addr:             strings.Split(s.opts.Addr, ","),
		Auth:             ch.Auth{Username: s.opts.Username, Password: s.opts.Password},
		DialTimeout:      s.opts.DialTimeout,
		ReadTimeout:      s.opts.ReadTimeout,
		ConnOpenStrategy: ch.ConnOpenInOrder,
	})
	defer db.Close()
	db.SetMaxOpenConns(2)
	db.SetConnMaxLifetime(time.Minute)
	return migrate.Up(ctx, db, rendered, table, append(sc.goMigrations(), s.evaluationCountsMigration(), s.spanStatsMigration(),
		s.spanStatsSixHoursMigration())...)
}

// goMigrations are the steps SQL cannot express idempotently on
// ClickHouse 18.16, which has no ADD COLUMN IF NOT EXISTS: each adds a
// column only where system.columns lacks it, so collectors migrating at
// the same time do no harm.
func (sc schema) goMigrations() []*goose.Migration {
	return []*goose.Migration{
		// The verdict index of each span's evaluation results
		// (warehouse.VerdictIndex), which verdict filters search. Spans
		// stored before it hold '' (no verdicts to filter on).
		sc.addColumn(7, "00007_verdicts", "spans", "verdicts", "String"),
		// A hash of each span's content (spanContentHash), so that a
		// resent span with other content (a conflicting duplicate) is
		// told from an identical resend. Spans stored before it hold 0
		// (unknown: a duplicate of them is not checked).
		sc.addColumn(10, "00010_span_content_hash", "spans", "content_hash", "UInt64"),
	}
}

// latestGoMigration is the highest version of the Go migrations
// (goMigrations, evaluationCountsMigration, spanStatsMigration and
// spanStatsSixHoursMigration).
const latestGoMigration = 15

// addColumn is a migration that adds column (of type typ) to table: to
// the shards' local table and the Distributed one on a cluster.
func (sc schema) addColumn(version int64, name, table, column, typ string) *goose.Migration {
	m := goose.NewGoMigration(version, &goose.GoFunc{RunDB: func(ctx context.Context, db *sql.DB) error {
		tables := []string{table}
		if sc.cluster != "" {
			tables = []string{table + "_local", table}
		}
		for _, t := range tables {
			has := func() (bool, error) {
				var n uint64
				err := db.QueryRowContext(ctx, "SELECT count() FROM system.columns WHERE database = ? AND table = ? AND name = ?", sc.db, t, column).Scan(&n)
				return n > 0, err
			}
			if ok, err := has(); err != nil || ok {
				if err != nil {
					return fmt.Errorf("look for column %s.%s: %w", t, column, err)
				}
				continue
			}
			// sc.db, t, column and typ are identifiers of this package.
			if _, err := db.ExecContext(ctx, "ALTER TABLE "+sc.table(t)+sc.onCluster()+" ADD COLUMN "+column+" "+typ); err != nil {
				if ok, _ := has(); ok {
					continue // another collector added it meanwhile
				}
				return fmt.Errorf("add column %s.%s: %w", t, column, err)
			}
		}
		return nil
	}}, nil)
	m.Source = name + ".go" // goose wants it; schema_migrations records name
	return m
}

// SchemaVersion returns the highest applied schema migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	if err := s.ready(ctx, "schema version"); err != nil {
		return 0, err
	}
	var v uint32
	if err := s.conn.QueryRow(ctx, "SELECT max(version) FROM "+s.schema.table("schema_migrations")).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", mapErr(err))
	}
	return int(v), nil
}
