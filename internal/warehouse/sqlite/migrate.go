package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/evalcol/evalcol/internal/warehouse/migrate"
)

// migrationFiles holds the schema, one goose .sql file per version
// (migrations/NNNNN_name.sql). A new table, column or index is a new file
// with the next number; a file that has run is never edited.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations is migrationFiles' migrations directory.
var migrations = mustSub(migrationFiles, "migrations")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // the directory is embedded: cannot happen
	}
	return sub
}

// versionTable is SQLite's schema_migrations, as evalcol created it before
// the DDL moved to files (so older databases carry on from their versions).
var versionTable = migrate.Table{
	Create: []string{`CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch())
	)`},
	Exists:   `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`,
	Insert:   `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`,
	Delete:   `DELETE FROM schema_migrations WHERE version = ?`,
	Versions: `SELECT version FROM schema_migrations`,
}

// applyMigrations applies the migrations of fsys (the store passes
// migrations, tests their own) that db has not recorded, each in its own
// BEGIN IMMEDIATE transaction together with its schema_migrations row, and
// returns the versions it applied. The Go migrations (steps SQL cannot
// express: 00028_evaluation_counts.go, 00029_span_stats.go) run with them.
func applyMigrations(ctx context.Context, db *sql.DB, fsys fs.FS) ([]int64, error) {
	applied, err := migrate.Up(ctx, db, fsys, versionTable, evaluationCountsMigration(), spanStatsMigration())
	if err != nil {
		return applied, fmt.Errorf("migrate: %w", err)
	}
	return applied, nil
}

// latestGoMigration is the highest version of the Go migrations.
const latestGoMigration = 29

// schemaVersion returns the highest applied migration.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}
