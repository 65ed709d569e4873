package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Documents live in a ReplacingMergeTree keyed by (kind, scope, id), like
// monitor setups: every change inserts a row with a higher row_ver, a
// delete a tombstone, and reads take the latest row of each id with LIMIT
// 1 BY. The uniqueness of slugs and the compare-and-set of updates read,
// then insert (ClickHouse has no transactions): two collectors racing
// within milliseconds can both succeed, the later row winning.

var _ warehouse.DocumentStore = (*Store)(nil)

// documentRow is the latest stored row of one document.
type documentRow struct {
	doc     warehouse.Document
	deleted bool
}

// latestDocuments returns the latest row of each document of kind and
// scope (of id only, when id is set), tombstones included, in creation
// order, after the creation sequence number after, at most limit (0: no
// limit) of the live ones when live is set.
func (s *Store) latestDocuments(ctx context.Context, kind, scope, id string, after int64, limit int, liveOnly bool) ([]documentRow, error) {
	return s.latestDocumentsIn(ctx, kind, &scope, id, after, limit, 0, liveOnly)
}

// latestDocumentsIn is latestDocuments in scope, or in every scope when
// scope is nil.
func (s *Store) latestDocumentsIn(ctx context.Context, kind string, scope *string, id string, after int64, limit, offset int, liveOnly bool) ([]documentRow, error) {
	where := "kind = ?"
	args := []any{kind}
	if scope != nil {
		where += " AND scope = ?"
		args = append(args, *scope)
	}
	if id != "" {
		where += " AND id = ?"
		args = append(args, id)
	}
	outer := "created_seq > ?"
	args = append(args, after)
	if liveOnly {
		outer += " AND deleted = 0"
	}
	query := "SELECT scope, id, deleted, created_seq, slug, version, body, created_at, updated_at FROM (SELECT * FROM " +
		s.schema.table("documents") + " WHERE " + where + " ORDER BY kind, scope, id, row_ver DESC LIMIT 1 BY kind, scope, id) WHERE " +
		outer + " ORDER BY created_seq, id"
	if limit > 0 {
		query += fmt.Sprintf(" LIMIT %d OFFSET %d", limit, max(offset, 0))
	}
	rows, err := s.conn.Query(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []documentRow
	for rows.Next() {
		var (
			r                  documentRow
			deleted            uint8
			body               string
			created, updatedAt int64
		)
		if err := rows.Scan(&r.doc.Scope, &r.doc.ID, &deleted, &r.doc.Seq, &r.doc.Slug, &r.doc.Version, &body, &created, &updatedAt); err != nil {
			return nil, mapErr(err)
		}
		r.doc.Kind, r.doc.Body, r.deleted = kind, []byte(body), deleted != 0
		r.doc.CreatedAt, r.doc.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updatedAt).UTC()
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}

// insertDocument writes one row of d.
func (s *Store) insertDocument(ctx context.Context, d warehouse.Document, deleted bool) error {
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("documents")+
		" (kind, scope, id, row_ver, deleted, created_seq, slug, version, body, created_at, updated_at)")
	if err != nil {
		return mapErr(err)
	}
	del := uint8(0)
	if deleted {
		del = 1
	}
	rowVer := s.clock.next(1)[0]
	if d.Seq == 0 {
		d.Seq = rowVer
	}
	if err := batch.Append(d.Kind, d.Scope, d.ID, rowVer, del, d.Seq, d.Slug, d.Version, string(d.Body),
		d.CreatedAt.UnixMilli(), d.UpdatedAt.UnixMilli()); err != nil {
		batch.Abort()
		return mapErr(err)
	}
	return mapErr(batch.Send())
}

// slugTaken reports whether a live document of d's kind and scope other
// than d holds d's slug.
func (s *Store) slugTaken(ctx context.Context, d warehouse.Document) (bool, error) {
	if d.Slug == "" {
		return false, nil
	}
	var n uint64
	err := s.conn.QueryRow(ctx, "SELECT count() FROM (SELECT id, deleted, slug FROM "+s.schema.table("documents")+
		" WHERE kind = ? AND scope = ? ORDER BY kind, scope, id, row_ver DESC LIMIT 1 BY kind, scope, id) WHERE deleted = 0 AND slug = ? AND id != ?",
		d.Kind, d.Scope, d.Slug, d.ID).Scan(&n)
	return n > 0, mapErr(err)
}

// CreateDocument stores a new document at version 1.
func (s *Store) CreateDocument(ctx context.Context, d warehouse.Document) error {
	if err := s.ready(ctx, "create document"); err != nil {
		return err
	}
	if err := warehouse.ValidateDocument(d); err != nil {
		return err
	}
	existing, err := s.latestDocuments(ctx, d.Kind, d.Scope, d.ID, 0, 0, true)
	if err != nil {
		return fmt.Errorf("create %s: %w", d.Kind, err)
	}
	if len(existing) > 0 {
		return fmt.Errorf("create %s: id %q exists: %w", d.Kind, d.ID, warehouse.ErrConflict)
	}
	if taken, err := s.slugTaken(ctx, d); err != nil {
		return fmt.Errorf("create %s: %w", d.Kind, err)
	} else if taken {
		return fmt.Errorf("create %s: slug %q: %w", d.Kind, d.Slug, warehouse.ErrConflict)
	}
	now := time.Now()
	d.Version, d.Seq, d.CreatedAt, d.UpdatedAt = 1, 0, now, now
	if err := s.insertDocument(ctx, d, false); err != nil {
		return fmt.Errorf("create %s: %w", d.Kind, err)
	}
	return nil
}

// GetDocument returns a live document by id, else by slug.
func (s *Store) GetDocument(ctx context.Context, kind, scope, idOrSlug string) (warehouse.Document, error) {
	if err := s.ready(ctx, "get document"); err != nil {
		return warehouse.Document{}, err
	}
	if idOrSlug == "" {
		return warehouse.Document{}, fmt.Errorf("%s with no id: %w", kind, warehouse.ErrNotFound)
	}
	rows, err := s.latestDocuments(ctx, kind, scope, idOrSlug, 0, 0, true)
	if err != nil {
		return warehouse.Document{}, fmt.Errorf("get %s: %w", kind, err)
	}
	if len(rows) == 0 {
		var id string
		err := s.conn.QueryRow(ctx, "SELECT any(id) FROM (SELECT id, deleted, slug FROM "+s.schema.table("documents")+
			" WHERE kind = ? AND scope = ? ORDER BY kind, scope, id, row_ver DESC LIMIT 1 BY kind, scope, id) WHERE deleted = 0 AND slug = ?",
			kind, scope, idOrSlug).Scan(&id)
		if err != nil {
			return warehouse.Document{}, fmt.Errorf("get %s: %w", kind, mapErr(err))
		}
		if id != "" {
			if rows, err = s.latestDocuments(ctx, kind, scope, id, 0, 0, true); err != nil {
				return warehouse.Document{}, fmt.Errorf("get %s: %w", kind, err)
			}
		}
	}
	if len(rows) == 0 {
		return warehouse.Document{}, fmt.Errorf("%s %q: %w", kind, idOrSlug, warehouse.ErrNotFound)
	}
	return rows[0].doc, nil
}

// ListDocuments returns a page of live documents in creation order.
func (s *Store) ListDocuments(ctx context.Context, q warehouse.DocumentQuery) ([]warehouse.Document, error) {
	if err := s.ready(ctx, "list documents"); err != nil {
		return nil, err
	}
	scope := &q.Scope
	if q.AllScopes {
		scope = nil
	}
	if q.DocumentLimit() == 0 {
		return nil, &warehouse.QueryError{Field: "offset", Msg: fmt.Sprintf("%d is not between 0 and %d", q.Offset, warehouse.MaxDocumentOffset)}
	}
	rows, err := s.latestDocumentsIn(ctx, q.Kind, scope, "", q.AfterSeq, q.DocumentLimit(), q.Offset, true)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", q.Kind, err)
	}
	out := make([]warehouse.Document, len(rows))
	for i, r := range rows {
		out[i] = r.doc
	}
	return out, nil
}

// UpdateDocument replaces a document's slug and body when its stored
// version is d.Version-1.
func (s *Store) UpdateDocument(ctx context.Context, d warehouse.Document) error {
	if err := s.ready(ctx, "update document"); err != nil {
		return err
	}
	if err := warehouse.ValidateDocument(d); err != nil {
		return err
	}
	rows, err := s.latestDocuments(ctx, d.Kind, d.Scope, d.ID, 0, 0, true)
	if err != nil {
		return fmt.Errorf("update %s: %w", d.Kind, err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("update %s %q: %w", d.Kind, d.ID, warehouse.ErrNotFound)
	}
	stored := rows[0].doc
	if stored.Version != d.Version-1 {
		return fmt.Errorf("update %s %q: stored version %d, expected %d: %w", d.Kind, d.ID, stored.Version, d.Version-1, warehouse.ErrConflict)
	}
	if taken, err := s.slugTaken(ctx, d); err != nil {
		return fmt.Errorf("update %s: %w", d.Kind, err)
	} else if taken {
		return fmt.Errorf("update %s %q: slug %q: %w", d.Kind, d.ID, d.Slug, warehouse.ErrConflict)
	}
	d.Seq, d.CreatedAt, d.UpdatedAt = stored.Seq, stored.CreatedAt, time.Now()
	if err := s.insertDocument(ctx, d, false); err != nil {
		return fmt.Errorf("update %s: %w", d.Kind, err)
	}
	return nil
}

// DeleteDocument inserts a tombstone for a live document.
func (s *Store) DeleteDocument(ctx context.Context, kind, scope, id string) error {
	if err := s.ready(ctx, "delete document"); err != nil {
		return err
	}
	rows, err := s.latestDocuments(ctx, kind, scope, id, 0, 0, true)
	if err != nil {
		return fmt.Errorf("delete %s: %w", kind, err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s %q: %w", kind, id, warehouse.ErrNotFound)
	}
	d := rows[0].doc
	d.UpdatedAt = time.Now()
	if err := s.insertDocument(ctx, d, true); err != nil {
		return fmt.Errorf("delete %s: %w", kind, err)
	}
	return nil
}
