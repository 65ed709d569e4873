package organizations

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// countingStore counts the digest lookups that reach the warehouse.
type countingStore struct {
	warehouse.OrgStore
	lookups atomic.Int64
}

func (c *countingStore) APIKeyByDigest(ctx context.Context, digest string) (warehouse.APIKey, error) {
	c.lookups.Add(1)
	return c.OrgStore.APIKeyByDigest(ctx, digest)
}

func openStore(t *testing.T) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.db")
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st, path
}

// collector is one collector's view: its keyring (with a YAML key) and
// cache over the shared store.
type collector struct {
	keys  *tenant.Keyring
	cache *Cache
	svc   *Service
}

func newCollector(store warehouse.OrgStore) collector {
	c := collector{
		keys:  tenant.NewKeyring([]tenant.Key{{Secret: "yaml-admin-key", Tenant: tenant.Tenant{Environment: "ops", Admin: true}}}),
		cache: NewCache(store, CacheOptions{}),
	}
	c.keys.SetResolver(c.cache)
	c.svc = NewService(store, c.cache, nil)
	return c
}

func TestCreateResolveRevoke(t *testing.T) {
	st, path := openStore(t)
	ctx := context.Background()
	a, b := newCollector(st), newCollector(st)
	if err := b.cache.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	created, err := a.svc.Create(ctx, CreateRequest{OrgName: "Demo Organization", Envs: []string{"dev", "prd"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Environments) != 2 || created.Environments[0].Slug != "dev" || created.Environments[1].Slug != "prd" {
		t.Fatalf("created = %+v", created)
	}
	dev, prd := created.Environments[0], created.Environments[1]
	if !strings.HasPrefix(dev.APIKey, SecretPrefix) || len(dev.APIKey) != len(SecretPrefix)+43 || dev.APIKey == prd.APIKey {
		t.Errorf("keys %q, %q: want two distinct %s + 256-bit secrets", dev.APIKey, prd.APIKey, SecretPrefix)
	}
	want := tenant.Tenant{Environment: created.OrgID + "/dev", OrganizationID: created.OrgID, ProjectID: "default", EnvironmentSlug: "dev"}
	// Valid at once on the collector that made it, and on another one
	// (which has not refreshed since).
	for name, c := range map[string]collector{"a": a, "b": b} {
		if got, ok := c.keys.Lookup(dev.APIKey); !ok || got != want {
			t.Errorf("collector %s: Lookup(dev key) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	if got, ok := a.keys.Lookup("yaml-admin-key"); !ok || !got.Admin {
		t.Errorf("YAML key = %+v, %v", got, ok)
	}

	// The warehouse holds the digests, never the secrets.
	_ = st.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(path + "-wal")
	data = append(data, wal...)
	for _, k := range created.Environments {
		if bytes.Contains(data, []byte(k.APIKey)) || bytes.Contains(data, []byte(strings.TrimPrefix(k.APIKey, SecretPrefix))) {
			t.Errorf("the warehouse file holds the secret of %s", k.Slug)
		}
		if d := DigestOf(k.APIKey); !bytes.Contains(data, []byte(digestHex(d))) {
			t.Errorf("the warehouse file lacks the digest of %s", k.Slug)
		}
	}
	st2, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	a, b = newCollector(st2), newCollector(st2)
	for _, c := range []collector{a, b} {
		if err := c.cache.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := b.keys.Lookup(prd.APIKey); !ok {
		t.Fatal("prd key not valid after a restart")
	}

	// Revocation: refused at once where revoked, after a refresh elsewhere.
	if err := a.svc.RevokeKey(ctx, created.OrgID, prd.KeyID); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.keys.Lookup(prd.APIKey); ok {
		t.Error("revoked key still valid on the collector that revoked it")
	}
	if err := b.cache.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.keys.Lookup(prd.APIKey); ok {
		t.Error("revoked key still valid on another collector after its refresh")
	}
	if _, ok := b.keys.Lookup(dev.APIKey); !ok {
		t.Error("revoking prd's key refused dev's")
	}

	// Rotation: the new key works, the old one is refused at once.
	rotated, err := a.svc.RotateKey(ctx, created.OrgID, dev.KeyID)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := a.keys.Lookup(rotated.APIKey); !ok || got != want || rotated.Slug != "dev" {
		t.Errorf("rotated key = %+v → %+v, %v", rotated, got, ok)
	}
	if _, ok := a.keys.Lookup(dev.APIKey); ok {
		t.Error("old key still valid after rotation")
	}
	var re *RequestError
	if _, err := a.svc.RotateKey(ctx, created.OrgID, dev.KeyID); !errors.As(err, &re) {
		t.Errorf("rotating a revoked key: %v, want a RequestError", err)
	}
	if err := a.svc.RevokeKey(ctx, "other-org", rotated.KeyID); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("revoking with another organization's id: %v, want ErrNotFound", err)
	}

	// A new environment, listed with key ids and never a secret.
	stg, err := a.svc.AddEnvironment(ctx, created.OrgID, "stg")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := b.keys.Lookup(stg.APIKey); !ok || got.Environment != created.OrgID+"/stg" {
		t.Errorf("stg key on another collector = %+v, %v", got, ok)
	}
	if _, err := a.svc.AddEnvironment(ctx, created.OrgID, "stg"); !errors.Is(err, ErrEnvironmentExists) {
		t.Errorf("adding stg twice: %v, want ErrEnvironmentExists", err)
	}
	v, err := a.svc.Get(ctx, created.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Environments) != 3 || len(v.Environments[0].Keys) != 2 || v.Environments[0].Keys[0].RevokedAt == nil || v.Environments[0].Keys[1].RevokedAt != nil {
		t.Errorf("organization view = %+v", v)
	}
	if org, ok := a.cache.OrganizationOf(created.OrgID + "/stg"); !ok || org != created.OrgID {
		t.Errorf("OrganizationOf(stg) = %q, %v", org, ok)
	}
}

func TestCreateRequestValidation(t *testing.T) {
	neg, big := -1, 721
	tests := []struct {
		req  CreateRequest
		want string
	}{
		{CreateRequest{}, "org_name: is required"},
		{CreateRequest{OrgName: strings.Repeat("n", 257)}, "org_name: is 257 bytes long"},
		{CreateRequest{OrgName: "x", Envs: []string{"prd", "Prd"}}, `envs[1]: "Prd" is not an environment slug`},
		{CreateRequest{OrgName: "x", Envs: []string{"prd", "prd"}}, `envs[1]: "prd" is listed twice`},
		{CreateRequest{OrgName: "x", Envs: []string{"a/b"}}, `envs[0]: "a/b" is not an environment slug`},
		{CreateRequest{OrgName: "x", Envs: make([]string, 33)}, "envs: lists 33 environments; the limit is 32"},
		{CreateRequest{OrgName: "x", RetentionHours: &neg}, "retention_hours: must be between 1 and 720"},
		{CreateRequest{OrgName: "x", RetentionHours: &big}, "retention_hours: must be between 1 and 720"},
	}
	for _, tt := range tests {
		err := tt.req.Validate()
		var re *RequestError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want a RequestError containing %q", tt.req, err, tt.want)
		}
	}
	r := CreateRequest{OrgName: "x"}
	if err := r.Validate(); err != nil || len(r.Envs) != 1 || r.Envs[0] != "prd" || *r.RetentionHours != 720 {
		t.Errorf("defaults: %+v, %v; want envs [prd], retention 720", r, err)
	}
}

// TestUnknownKeysBounded: a flood of made-up keys neither grows the cache
// past its bound nor reaches the warehouse more than the miss rate allows,
// and a real key made meanwhile through another collector is still found.
func TestUnknownKeysBounded(t *testing.T) {
	st, _ := openStore(t)
	counting := &countingStore{OrgStore: st}
	cache := NewCache(counting, CacheOptions{NegativeSize: 100, MissLookups: 5})
	keys := tenant.NewKeyring(nil)
	keys.SetResolver(cache)
	ctx := context.Background()
	if err := cache.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 5000 {
		var b [32]byte
		_, _ = rand.Read(b[:])
		if _, ok := keys.Lookup(SecretPrefix + string(b[:])); ok {
			t.Fatal("a made-up key was accepted")
		}
	}
	elapsed := time.Since(start)
	if n := cache.negativeLen(); n > 100 {
		t.Errorf("the negative cache holds %d digests, over its bound of 100", n)
	}
	// Burst 10 plus 5 per second.
	if n, limit := counting.lookups.Load(), int64(10+5*elapsed.Seconds()+1); n > limit {
		t.Errorf("%d warehouse lookups for 5000 unknown keys in %s, over the limit %d", n, elapsed, limit)
	}
	// The same unknown key again is answered from memory.
	var b [32]byte
	_, _ = rand.Read(b[:])
	unknown := SecretPrefix + string(b[:])
	time.Sleep(250 * time.Millisecond) // a token for the first lookup
	keys.Lookup(unknown)
	before := counting.lookups.Load()
	for range 100 {
		keys.Lookup(unknown)
	}
	if after := counting.lookups.Load(); after != before {
		t.Errorf("a remembered unknown key reached the warehouse %d more times", after-before)
	}

	other := newCollector(st)
	created, err := other.svc.Create(ctx, CreateRequest{OrgName: "Later"})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(250 * time.Millisecond)
	if _, ok := keys.Lookup(created.Environments[0].APIKey); !ok {
		t.Error("a key made through another collector was not found")
	}
}
