// Package migrate brings a warehouse backend's schema up to date: the
// backend's DDL lives in embedded .sql files (goose's format, one file per
// version, NNNNN_name.sql with a "-- +goose Up" section), and Up applies
// the ones the database has not recorded, in version order, with
// github.com/pressly/goose/v3.
//
// The applied versions are recorded in the backend's own schema_migrations
// table (version, name, applied_at). Each backend describes that table's
// SQL in a Table.
package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// TableName is the name of the version table.
const TableName = "schema_migrations"

// Table is the SQL of one engine's schema_migrations table.
type Table struct {
	// Create creates the table when it is missing, statement by statement.
	Create []string
	// Exists returns one row, one integer column: above 0 when the table
	// exists.
	Exists string
	// Insert records an applied version; parameters version, name.
	Insert string
	// Delete removes a version (parameter version). evalcol never migrates
	// down; goose's interface asks for it.
	Delete string
	// Versions returns the recorded versions, one integer column (any
	// order, repeats allowed).
	Versions string
}

// Up applies the migrations of fsys that db has not recorded in table, in
// version order, and returns the versions it applied. SQL files run each in
// a transaction unless they say "-- +goose NO TRANSACTION".
func Up(ctx context.Context, db *sql.DB, fsys fs.FS, table Table) ([]int64, error) {
	names, err := fileNames(fsys)
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(goose.DialectCustom, db, fsys,
		goose.WithStore(&versionStore{table: table, names: names}),
		goose.WithDisableGlobalRegistry(true),
		goose.WithLogger(goose.NopLogger()))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	results, err := p.Up(ctx)
	applied := make([]int64, 0, len(results))
	for _, r := range results {
		applied = append(applied, r.Source.Version)
	}
	var partial *goose.PartialError
	if errors.As(err, &partial) {
		return applied, fmt.Errorf("migration %s: %w", path.Base(partial.Failed.Source.Path), partial.Err)
	}
	if err != nil {
		return applied, fmt.Errorf("migrations: %w", err)
	}
	return applied, nil
}

// Latest returns the highest version among the migrations of fsys.
func Latest(fsys fs.FS) (int64, error) {
	names, err := fileNames(fsys)
	if err != nil {
		return 0, err
	}
	var latest int64
	for v := range names {
		latest = max(latest, v)
	}
	return latest, nil
}

// fileNames maps the version of every migration file of fsys to its file
// name, which is what schema_migrations records as the step's name.
func fileNames(fsys fs.FS) (map[int64]string, error) {
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	names := make(map[int64]string, len(files))
	for _, f := range files {
		v, err := goose.NumericComponent(f)
		if err != nil {
			return nil, fmt.Errorf("migration file %s: %w", f, err)
		}
		names[v] = strings.TrimSuffix(f, ".sql")
	}
	return names, nil
}

// versionStore is goose's database.Store over a Table. schema_migrations
// records only real steps: goose's "version 0" (the empty database) is
// implied, never stored.
type versionStore struct {
	table Table
	names map[int64]string
}

var _ database.StoreExtender = (*versionStore)(nil)

func (s *versionStore) Tablename() string { return TableName }

func (s *versionStore) CreateVersionTable(ctx context.Context, db database.DBTxConn) error {
	for _, stmt := range s.table.Create {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create %s: %w", TableName, err)
		}
	}
	return nil
}

func (s *versionStore) TableExists(ctx context.Context, db database.DBTxConn) (bool, error) {
	var n int64
	if err := db.QueryRowContext(ctx, s.table.Exists).Scan(&n); err != nil {
		return false, fmt.Errorf("look for %s: %w", TableName, err)
	}
	return n > 0, nil
}

func (s *versionStore) Insert(ctx context.Context, db database.DBTxConn, req database.InsertRequest) error {
	if req.Version == 0 {
		return nil
	}
	if _, err := db.ExecContext(ctx, s.table.Insert, req.Version, s.names[req.Version]); err != nil {
		return fmt.Errorf("record migration %d: %w", req.Version, err)
	}
	return nil
}

func (s *versionStore) Delete(ctx context.Context, db database.DBTxConn, version int64) error {
	if _, err := db.ExecContext(ctx, s.table.Delete, version); err != nil {
		return fmt.Errorf("remove migration %d: %w", version, err)
	}
	return nil
}

func (s *versionStore) GetMigration(ctx context.Context, db database.DBTxConn, version int64) (*database.GetMigrationResult, error) {
	versions, err := s.versions(ctx, db)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(versions, version) {
		return nil, database.ErrVersionNotFound
	}
	return &database.GetMigrationResult{IsApplied: true}, nil
}

func (s *versionStore) GetLatestVersion(ctx context.Context, db database.DBTxConn) (int64, error) {
	versions, err := s.versions(ctx, db)
	if err != nil {
		return 0, err
	}
	return versions[0], nil
}

func (s *versionStore) ListMigrations(ctx context.Context, db database.DBTxConn) ([]*database.ListMigrationsResult, error) {
	versions, err := s.versions(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make([]*database.ListMigrationsResult, len(versions))
	for i, v := range versions {
		out[i] = &database.ListMigrationsResult{Version: v, IsApplied: true}
	}
	return out, nil
}

// versions returns the recorded versions and the implied 0, distinct,
// highest first.
func (s *versionStore) versions(ctx context.Context, db database.DBTxConn) ([]int64, error) {
	rows, err := db.QueryContext(ctx, s.table.Versions)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", TableName, err)
	}
	defer rows.Close()
	out := []int64{0}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read %s: %w", TableName, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", TableName, err)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	slices.Reverse(out)
	return out, nil
}
