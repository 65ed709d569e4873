package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// testSessions: console sessions are found by token hash while live, and
// not once ended, expired or opened with a runtime key since revoked;
// expired ones are purged, live ones kept.
func testSessions(t *testing.T, open Opener) {
	st := openStore(t, open)
	ctx := context.Background()
	now := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	sess := func(hash, env, keyDigest string, ttl time.Duration) warehouse.Session {
		return warehouse.Session{TokenHash: hash, Environment: env, OrganizationID: "org-" + env, ProjectID: "p-" + env,
			KeyDigest: keyDigest, KeyID: "kid-" + keyDigest, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	}
	create := func(ss ...warehouse.Session) {
		t.Helper()
		for _, s := range ss {
			if err := st.CreateSession(ctx, s); err != nil {
				t.Fatalf("CreateSession(%s): %v", s.TokenHash, err)
			}
		}
	}
	live := func(hash string, at time.Time) (warehouse.Session, bool) {
		t.Helper()
		got, err := st.GetSession(ctx, hash, at)
		if errors.Is(err, warehouse.ErrNotFound) {
			return got, false
		}
		if err != nil {
			t.Fatalf("GetSession(%s): %v", hash, err)
		}
		return got, true
	}

	yaml := sess("h-yaml", "env-a", "digest-of-a-yaml-key", time.Hour)
	create(yaml, sess("h-short", "env-a", "digest-of-a-yaml-key", time.Minute))
	if got, ok := live("h-yaml", now); !ok || got != yaml {
		t.Fatalf("GetSession = %+v, %v; want %+v", got, ok, yaml)
	}
	if _, ok := live("h-nope", now); ok {
		t.Error("an unknown token hash is a session")
	}
	// Expiry is checked at the time asked.
	if _, ok := live("h-short", now.Add(59*time.Second)); !ok {
		t.Error("a session before its expiry is not found")
	}
	if _, ok := live("h-short", now.Add(time.Minute)); ok {
		t.Error("a session at its expiry is still found")
	}

	// Logout ends one session, not the others of the same key.
	create(sess("h-out", "env-a", "digest-of-a-yaml-key", time.Hour))
	if err := st.EndSession(ctx, "h-out", now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, ok := live("h-out", now.Add(2*time.Second)); ok {
		t.Error("an ended session is still found")
	}
	if _, ok := live("h-yaml", now.Add(2*time.Second)); !ok {
		t.Error("ending one session ended another of the same key")
	}
	for _, h := range []string{"h-out", "h-nope"} {
		if err := st.EndSession(ctx, h, now.Add(3*time.Second)); err != nil {
			t.Errorf("EndSession(%s) again or unknown: %v", h, err)
		}
	}

	// Revoking a runtime key ends every session opened with it, and only
	// those.
	o := warehouse.Organization{ID: "so1", Name: "Sessions", CreatedAt: now, Version: 1,
		Environments: []warehouse.OrgEnvironment{{Slug: "prd", Environment: "so1/prd", ProjectID: "default", CreatedAt: now}}}
	k1 := warehouse.APIKey{ID: "sk1", Digest: "sd1", OrgID: "so1", EnvSlug: "prd", Environment: "so1/prd", ProjectID: "default", CreatedAt: now}
	k2 := k1
	k2.ID, k2.Digest = "sk2", "sd2"
	if err := st.CreateOrganization(ctx, o, []warehouse.APIKey{k1, k2}); err != nil {
		t.Fatal(err)
	}
	create(sess("h-k1a", "so1/prd", "sd1", time.Hour), sess("h-k1b", "so1/prd", "sd1", time.Hour), sess("h-k2", "so1/prd", "sd2", time.Hour))
	for _, h := range []string{"h-k1a", "h-k1b", "h-k2"} {
		if _, ok := live(h, now); !ok {
			t.Fatalf("session %s of a live runtime key not found", h)
		}
	}
	if err := st.RevokeAPIKey(ctx, "so1", "sk1", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]bool{"h-k1a": false, "h-k1b": false, "h-k2": true, "h-yaml": true} {
		if _, ok := live(h, now.Add(2*time.Minute)); ok != want {
			t.Errorf("after revoking sk1: session %s live = %v, want %v", h, ok, want)
		}
	}

	// Purging deletes what expired before the bound and keeps the rest.
	for i := range 5 {
		create(sess(fmt.Sprintf("h-old-%d", i), "env-b", "digest-b", time.Duration(i+1)*time.Second))
	}
	n, err := st.PurgeSessions(ctx, now.Add(time.Minute+time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if n != -1 && n != 6 { // five h-old and h-short
		t.Errorf("PurgeSessions deleted %d, want 6 (or -1: unknown)", n)
	}
	if _, ok := live("h-yaml", now.Add(3*time.Minute)); !ok {
		t.Error("purging deleted a live session")
	}
	if _, ok := live("h-short", now.Add(59*time.Second)); ok && n != -1 {
		t.Error("a purged session is still found")
	}
}
