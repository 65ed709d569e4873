package clickhouse

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"testing/fstest"
	"text/template"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"go.uber.org/zap"

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
	if err := s.adoptPreRelease(ctx); err != nil {
		return err
	}
	_, err := s.applyMigrations(ctx, schemaFiles)
	return err
}

// Databases of the pre-release builds (0.1.0-dev) recorded versions 1 to
// 15 (1-4 under the names of the code before goose, "spans", ...; then
// 00005_... and the Go steps 00007, 00010, 00013-00015), which v0.1.0
// squashed into 00001_v0_1_0.sql.
const (
	preReleaseVersion = 15
	v010Name          = "00001_v0_1_0"
)

// ErrPreRelease is the error of a store on a database that a pre-release
// build created and v0.1.0 cannot adopt.
var ErrPreRelease = errors.New("created by a pre-release build of evalcol")

// adoptPreRelease turns a database of the pre-release builds into a
// v0.1.0 one, or refuses it. At their last version (15) its tables are
// v0.1.0's: unless some span was stored without a content hash (before
// 00010), schema_migrations is dropped and made again with the one row of
// version 1. Any other pre-release database fails with ErrPreRelease. A
// new database, or one created by v0.1.0 or later, is left as it is.
func (s *Store) adoptPreRelease(ctx context.Context) error {
	sc := s.schema
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = ? AND name = 'schema_migrations'",
		sc.db).Scan(&n); err != nil {
		return fmt.Errorf("look for schema_migrations: %w", err)
	}
	if n == 0 {
		return nil
	}
	t := sc.table("schema_migrations")
	var first string
	var latest uint32
	if err := s.conn.QueryRow(ctx, "SELECT anyIf(name, version = 1), max(version) FROM "+t).Scan(&first, &latest); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if first == "" || first == v010Name {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("clickhouse database %s: %w (schema %d%s); v0.1.0 starts a new schema: drop the database "+
			"or set another one to start an empty warehouse", sc.db, ErrPreRelease, latest, why)
	}
	if latest != preReleaseVersion {
		return refuse("")
	}
	var old uint64
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+sc.table("spans")+" WHERE content_hash = 0").Scan(&old); err != nil {
		return fmt.Errorf("adopt pre-release schema: %w", err)
	}
	if old > 0 {
		return refuse(", with spans stored before its migration 00010")
	}
	drop := []string{"schema_migrations"}
	if sc.cluster != "" {
		drop = append(drop, "schema_migrations_local")
	}
	for _, name := range drop {
		if err := s.conn.Exec(ctx, "DROP TABLE IF EXISTS "+sc.table(name)+sc.onCluster()); err != nil {
			return fmt.Errorf("adopt pre-release schema: drop %s: %w", name, err)
		}
	}
	table, err := sc.versionTable()
	if err != nil {
		return err
	}
	for _, stmt := range table.Create {
		if err := s.conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("adopt pre-release schema: %w", err)
		}
	}
	if err := s.conn.Exec(ctx, "INSERT INTO "+t+" (version, name) SELECT 1, '"+v010Name+"'"); err != nil {
		return fmt.Errorf("adopt pre-release schema: %w", err)
	}
	cmp.Or(s.opts.Logger, zap.NewNop()).Info("clickhouse warehouse: adopted the database of a pre-release build as schema version 1 (v0.1.0)",
		zap.String("database", sc.db), zap.Uint32("pre_release_schema", latest))
	return nil
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
	return migrate.Up(ctx, db, rendered, table)
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
