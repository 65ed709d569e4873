package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func testOrganizations(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	at := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	org := func(id, name string, slugs ...string) warehouse.Organization {
		o := warehouse.Organization{ID: id, Name: name, RetentionHours: 720, CreatedAt: at, Version: 1}
		for _, s := range slugs {
			o.Environments = append(o.Environments, warehouse.OrgEnvironment{Slug: s, Environment: id + "/" + s, ProjectID: "default", CreatedAt: at})
		}
		return o
	}
	key := func(id, digest string, o warehouse.Organization, slug string) warehouse.APIKey {
		return warehouse.APIKey{ID: id, Digest: digest, OrgID: o.ID, EnvSlug: slug, Environment: o.ID + "/" + slug, ProjectID: "default", CreatedAt: at}
	}
	acme, globex := org("o1", "Acme", "dev", "prd"), org("o2", "Globex", "prd")
	k1, k2, k3 := key("k1", "d1", acme, "dev"), key("k2", "d2", acme, "prd"), key("k3", "d3", globex, "prd")
	if err := st.CreateOrganization(ctx, acme, []warehouse.APIKey{k1, k2}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateOrganization(ctx, globex, []warehouse.APIKey{k3}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateOrganization(ctx, org("o1", "Again"), nil); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("second organization o1: %v, want ErrConflict", err)
	}
	got, err := st.GetOrganization(ctx, "o1")
	if err != nil || !reflect.DeepEqual(got, acme) {
		t.Errorf("GetOrganization(o1) = %+v, %v; want %+v", got, err, acme)
	}
	if _, err := st.GetOrganization(ctx, "nope"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("GetOrganization(nope): %v, want ErrNotFound", err)
	}
	all, err := st.ListOrganizations(ctx)
	if err != nil || len(all) != 2 || all[0].ID != "o1" || all[1].ID != "o2" {
		t.Fatalf("ListOrganizations = %+v, %v; want o1, o2", all, err)
	}

	// Adding an environment: compare-and-set on the version.
	upd := acme
	upd.Environments = append(append([]warehouse.OrgEnvironment{}, acme.Environments...),
		warehouse.OrgEnvironment{Slug: "stg", Environment: "o1/stg", ProjectID: "default", CreatedAt: at.Add(time.Hour)})
	upd.Version = 2
	if err := st.UpdateOrganization(ctx, upd); err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateOrganization(ctx, upd); !errors.Is(err, warehouse.ErrConflict) {
		t.Errorf("UpdateOrganization with a stale version: %v, want ErrConflict", err)
	}
	ghost := org("nope", "x")
	ghost.Version = 2
	if err := st.UpdateOrganization(ctx, ghost); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("UpdateOrganization of a missing organization: %v, want ErrNotFound", err)
	}
	if got, _ := st.GetOrganization(ctx, "o1"); !reflect.DeepEqual(got, upd) {
		t.Errorf("after update = %+v, want %+v", got, upd)
	}
	if all, _ := st.ListOrganizations(ctx); len(all) != 2 || all[0].ID != "o1" {
		t.Errorf("an update changed the listing order: %+v", all)
	}

	// Keys: lookup by digest, listing per organization, revocation.
	v0, err := st.APIKeysVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k4 := key("k4", "d4", upd, "stg")
	if err := st.CreateAPIKey(ctx, k4); err != nil {
		t.Fatal(err)
	}
	v1, _ := st.APIKeysVersion(ctx)
	if v1 == v0 {
		t.Errorf("APIKeysVersion did not change with a new key (%s)", v0)
	}
	if got, err := st.APIKeyByDigest(ctx, "d4"); err != nil || !reflect.DeepEqual(got, k4) {
		t.Errorf("APIKeyByDigest(d4) = %+v, %v; want %+v", got, err, k4)
	}
	if _, err := st.APIKeyByDigest(ctx, "d-unknown"); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("APIKeyByDigest of an unknown digest: %v, want ErrNotFound", err)
	}
	ids := func(ks []warehouse.APIKey) []string {
		var out []string
		for _, k := range ks {
			out = append(out, k.ID)
		}
		return out
	}
	if ks, err := st.APIKeys(ctx, "o1"); err != nil || !reflect.DeepEqual(ids(ks), []string{"k1", "k2", "k4"}) {
		t.Errorf("APIKeys(o1) = %v, %v; want k1 k2 k4", ids(ks), err)
	}
	if ks, err := st.APIKeys(ctx, ""); err != nil || len(ks) != 4 {
		t.Errorf("APIKeys() = %v, %v; want all four", ids(ks), err)
	}
	revoked := at.Add(2 * time.Hour)
	if err := st.RevokeAPIKey(ctx, "o2", "k2", revoked); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("revoking o1's key as o2: %v, want ErrNotFound", err)
	}
	if err := st.RevokeAPIKey(ctx, "o1", "k2", revoked); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeAPIKey(ctx, "o1", "k2", revoked.Add(time.Hour)); err != nil {
		t.Errorf("revoking again: %v", err)
	}
	v2, _ := st.APIKeysVersion(ctx)
	if v2 == v1 {
		t.Errorf("APIKeysVersion did not change with a revocation (%s)", v1)
	}
	got2, err := st.APIKeyByDigest(ctx, "d2")
	if err != nil || got2.RevokedAt == nil || !got2.RevokedAt.Equal(revoked) {
		t.Errorf("revoked key = %+v, %v; want revoked at %v (the first revocation)", got2, err, revoked)
	}
	if ks, _ := st.APIKeys(ctx, "o1"); len(ks) != 3 || ks[1].ID != "k2" || ks[1].RevokedAt == nil || ks[0].RevokedAt != nil {
		t.Errorf("APIKeys(o1) after revocation = %+v", ks)
	}
	if v3, _ := st.APIKeysVersion(ctx); v3 != v2 {
		t.Errorf("APIKeysVersion changed without a change: %s then %s", v2, v3)
	}
}
