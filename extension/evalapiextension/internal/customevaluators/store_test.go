package customevaluators

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

func def(model string) Definition {
	return Definition{Name: "n", Provider: "local", Model: model, Messages: []judge.Message{{Role: "user", Content: "{{text}}"}},
		InputSchema: []judge.Field{{Name: "text", Type: "string"}}, OutputSchema: []judge.Field{{Name: "passed", Type: "boolean"}}}
}

// TestStoreVersions: every version is kept, also after a delete; the
// latest is found by id and slug; updates are compare-and-set; another
// tenant's scope finds nothing.
func TestStoreVersions(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	s, ctx := store{docs: st}, context.Background()
	a := tenant.Tenant{OrganizationID: "org", ProjectID: "p"}.ProjectScope()
	b := tenant.Tenant{OrganizationID: "org", ProjectID: "p2"}.ProjectScope()

	v1, err := s.create(ctx, a, "ce_1", "tone", def("m1"))
	if err != nil || v1.Version != 1 || v1.Slug != "tone" || v1.CreatedAt.IsZero() {
		t.Fatalf("create = %+v, %v", v1, err)
	}
	if _, err := s.create(ctx, a, "ce_2", "tone", def("m1")); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("a taken slug = %v, want ErrConflict", err)
	}
	if _, err := s.create(ctx, b, "ce_3", "tone", def("other")); err != nil {
		t.Errorf("the slug in another project: %v", err)
	}
	next := v1
	next.Version, next.Definition = 2, def("m2")
	v2, err := s.update(ctx, a, next)
	if err != nil || v2.Version != 2 || v2.Definition.Model != "m2" || !v2.CreatedAt.Equal(v1.CreatedAt) {
		t.Fatalf("update = %+v, %v", v2, err)
	}
	if _, err := s.update(ctx, a, next); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("a stale update = %v, want ErrConflict", err)
	}
	for _, ref := range []string{"ce_1", "tone"} {
		if got, err := s.get(ctx, a, ref); err != nil || got.Version != 2 || got.Definition.Model != "m2" {
			t.Errorf("get %s = %+v, %v", ref, got, err)
		}
	}
	if got, err := s.get(ctx, b, "tone"); err != nil || got.ID != "ce_3" {
		t.Errorf("the other project's tone = %+v, %v", got, err)
	}
	if _, err := s.get(ctx, b, "ce_1"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("another project finds ce_1: %v", err)
	}
	if err := s.remove(ctx, a, "ce_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.get(ctx, a, "tone"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("get after delete = %v, want ErrNotFound", err)
	}
	for v, model := range map[int64]string{1: "m1", 2: "m2"} {
		got, err := s.version(ctx, a, "ce_1", v)
		if err != nil || got.Definition.Model != model || got.Slug != "tone" || got.Version != v || !got.CreatedAt.Equal(v1.CreatedAt) {
			t.Errorf("version %d after delete = %+v, %v", v, got, err)
		}
	}
	if _, err := s.version(ctx, b, "ce_1", 1); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("another project reads ce_1's history: %v", err)
	}
	if list, err := s.list(ctx, a, 10); err != nil || len(list) != 0 {
		t.Errorf("list after delete = %+v, %v", list, err)
	}
}
