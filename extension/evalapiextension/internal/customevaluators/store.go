package customevaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Custom evaluators are warehouse documents (no table of their own): the
// latest version of each is a document of kind DocumentKind, found by id
// or slug, whose document version is the evaluator's version; every
// version, the latest too, is also a document of kind VersionKind with
// the id "<id>@<version>", kept after the evaluator is deleted, so that a
// result naming the version it ran can be explained.
const (
	DocumentKind = "custom_evaluator"
	VersionKind  = "custom_evaluator_version"
)

// Version is one version of an evaluator.
type Version struct {
	ID         string
	Slug       string
	Version    int64
	Definition Definition
	CreatedAt  time.Time // of the evaluator
	UpdatedAt  time.Time // of this version
}

// versionRecord is the body of a VersionKind document.
type versionRecord struct {
	Definition Definition `json:"definition"`
	Slug       string     `json:"slug"`
	CreatedAt  time.Time  `json:"created_at"`
}

func versionID(id string, version int64) string { return id + "@" + strconv.FormatInt(version, 10) }

func fromDocument(d warehouse.Document) (Version, error) {
	var def Definition
	if err := json.Unmarshal(d.Body, &def); err != nil {
		return Version{}, fmt.Errorf("decode custom evaluator %s: %w", d.ID, err)
	}
	return Version{ID: d.ID, Slug: d.Slug, Version: d.Version, Definition: def, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}, nil
}

// store keeps the evaluators of the API in a document store.
type store struct{ docs warehouse.DocumentStore }

// get returns the latest version of the evaluator whose id or slug is ref.
func (s store) get(ctx context.Context, scope, ref string) (Version, error) {
	d, err := s.docs.GetDocument(ctx, DocumentKind, scope, ref)
	if err != nil {
		return Version{}, err
	}
	return fromDocument(d)
}

// version returns one version of an evaluator by id, also of a deleted
// one.
func (s store) version(ctx context.Context, scope, id string, version int64) (Version, error) {
	d, err := s.docs.GetDocument(ctx, VersionKind, scope, versionID(id, version))
	if err != nil {
		return Version{}, err
	}
	var rec versionRecord
	if err := json.Unmarshal(d.Body, &rec); err != nil {
		return Version{}, fmt.Errorf("decode custom evaluator %s: %w", d.ID, err)
	}
	return Version{ID: id, Slug: rec.Slug, Version: version, Definition: rec.Definition, CreatedAt: rec.CreatedAt, UpdatedAt: d.CreatedAt}, nil
}

// list returns the latest versions of a scope's evaluators in creation
// order, at most limit+1 of them (so that a caller sees it is over).
func (s store) list(ctx context.Context, scope string, limit int) ([]Version, error) {
	out := []Version{}
	var after int64
	for len(out) <= limit {
		page, err := s.docs.ListDocuments(ctx, warehouse.DocumentQuery{Kind: DocumentKind, Scope: scope, AfterSeq: after})
		if err != nil {
			return nil, err
		}
		for _, d := range page {
			v, err := fromDocument(d)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if len(page) < warehouse.MaxDocumentPage {
			break
		}
		after = page[len(page)-1].Seq
	}
	return out, nil
}

// create stores version 1 of a new evaluator: ErrConflict when its slug is
// taken in the scope.
func (s store) create(ctx context.Context, scope, id, slug string, def Definition) (Version, error) {
	body, err := json.Marshal(def)
	if err != nil {
		return Version{}, fmt.Errorf("encode the definition: %w", err)
	}
	if err := s.docs.CreateDocument(ctx, warehouse.Document{Kind: DocumentKind, Scope: scope, ID: id, Slug: slug, Body: body}); err != nil {
		return Version{}, err
	}
	v, err := s.get(ctx, scope, id)
	if err != nil {
		return Version{}, err
	}
	return v, s.keep(ctx, scope, v)
}

// update stores def as version next.Version of an evaluator whose stored
// version is next.Version-1 (ErrConflict otherwise).
func (s store) update(ctx context.Context, scope string, next Version) (Version, error) {
	body, err := json.Marshal(next.Definition)
	if err != nil {
		return Version{}, fmt.Errorf("encode the definition: %w", err)
	}
	if err := s.docs.UpdateDocument(ctx, warehouse.Document{Kind: DocumentKind, Scope: scope, ID: next.ID, Slug: next.Slug,
		Body: body, Version: next.Version}); err != nil {
		return Version{}, err
	}
	v, err := s.get(ctx, scope, next.ID)
	if err != nil {
		return Version{}, err
	}
	return v, s.keep(ctx, scope, v)
}

// keep stores v in the version history. Only the writer that made the
// version (its create, or the update whose compare-and-set won) writes
// it; should that fail, the version is stored all the same as the latest
// one, and a *historyError says that its history lacks it.
func (s store) keep(ctx context.Context, scope string, v Version) error {
	body, err := json.Marshal(versionRecord{Definition: v.Definition, Slug: v.Slug, CreatedAt: v.CreatedAt})
	if err == nil {
		err = s.docs.CreateDocument(ctx, warehouse.Document{Kind: VersionKind, Scope: scope, ID: versionID(v.ID, v.Version), Body: body})
	}
	if err != nil && !errors.Is(err, warehouse.ErrConflict) {
		return &historyError{fmt.Errorf("keep version %d of %s in its history: %w", v.Version, v.ID, err)}
	}
	return nil
}

// historyError is a version stored as the latest one but missing from the
// history.
type historyError struct{ error }

func (e *historyError) Unwrap() error { return e.error }

// remove deletes the evaluator id; its versions stay.
func (s store) remove(ctx context.Context, scope, id string) error {
	return s.docs.DeleteDocument(ctx, DocumentKind, scope, id)
}
