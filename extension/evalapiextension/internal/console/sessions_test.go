package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/organizations"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// Hostile sessions (issue #32, items 2 and 3): a session cookie must stop
// working when the user logs out (a copy taken before still worked: the
// cookie was a stateless signature) and when the API key that opened it
// is revoked or rotated, on every collector of the warehouse within
// seconds (it kept working for session_ttl).

// collector is one console + API in front of a shared warehouse, with its
// own keyring and runtime-key cache, as one evalcol collector has.
type collector struct {
	*httptest.Server
	orgs  *organizations.Service
	cache *organizations.Cache
}

func newCollector(t *testing.T, store warehouse.Store) *collector {
	t.Helper()
	return newCollectorKeys(t, store, []tenant.Key{{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}}})
}

// newCollectorKeys is newCollector with the YAML keys yamlKeys.
func newCollectorKeys(t *testing.T, store warehouse.Store, yamlKeys []tenant.Key) *collector {
	t.Helper()
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	var monitors monitor.Set
	svc := setups.NewService(setups.Options{Store: store, Compiler: compiler, Monitors: &monitors, Poll: time.Hour})
	keys := tenant.NewKeyring(yamlKeys)
	cache := organizations.NewCache(store, organizations.CacheOptions{})
	if err := cache.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	keys.SetResolver(cache)
	orgs := organizations.NewService(store, cache, nil)
	api := httpapi.New(httpapi.Options{Keys: keys, Store: store, Setups: svc, Organizations: orgs, MaxBodyBytes: 64 << 10})
	con, err := New(Options{Keys: keys, Store: store, Setups: svc, SessionKeys: StaticKeys(secret), MaxBodyBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Mount(api, con))
	t.Cleanup(srv.Close)
	return &collector{Server: srv, orgs: orgs, cache: cache}
}

// loginAt logs in at base with key and returns the session cookie.
func loginAt(t *testing.T, base, key string) *http.Cookie {
	t.Helper()
	s := &testServer{Server: &httptest.Server{URL: base}}
	c := plainClient()
	a := s.login(t, c, key)
	ck := setSession(a.header)
	if a.status != http.StatusSeeOther || ck == nil {
		t.Fatalf("login at %s: %d, cookie %v", base, a.status, ck)
	}
	return ck
}

func plainClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// withCookie answers a request carrying only the session cookie ck.
func withCookie(t *testing.T, method, u string, ck *http.Cookie, form url.Values) answer {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// loggedOut reports whether a GET of a console page with ck goes to the
// login page (303 to /ui/login) rather than answering it.
func loggedOut(t *testing.T, base string, ck *http.Cookie) bool {
	t.Helper()
	a := withCookie(t, "GET", base+"/ui/evaluators", ck, nil)
	switch {
	case a.status == http.StatusSeeOther && len(a.header.Get("Location")) >= 9 && a.header.Get("Location")[:9] == "/ui/login":
		return true
	case a.status == http.StatusOK:
		return false
	}
	t.Fatalf("GET /ui/evaluators: %d %s", a.status, a.header.Get("Location"))
	return false
}

// TestHostileLogoutEndsCopiedCookie: a copy of the session cookie taken
// before logout is refused after it, for reading and for writing, on
// this collector at once and on another collector of the warehouse
// within the session cache bound.
func TestHostileLogoutEndsCopiedCookie(t *testing.T) {
	store := openSharedSQLite(t)
	a, b := newCollector(t, store), newCollector(t, store)
	ck := loginAt(t, a.URL, keyA)
	if loggedOut(t, a.URL, ck) || loggedOut(t, b.URL, ck) {
		t.Fatal("a fresh session is refused")
	}
	// A form token of the session, taken before logout too.
	page := withCookie(t, "GET", a.URL+"/ui/monitors/new", ck, nil)
	token := csrf(t, page.body)
	if out := withCookie(t, "POST", a.URL+"/ui/logout", ck, url.Values{"csrf": {token}}); out.status != http.StatusSeeOther {
		t.Fatalf("logout: %d", out.status)
	}
	if !loggedOut(t, a.URL, ck) {
		t.Error("after logout the copied cookie still reads pages on the same collector")
	}
	create := withCookie(t, "POST", a.URL+"/ui/monitors", ck, url.Values{"csrf": {token}, "entity_type": {"workflow"},
		"entity_value": {"after-logout"}, "evaluators": {"char-count"}})
	if create.status != http.StatusUnauthorized {
		t.Errorf("after logout the copied cookie posted a setup: %d", create.status)
	}
	if page, err := store.ListSetups(context.Background(), warehouse.SetupQuery{Environment: "env-a", Limit: 10}); err != nil || len(page.Setups) != 0 {
		t.Errorf("setups after the refused post: %d, %v; want none", len(page.Setups), err)
	}
	waitLoggedOut(t, b.URL, ck, "the other collector")
}

// waitLoggedOut fails unless ck is refused at base within the documented
// bound (SessionCheckInterval) plus a margin.
func waitLoggedOut(t *testing.T, base string, ck *http.Cookie, where string) {
	t.Helper()
	start := time.Now()
	for !loggedOut(t, base, ck) {
		if time.Since(start) > SessionCheckInterval+2*time.Second {
			t.Fatalf("%s still accepts the session %s after it ended", where, time.Since(start).Round(time.Millisecond))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%s refused the session after %s", where, time.Since(start).Round(time.Millisecond))
}

// TestHostileRevokedKeyEndsSession: revoking or rotating the runtime key
// that opened a session ends it on the collector that revoked at once and
// on the others within seconds, while a session of another key goes on.
func TestHostileRevokedKeyEndsSession(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testRevokedKeyEndsSession(t, openSharedSQLite(t)) })
	t.Run("clickhouse", func(t *testing.T) {
		addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
		if addr == "" {
			t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set (scripts/clickhouse.sh start prints it)")
		}
		db := fmt.Sprintf("evalcol_sessions_%x", time.Now().UnixNano())
		t.Cleanup(func() {
			_ = clickhouse.DropDatabase(context.Background(), clickhouse.Options{Addr: addr, Database: db})
		})
		st, err := clickhouse.Open(context.Background(), clickhouse.Options{Addr: addr, Database: db})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		testRevokedKeyEndsSession(t, st)
	})
}

func testRevokedKeyEndsSession(t *testing.T, store warehouse.Store) {
	ctx := context.Background()
	a, b := newCollector(t, store), newCollector(t, store)
	created, err := a.orgs.Create(ctx, organizations.CreateRequest{OrgName: "Hostile", Envs: []string{"prd", "dev"}})
	if err != nil {
		t.Fatal(err)
	}
	prd, dev := created.Environments[0], created.Environments[1]
	revoked, rotated, other := loginAt(t, a.URL, prd.APIKey), loginAt(t, b.URL, dev.APIKey), loginAt(t, b.URL, prd.APIKey)
	yaml := loginAt(t, b.URL, keyA)
	for _, ck := range []*http.Cookie{revoked, rotated, other, yaml} {
		if loggedOut(t, a.URL, ck) || loggedOut(t, b.URL, ck) {
			t.Fatal("a fresh session is refused")
		}
	}
	// Revoke prd's key on A: both of its sessions (opened on A and on B)
	// end on A at once and on B within seconds.
	if err := a.orgs.RevokeKey(ctx, created.OrgID, prd.KeyID); err != nil {
		t.Fatal(err)
	}
	if !loggedOut(t, a.URL, revoked) || !loggedOut(t, a.URL, other) {
		t.Error("the revoking collector still accepts a session of the revoked key")
	}
	waitLoggedOut(t, b.URL, revoked, "the other collector (revoked key)")
	waitLoggedOut(t, b.URL, other, "the other collector (revoked key, session opened there)")
	// Rotate dev's key on B: the session of the old key ends on A.
	if _, err := b.orgs.RotateKey(ctx, created.OrgID, dev.KeyID); err != nil {
		t.Fatal(err)
	}
	waitLoggedOut(t, a.URL, rotated, "the other collector (rotated key)")
	if loggedOut(t, a.URL, yaml) || loggedOut(t, b.URL, yaml) {
		t.Error("a session of another key ended")
	}
}

func openSharedSQLite(t *testing.T) warehouse.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestHostileRemovedYAMLKeyEndsSession: a collector whose configuration no
// longer has the key a session was opened with (a restart with the key
// removed) refuses the session, though the warehouse still holds it; a
// key now configured for another environment does not take it over.
func TestHostileRemovedYAMLKeyEndsSession(t *testing.T) {
	store := openSharedSQLite(t)
	a := newCollector(t, store)
	ck := loginAt(t, a.URL, keyA)
	removed := newCollectorKeys(t, store, []tenant.Key{{Secret: keyB, Tenant: tenant.Tenant{Environment: "env-b"}}})
	if !loggedOut(t, removed.URL, ck) {
		t.Error("a collector without the key accepts its session")
	}
	moved := newCollectorKeys(t, store, []tenant.Key{{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-b"}}})
	if !loggedOut(t, moved.URL, ck) {
		t.Error("a collector with the key in another environment accepts the session of the old one")
	}
	if loggedOut(t, a.URL, ck) {
		t.Error("the collector that still has the key refused the session")
	}
}

// TestExpiredSessionsPurged: a login purges the sessions that expired
// (at most every purgeEvery), so the table holds the logins of about one
// session_ttl.
func TestExpiredSessionsPurged(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := newTestServer(t, false, func(o *Options) { o.Now = clock; o.SessionTTL = time.Hour })
	old := setSession(s.login(t, s.client(t), keyA).header)
	token, _, _ := strings.Cut(old.Value, ".")
	hash := tokenHash(token)
	ctx := context.Background()
	if _, err := s.store.GetSession(ctx, hash, now); err != nil {
		t.Fatalf("the session is not stored: %v", err)
	}
	mu.Lock()
	now = now.Add(time.Hour + purgeEvery)
	mu.Unlock()
	s.login(t, s.client(t), keyB)
	// Asked as of before its expiry, the old session is gone: deleted.
	if _, err := s.store.GetSession(ctx, hash, now.Add(-2*time.Hour)); !errors.Is(err, warehouse.ErrNotFound) {
		t.Errorf("the expired session is still stored after a later login: %v", err)
	}
}
