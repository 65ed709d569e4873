package warehouse

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Document is a small JSON object a feature keeps per tenant: an
// annotation task, and later a dataset's definition, an alert rule or a
// custom evaluator. The warehouse stores its body as it is and indexes it
// by kind, scope, id and slug, so that each such feature needs no table
// (and no migration on each backend) of its own.
type Document struct {
	// Kind names the feature, e.g. "annotation_task".
	Kind string
	// Scope is the tenant partition the document lives in, e.g.
	// "org/project" or an environment: documents of other scopes are
	// never read or written by a call naming this one.
	Scope string
	ID    string
	// Slug is unique among the live documents of a kind and scope; empty
	// for documents without one.
	Slug string
	Body json.RawMessage
	// Version is 1 when created and grows with every update; updates are
	// compare-and-set on it.
	Version int64
	// Seq orders documents by creation (set by the store); a page
	// continues after the Seq of the previous page's last document.
	Seq       int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// DocumentQuery selects one page of the documents of a kind and scope, in
// creation order.
type DocumentQuery struct {
	Kind  string
	Scope string
	// AfterSeq is the Seq of the last document of the previous page (0
	// for the first page).
	AfterSeq int64
	// Offset skips that many documents after AfterSeq (0 to
	// MaxDocumentOffset).
	Offset int
	// AllScopes lists the documents of every scope (Scope is ignored):
	// for a collector's own background work, never for a tenant's
	// request.
	AllScopes bool
	// Limit bounds the page (1 to MaxDocumentPage; 0 means
	// MaxDocumentPage).
	Limit int
}

// MaxDocumentPage is the largest page ListDocuments returns.
const MaxDocumentPage = 500

// MaxDocumentOffset bounds DocumentQuery.Offset.
const MaxDocumentOffset = 1_000_000

// MaxDocumentBytes bounds the body of one document.
const MaxDocumentBytes = 256 << 10

// DocumentStore keeps documents, shared by every collector of a warehouse.
type DocumentStore interface {
	// CreateDocument stores a new document at version 1: ErrConflict when
	// its id, or its slug, is taken in its kind and scope.
	CreateDocument(ctx context.Context, d Document) error
	// GetDocument returns the live document of a kind and scope whose id
	// or slug is idOrSlug; ErrNotFound when there is none.
	GetDocument(ctx context.Context, kind, scope, idOrSlug string) (Document, error)
	// ListDocuments returns a page of live documents in creation order.
	ListDocuments(ctx context.Context, q DocumentQuery) ([]Document, error)
	// UpdateDocument replaces a document's slug and body when its stored
	// version is d.Version-1 (ErrConflict otherwise, or when the new slug
	// is taken; ErrNotFound when it is gone).
	UpdateDocument(ctx context.Context, d Document) error
	// DeleteDocument removes a document; ErrNotFound when there is none.
	DeleteDocument(ctx context.Context, kind, scope, id string) error
}

// ValidateDocument checks what every backend requires of a document
// before writing it.
func ValidateDocument(d Document) error {
	switch {
	case d.Kind == "" || d.Scope == "" || d.ID == "":
		return fmt.Errorf("document: kind, scope and id are required (got %q, %q, %q)", d.Kind, d.Scope, d.ID)
	case len(d.Body) > MaxDocumentBytes:
		return fmt.Errorf("document %s %s: body of %d bytes is over %d", d.Kind, d.ID, len(d.Body), MaxDocumentBytes)
	case !json.Valid(d.Body):
		return fmt.Errorf("document %s %s: body is not JSON", d.Kind, d.ID)
	}
	return nil
}

// DocumentLimit is the page size of q: MaxDocumentPage unless q.Limit is
// between 1 and it.
func (q DocumentQuery) DocumentLimit() int {
	if q.Offset < 0 || q.Offset > MaxDocumentOffset {
		return 0
	}
	if q.Limit <= 0 || q.Limit > MaxDocumentPage {
		return MaxDocumentPage
	}
	return q.Limit
}
