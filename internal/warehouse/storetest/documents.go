package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// testDocuments: documents are found by id and by slug within their kind
// and scope only; slugs are unique among live documents; updates are
// compare-and-set; pages follow creation order; deletes free the slug.
func testDocuments(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	doc := func(scope, id, slug string, n int) warehouse.Document {
		return warehouse.Document{Kind: "annotation_task", Scope: scope, ID: id, Slug: slug, Body: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
	}
	for i, d := range []warehouse.Document{doc("acme/web", "t1", "quality", 1), doc("acme/web", "t2", "tone", 2),
		doc("acme/web", "t3", "", 3), doc("other/web", "t1", "quality", 4)} {
		if err := st.CreateDocument(ctx, d); err != nil {
			t.Fatalf("CreateDocument %d: %v", i, err)
		}
	}
	for _, tc := range []struct {
		name string
		d    warehouse.Document
	}{{"taken slug", doc("acme/web", "t9", "quality", 9)}, {"taken id", doc("acme/web", "t1", "fresh", 9)}} {
		if err := st.CreateDocument(ctx, tc.d); !errors.Is(err, warehouse.ErrConflict) {
			t.Errorf("CreateDocument with a %s: %v, want ErrConflict", tc.name, err)
		}
	}
	if err := st.CreateDocument(ctx, warehouse.Document{Kind: "annotation_task", Scope: "acme/web", ID: "bad", Body: json.RawMessage(`{`)}); err == nil {
		t.Error("CreateDocument stored a body that is not JSON")
	}

	get := func(scope, key string) (warehouse.Document, error) {
		t.Helper()
		return st.GetDocument(ctx, "annotation_task", scope, key)
	}
	for _, key := range []string{"t1", "quality"} {
		d, err := get("acme/web", key)
		if err != nil || d.ID != "t1" || string(d.Body) != `{"n":1}` || d.Version != 1 || d.Slug != "quality" || d.Seq == 0 {
			t.Errorf("GetDocument(%s) = %+v, %v", key, d, err)
		}
	}
	if d, err := get("other/web", "quality"); err != nil || string(d.Body) != `{"n":4}` {
		t.Errorf("GetDocument in the other scope = %+v, %v", d, err)
	}
	if _, err := st.GetDocument(ctx, "alert_rule", "acme/web", "t1"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("GetDocument of another kind: %v, want ErrNotFound", err)
	}
	if _, err := get("acme/web", ""); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("GetDocument by an empty slug found the slug-less document: %v", err)
	}

	// Pages in creation order.
	page, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: "annotation_task", Scope: "acme/web", Limit: 2})
	if err != nil || len(page) != 2 || page[0].ID != "t1" || page[1].ID != "t2" {
		t.Fatalf("ListDocuments page 1 = %+v, %v", page, err)
	}
	skipped, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: "annotation_task", Scope: "acme/web", Offset: 2})
	if err != nil || len(skipped) != 1 || skipped[0].ID != "t3" {
		t.Fatalf("ListDocuments with offset 2 = %+v, %v", skipped, err)
	}
	if _, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: "annotation_task", Scope: "acme/web", Offset: -1}); !warehouse.IsQueryError(err) {
		t.Errorf("a negative offset: %v, want a query error", err)
	}
	rest, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: "annotation_task", Scope: "acme/web", AfterSeq: page[1].Seq})
	if err != nil || len(rest) != 1 || rest[0].ID != "t3" {
		t.Fatalf("ListDocuments page 2 = %+v, %v", rest, err)
	}

	// Compare-and-set updates.
	d, _ := get("acme/web", "t1")
	d.Version, d.Slug, d.Body = 2, "quality-v2", json.RawMessage(`{"n":10}`)
	if err := st.UpdateDocument(ctx, d); err != nil {
		t.Fatalf("UpdateDocument: %v", err)
	}
	if err := st.UpdateDocument(ctx, d); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("a stale UpdateDocument: %v, want ErrConflict", err)
	}
	d2, _ := get("acme/web", "t2")
	d2.Version, d2.Slug = 2, "quality-v2"
	if err := st.UpdateDocument(ctx, d2); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("UpdateDocument to a taken slug: %v, want ErrConflict", err)
	}
	if got, err := get("acme/web", "quality-v2"); err != nil || got.ID != "t1" || got.Version != 2 || string(got.Body) != `{"n":10}` {
		t.Errorf("after the update: %+v, %v", got, err)
	}
	if _, err := get("acme/web", "quality"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("the old slug still finds the document: %v", err)
	}
	missing := doc("acme/web", "nope", "", 0)
	missing.Version = 2
	if err := st.UpdateDocument(ctx, missing); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("UpdateDocument of a missing document: %v, want ErrNotFound", err)
	}

	// Deletes: the document is gone, its slug free, the other scope's
	// document of the same id untouched.
	if err := st.DeleteDocument(ctx, "annotation_task", "acme/web", "t1"); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	if err := st.DeleteDocument(ctx, "annotation_task", "acme/web", "t1"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("a second DeleteDocument: %v, want ErrNotFound", err)
	}
	if _, err := get("acme/web", "t1"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("a deleted document is found: %v", err)
	}
	if err := st.CreateDocument(ctx, doc("acme/web", "t4", "quality-v2", 5)); err != nil {
		t.Errorf("the slug of a deleted document is not free: %v", err)
	}
	if got, err := get("other/web", "t1"); err != nil || string(got.Body) != `{"n":4}` {
		t.Errorf("deleting in one scope changed another: %+v, %v", got, err)
	}
	every, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: "annotation_task", AllScopes: true})
	if err != nil || len(every) != 4 {
		t.Errorf("ListDocuments of every scope = %d documents, %v; want 4", len(every), err)
	}
	for _, d := range every {
		if d.Scope != "acme/web" && d.Scope != "other/web" {
			t.Errorf("a document of every scope has scope %q", d.Scope)
		}
	}
	all, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: "annotation_task", Scope: "acme/web"})
	if err != nil || len(all) != 3 || all[0].ID != "t2" || all[2].ID != "t4" {
		t.Errorf("ListDocuments after the delete = %+v, %v", all, err)
	}
}
