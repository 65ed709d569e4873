package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.DocumentStore = (*Store)(nil)

const documentColumns = "seq, kind, scope, id, slug, version, body, created_at, updated_at"

// CreateDocument stores a new document at version 1.
func (s *Store) CreateDocument(ctx context.Context, d warehouse.Document) error {
	if err := s.checkOpen("create document"); err != nil {
		return err
	}
	if err := warehouse.ValidateDocument(d); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	_, err := s.writer.ExecContext(ctx, `INSERT INTO documents (kind, scope, id, slug, version, body, created_at, updated_at)
		VALUES (?, ?, ?, ?, 1, ?, ?, ?)`, d.Kind, d.Scope, d.ID, d.Slug, string(d.Body), now, now)
	if isUniqueViolation(err) {
		return fmt.Errorf("create %s: id %q or slug %q: %w", d.Kind, d.ID, d.Slug, warehouse.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", d.Kind, mapErr(err))
	}
	return nil
}

// GetDocument returns a document by id or slug: one probe of each unique
// index.
func (s *Store) GetDocument(ctx context.Context, kind, scope, idOrSlug string) (warehouse.Document, error) {
	if err := s.checkOpen("get document"); err != nil {
		return warehouse.Document{}, err
	}
	row := s.reader.QueryRowContext(ctx, `SELECT `+documentColumns+` FROM documents
		WHERE kind = ? AND scope = ? AND (id = ? OR (slug = ? AND slug != ''))
		ORDER BY id = ? DESC LIMIT 1`, kind, scope, idOrSlug, idOrSlug, idOrSlug)
	d, err := scanDocument(row)
	if errors.Is(err, sql.ErrNoRows) {
		return warehouse.Document{}, fmt.Errorf("%s %q: %w", kind, idOrSlug, warehouse.ErrNotFound)
	}
	if err != nil {
		return warehouse.Document{}, fmt.Errorf("get %s: %w", kind, mapErr(err))
	}
	return d, nil
}

// ListDocuments returns a page of documents in creation order.
func (s *Store) ListDocuments(ctx context.Context, q warehouse.DocumentQuery) ([]warehouse.Document, error) {
	if err := s.checkOpen("list documents"); err != nil {
		return nil, err
	}
	if q.DocumentLimit() == 0 {
		return nil, &warehouse.QueryError{Field: "offset", Msg: fmt.Sprintf("%d is not between 0 and %d", q.Offset, warehouse.MaxDocumentOffset)}
	}
	scope, args := "scope = ?", []any{q.Kind, q.Scope, q.AfterSeq, q.DocumentLimit(), q.Offset}
	if q.AllScopes {
		scope, args = "1", []any{q.Kind, q.AfterSeq, q.DocumentLimit(), q.Offset}
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+documentColumns+` FROM documents
		WHERE kind = ? AND `+scope+` AND seq > ? ORDER BY seq LIMIT ? OFFSET ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", q.Kind, mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", q.Kind, mapErr(err))
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list %s: %w", q.Kind, mapErr(err))
	}
	return out, nil
}

// UpdateDocument replaces a document's slug and body, compare-and-set on
// its version.
func (s *Store) UpdateDocument(ctx context.Context, d warehouse.Document) error {
	if err := s.checkOpen("update document"); err != nil {
		return err
	}
	if err := warehouse.ValidateDocument(d); err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `UPDATE documents SET slug = ?, body = ?, version = ?, updated_at = ?
		WHERE kind = ? AND scope = ? AND id = ? AND version = ?`,
		d.Slug, string(d.Body), d.Version, time.Now().UnixMilli(), d.Kind, d.Scope, d.ID, d.Version-1)
	if isUniqueViolation(err) {
		return fmt.Errorf("update %s %q: slug %q: %w", d.Kind, d.ID, d.Slug, warehouse.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", d.Kind, mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var version int64
	err = s.writer.QueryRowContext(ctx, `SELECT version FROM documents WHERE kind = ? AND scope = ? AND id = ?`, d.Kind, d.Scope, d.ID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("update %s %q: %w", d.Kind, d.ID, warehouse.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("update %s: %w", d.Kind, mapErr(err))
	}
	return fmt.Errorf("update %s %q: stored version %d, expected %d: %w", d.Kind, d.ID, version, d.Version-1, warehouse.ErrConflict)
}

// DeleteDocument removes a document.
func (s *Store) DeleteDocument(ctx context.Context, kind, scope, id string) error {
	if err := s.checkOpen("delete document"); err != nil {
		return err
	}
	res, err := s.writer.ExecContext(ctx, `DELETE FROM documents WHERE kind = ? AND scope = ? AND id = ?`, kind, scope, id)
	if err != nil {
		return fmt.Errorf("delete %s: %w", kind, mapErr(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%s %q: %w", kind, id, warehouse.ErrNotFound)
	}
	return nil
}

func scanDocument(row scanner) (warehouse.Document, error) {
	var (
		d                  warehouse.Document
		body               string
		created, updatedAt int64
	)
	if err := row.Scan(&d.Seq, &d.Kind, &d.Scope, &d.ID, &d.Slug, &d.Version, &body, &created, &updatedAt); err != nil {
		return warehouse.Document{}, err
	}
	d.Body = []byte(body)
	d.CreatedAt, d.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updatedAt).UTC()
	return d, nil
}
