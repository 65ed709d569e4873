package console

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

const (
	keyA   = "key-environment-a"
	keyB   = "key-environment-b"
	secret = "0123456789abcdef0123456789abcdef"
)

type testServer struct {
	*httptest.Server
	store   warehouse.Store
	setups  *setups.Service
	console *Console
}

// newTestServer serves the console in front of the real /v2 API on a
// loopback port, with a real SQLite warehouse, a real setup service and
// two keys of two environments.
func newTestServer(t *testing.T, tlsServer bool, mutate func(*Options)) *testServer {
	t.Helper()
	return newTestServerAPI(t, tlsServer, mutate, nil)
}

// newTestServerAPI is newTestServer with the API's options changed by
// mutateAPI too; the console's playground runs under the API's evaluator
// limits, as in the extension.
func newTestServerAPI(t *testing.T, tlsServer bool, mutate func(*Options), mutateAPI func(*httpapi.Options)) *testServer {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	var monitors monitor.Set
	svc := setups.NewService(setups.Options{Store: store, Compiler: compiler, Monitors: &monitors, Poll: time.Hour})
	keys := tenant.NewKeyring([]tenant.Key{
		{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}},
		{Secret: keyB, Tenant: tenant.Tenant{Environment: "env-b", OrganizationID: "org-b", ProjectID: "p-b"}},
	})
	apiOpts := httpapi.Options{Keys: keys, Store: store, Setups: svc, MaxBodyBytes: 64 << 10}
	if mutateAPI != nil {
		mutateAPI(&apiOpts)
	}
	api := httpapi.New(apiOpts)
	opts := Options{Keys: keys, Store: store, Setups: svc, SessionKeys: StaticKeys(secret), MaxBodyBytes: 64 << 10,
		AcquireEvaluation: api.AcquireEvaluation}
	if mutate != nil {
		mutate(&opts)
	}
	con, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := Mount(api, con)
	var srv *httptest.Server
	if tlsServer {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return &testServer{Server: srv, store: store, setups: svc, console: con}
}

// client returns an HTTP client with a cookie jar that does not follow
// redirects.
func (s *testServer) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := s.Client()
	return &http.Client{Jar: jar, Transport: c.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, c *http.Client, method, u string, form url.Values, header ...string) answer {
	t.Helper()
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
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the CSRF token of the first form of a page.
func csrf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("page has no CSRF field:\n%s", page)
	}
	return m[1]
}

// login logs c in with key through the login form and returns the answer
// of the POST.
func (s *testServer) login(t *testing.T, c *http.Client, key string) answer {
	t.Helper()
	form := do(t, c, "GET", s.URL+"/ui/login", nil)
	if form.status != 200 {
		t.Fatalf("GET /ui/login = %d", form.status)
	}
	return do(t, c, "POST", s.URL+"/ui/login", url.Values{"csrf": {csrf(t, form.body)}, "api_key": {key}, "next": {"/ui/monitors"}})
}

func setSession(h http.Header) *http.Cookie {
	for _, raw := range h.Values("Set-Cookie") {
		if ck, err := http.ParseSetCookie(raw); err == nil && ck.Name == "evalcol_session" {
			return ck
		}
	}
	return nil
}

func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	for _, path := range []string{"/ui/login", "/ui/traces", "/ui/monitors", "/ui/evaluators", "/ui/evaluators/pii-detector", "/ui/static/console.css", "/ui/static/console.js", "/ui/nope"} {
		a := do(t, c, "GET", s.URL+path, nil)
		if csp := a.header.Get("Content-Security-Policy"); csp != "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'" {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if a.header.Get("X-Content-Type-Options") != "nosniff" || a.header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: nosniff %q, frame options %q", path, a.header.Get("X-Content-Type-Options"), a.header.Get("X-Frame-Options"))
		}
		if strings.Contains(a.body, "<script>") || strings.Contains(a.body, " style=") || regexp.MustCompile(`\son[a-z]+=`).MatchString(a.body) {
			t.Errorf("%s: inline script, style or event handler in the page", path)
		}
		if strings.Contains(a.body, "http://") || strings.Contains(a.body, "https://") {
			if !strings.HasPrefix(path, "/ui/static/") {
				t.Errorf("%s: page refers to an outside URL", path)
			}
		}
	}
	if a := do(t, c, "GET", s.URL+"/ui/traces", nil); a.header.Get("Cache-Control") != "no-store" {
		t.Errorf("page Cache-Control %q", a.header.Get("Cache-Control"))
	}
	if a := do(t, c, "GET", s.URL+"/ui/static/console.css", nil); a.status != 200 || a.header.Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("console.css: %d %q", a.status, a.header.Get("Content-Type"))
	}
	if a := do(t, c, "GET", s.URL+"/ui/nope", nil); a.status != 404 || !strings.Contains(a.body, "Page not found") {
		t.Errorf("unknown page: %d", a.status)
	}
}

func TestLogin(t *testing.T) {
	s := newTestServer(t, false, nil)
	t.Run("wrong key", func(t *testing.T) {
		c := s.client(t)
		a := s.login(t, c, "not-a-configured-key")
		if a.status != 401 || !strings.Contains(a.body, "Invalid API key.") {
			t.Fatalf("wrong key: %d\n%s", a.status, a.body)
		}
		if ck := setSession(a.header); ck != nil {
			t.Fatalf("wrong key got a session cookie %v", ck)
		}
		if a := do(t, c, "GET", s.URL+"/ui/traces", nil); a.status != 303 || !strings.HasPrefix(a.header.Get("Location"), "/ui/login") {
			t.Errorf("after a failed login /ui/traces = %d %s", a.status, a.header.Get("Location"))
		}
	})
	t.Run("empty key", func(t *testing.T) {
		a := s.login(t, s.client(t), "")
		if a.status != 401 || !strings.Contains(a.body, "Enter an API key.") || setSession(a.header) != nil {
			t.Errorf("empty key: %d", a.status)
		}
	})
	t.Run("no CSRF token", func(t *testing.T) {
		c := s.client(t)
		do(t, c, "GET", s.URL+"/ui/login", nil)
		a := do(t, c, "POST", s.URL+"/ui/login", url.Values{"api_key": {keyA}})
		if a.status != 403 || setSession(a.header) != nil || !strings.Contains(a.body, "expired") {
			t.Errorf("login without CSRF token: %d, cookie %v", a.status, setSession(a.header))
		}
	})
	t.Run("token of another browser", func(t *testing.T) {
		other := s.client(t)
		token := csrf(t, do(t, other, "GET", s.URL+"/ui/login", nil).body)
		c := s.client(t)
		do(t, c, "GET", s.URL+"/ui/login", nil)
		if a := do(t, c, "POST", s.URL+"/ui/login", url.Values{"csrf": {token}, "api_key": {keyA}}); a.status != 403 || setSession(a.header) != nil {
			t.Errorf("login with another browser's token: %d", a.status)
		}
	})
	t.Run("right key", func(t *testing.T) {
		c := s.client(t)
		a := s.login(t, c, keyA)
		if a.status != 303 || a.header.Get("Location") != "/ui/monitors" {
			t.Fatalf("login = %d to %q", a.status, a.header.Get("Location"))
		}
		ck := setSession(a.header)
		if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/ui/" || ck.MaxAge != 12*3600 || ck.Secure {
			t.Fatalf("session cookie = %+v", ck)
		}
		page := do(t, c, "GET", s.URL+"/ui/traces", nil)
		if page.status != 200 || !strings.Contains(page.body, `id="tenant-env">env-a<`) || !strings.Contains(page.body, `id="tenant-org">org-a<`) {
			t.Errorf("traces page after login: %d", page.status)
		}
	})
	t.Run("bearer form", func(t *testing.T) {
		if a := s.login(t, s.client(t), "Bearer "+keyB); a.status != 303 || setSession(a.header) == nil {
			t.Errorf("login with 'Bearer <key>' = %d", a.status)
		}
	})
	t.Run("cross-site post", func(t *testing.T) {
		c := s.client(t)
		form := do(t, c, "GET", s.URL+"/ui/login", nil)
		a := do(t, c, "POST", s.URL+"/ui/login", url.Values{"csrf": {csrf(t, form.body)}, "api_key": {keyA}}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if a.status != 403 || setSession(a.header) != nil {
			t.Errorf("cross-site login = %d", a.status)
		}
	})
}

func TestSameSite(t *testing.T) {
	// httptest.NewRequest's peer is 192.0.2.1:1234.
	trusting := &Console{opts: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}}
	other := &Console{opts: Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	trustingNone := &Console{}
	for _, tc := range []struct {
		c       *Console
		headers map[string]string
		want    bool
	}{
		{trustingNone, map[string]string{}, true},
		{trustingNone, map[string]string{"Sec-Fetch-Site": "same-origin"}, true},
		{trustingNone, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://public.example"}, true}, // a proxy rewrote Host
		{trustingNone, map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{trustingNone, map[string]string{"Sec-Fetch-Site": "same-site"}, false},
		{trustingNone, map[string]string{"Origin": "http://console.test"}, true},
		{trustingNone, map[string]string{"Origin": "https://evil.example"}, false},
		{trusting, map[string]string{"Origin": "https://public.example", "X-Forwarded-Host": "public.example"}, true},
		// Anyone can send X-Forwarded-Host: only a trusted proxy's counts.
		{trustingNone, map[string]string{"Origin": "https://evil.example", "X-Forwarded-Host": "evil.example"}, false},
		{other, map[string]string{"Origin": "https://evil.example", "X-Forwarded-Host": "evil.example"}, false},
		{trusting, map[string]string{"Origin": "https://evil.example", "X-Forwarded-Host": "public.example"}, false},
	} {
		r := httptest.NewRequest("POST", "http://console.test/ui/login", nil)
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		if got := tc.c.sameSite(r); got != tc.want {
			t.Errorf("%v (trusted %v): sameSite = %v, want %v", tc.headers, tc.c.opts.TrustedProxies, got, tc.want)
		}
	}
}

func TestSecureCookieOverTLS(t *testing.T) {
	s := newTestServer(t, true, nil)
	c := s.client(t)
	c.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // test server
	a := s.login(t, c, keyA)
	if ck := setSession(a.header); ck == nil || !ck.Secure {
		t.Fatalf("session cookie over TLS = %+v, want Secure", ck)
	}
}

func TestNextStaysOnConsole(t *testing.T) {
	for next, want := range map[string]string{
		"/ui/monitors?x=1":         "/ui/monitors?x=1",
		"//evil.example/ui/":       "/ui/traces",
		"https://evil.example/ui/": "/ui/traces",
		"/v2/metrics":              "/ui/traces",
		"/ui/\\evil":               "/ui/traces",
		"/ui/login?next=/ui/x":     "/ui/traces",
		"":                         "/ui/traces",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}

func TestSessionCookie(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := newTestServer(t, false, func(o *Options) { o.Now = clock; o.SessionTTL = time.Hour })
	c := s.client(t)
	a := s.login(t, c, keyA)
	ck := setSession(a.header)
	if ck == nil || ck.MaxAge != 3600 {
		t.Fatalf("cookie %+v", ck)
	}
	get := func(value string) answer {
		req, _ := http.NewRequest("GET", s.URL+"/ui/traces", nil)
		req.AddCookie(&http.Cookie{Name: "evalcol_session", Value: value})
		resp, err := s.client(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header, string(b)}
	}
	if a := get(ck.Value); a.status != 200 {
		t.Fatalf("valid cookie: %d", a.status)
	}
	// Another token under the old signature.
	token, sig, _ := strings.Cut(ck.Value, ".")
	forged := randomToken() + randomToken()[:21] + "." + sig
	if a := get(forged); a.status != 303 {
		t.Errorf("forged token: %d, want a redirect to login", a.status)
	}
	// Signed with another secret.
	other := newSigner(StaticKeys("another-secret-another-secret-xx"), clock)
	_, foreign, _ := other.newToken(context.Background())
	if a := get(foreign); a.status != 303 {
		t.Errorf("cookie of another secret: %d", a.status)
	}
	// Signed with the right secret, but no such session in the warehouse.
	_, unknown, _ := s.console.signer.newToken(context.Background())
	if a := get(unknown); a.status != 303 {
		t.Errorf("a signed token of no session: %d", a.status)
	}
	for _, v := range []string{"", ".", "garbage", token, "a.b.c", strings.Repeat("x", 5000)} {
		if a := get(v); a.status != 303 {
			t.Errorf("cookie %q: %d", truncate(20, v), a.status)
		}
	}
	// Expired.
	now = now.Add(time.Hour)
	if a := get(ck.Value); a.status != 303 {
		t.Errorf("expired cookie: %d", a.status)
	}
}

func TestSessionSurvivesRestart(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	ck := setSession(s.login(t, c, keyA).header)
	// A second console (a restarted collector) with the same secret source.
	restarted, err := New(s.console.opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(restarted)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ui/evaluators", nil)
	req.AddCookie(ck)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("session after restart: %d", resp.StatusCode)
	}
}

func TestCSRFOnEveryChange(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/monitors/new", nil)
	token := csrf(t, page.body)
	create := url.Values{"external_id": {"x-1"}, "entity_type": {"workflow"}, "entity_value": {"wf"}, "evaluators": {"char-count"}, "sample_rate": {"1"}}
	// Another session's token.
	other := s.client(t)
	s.login(t, other, keyA)
	otherToken := csrf(t, do(t, other, "GET", s.URL+"/ui/monitors/new", nil).body)
	for name, form := range map[string]url.Values{"no token": create, "wrong token": with(create, "csrf", "AAAA"), "other session's token": with(create, "csrf", otherToken)} {
		if a := do(t, c, "POST", s.URL+"/ui/monitors", form); a.status != 403 || !strings.Contains(a.body, "Form expired") {
			t.Errorf("%s: create = %d", name, a.status)
		}
	}
	if a := do(t, c, "POST", s.URL+"/ui/monitors", with(create, "csrf", token), "Origin", "https://evil.example"); a.status != 403 {
		t.Errorf("cross-origin create = %d", a.status)
	}
	if page, _ := s.store.ListSetups(context.Background(), warehouse.SetupQuery{Environment: "env-a"}); len(page.Setups) != 0 {
		t.Fatalf("refused forms created %d setups", len(page.Setups))
	}
	a := do(t, c, "POST", s.URL+"/ui/monitors", with(create, "csrf", token))
	if a.status != 303 || !strings.HasPrefix(a.header.Get("Location"), "/ui/monitors?created=") {
		t.Fatalf("create with token = %d %s\n%s", a.status, a.header.Get("Location"), a.body)
	}
	list, _ := s.store.ListSetups(context.Background(), warehouse.SetupQuery{Environment: "env-a"})
	if len(list.Setups) != 1 || list.Setups[0].ExternalID != "x-1" || list.Setups[0].Evaluators[0].EvaluatorType != "char-count" {
		t.Fatalf("setups = %+v", list.Setups)
	}
	id := list.Setups[0].ID
	if a := do(t, c, "POST", s.URL+"/ui/monitors/"+id+"/delete", url.Values{}); a.status != 403 {
		t.Errorf("delete without token = %d", a.status)
	}
	if a := do(t, c, "POST", s.URL+"/ui/logout", url.Values{}); a.status != 403 || setSession(a.header) != nil {
		t.Errorf("logout without token = %d", a.status)
	}
	if _, err := s.store.GetSetup(context.Background(), "env-a", id); err != nil {
		t.Fatalf("setup gone after a refused delete: %v", err)
	}
	// env-b cannot delete env-a's setup even with its own valid token.
	cb := s.client(t)
	s.login(t, cb, keyB)
	tokenB := csrf(t, do(t, cb, "GET", s.URL+"/ui/monitors", nil).body)
	if a := do(t, cb, "POST", s.URL+"/ui/monitors/"+id+"/delete", url.Values{"csrf": {tokenB}}); a.status != 404 {
		t.Errorf("other environment's delete = %d, want 404", a.status)
	}
	if a := do(t, c, "POST", s.URL+"/ui/monitors/"+id+"/delete", url.Values{"csrf": {token}}); a.status != 303 {
		t.Errorf("delete with token = %d", a.status)
	}
	if _, err := s.store.GetSetup(context.Background(), "env-a", id); err == nil {
		t.Error("setup still there after delete")
	}
}

func with(v url.Values, k, val string) url.Values {
	out := url.Values{}
	for kk, vv := range v {
		out[kk] = append([]string(nil), vv...)
	}
	out.Set(k, val)
	return out
}

func TestSetupFormErrors(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	token := csrf(t, do(t, c, "GET", s.URL+"/ui/monitors/new", nil).body)
	base := url.Values{"csrf": {token}, "external_id": {"e-1"}, "entity_type": {"workflow"}, "entity_value": {"wf"}, "evaluators": {"char-count"}, "sample_rate": {"1"}}
	for _, tc := range []struct {
		field, value, errID, want string
	}{
		{"entity_type", "planet", "error-entity_type", "not one of"},
		{"sample_rate", "2", "error-sample_rate", "between 0 and 1"},
		{"sample_rate", "abc", "error-sample_rate", "between 0 and 1"},
		{"selector", "not a rule", "error-selector", "not key=value"},
		{"selector", `[{"key": "a", "operator": "bogus", "value": "1"}]`, "error-selector", "selector[0].operator: &#34;bogus&#34; is not one of equals"},
		{"evaluators", "", "error-evaluators", "required"},
	} {
		form := with(base, tc.field, tc.value)
		if tc.value == "" {
			form.Del(tc.field)
		}
		a := do(t, c, "POST", s.URL+"/ui/monitors", form)
		m := regexp.MustCompile(`id="` + tc.errID + `" role="alert">([^<]*)<`).FindStringSubmatch(a.body)
		if a.status != 400 || m == nil || !strings.Contains(m[1], tc.want) {
			t.Errorf("%s=%q: %d, error %v (want %q next to the field)", tc.field, tc.value, a.status, m, tc.want)
		}
		if strings.Contains(a.body, `value="`+token+`"`) == false {
			t.Errorf("%s: the re-rendered form lost its CSRF token", tc.field)
		}
	}
	// An unknown evaluator slug is not a form error: the API accepts it as a
	// failed binding; the form only offers catalogue slugs, so it would be a
	// hand-made post. Duplicate external id: a conflict next to the field.
	if a := do(t, c, "POST", s.URL+"/ui/monitors", base); a.status != 303 {
		t.Fatalf("valid create = %d", a.status)
	}
	a := do(t, c, "POST", s.URL+"/ui/monitors", base)
	if a.status != 409 || !strings.Contains(a.body, `id="error-external_id" role="alert">a setup with this external id already exists`) {
		t.Errorf("duplicate external id = %d", a.status)
	}
	// External id and entity are optional, as in the API: a form with
	// neither creates a setup that selects by its selector alone.
	optional := url.Values{"csrf": {token}, "entity_type": {"workflow"}, "evaluators": {"char-count"}, "selector": {"gen_ai.request.model=gpt-4o"}}
	if a := do(t, c, "POST", s.URL+"/ui/monitors", optional); a.status != 303 {
		t.Fatalf("create without external id and entity value = %d: %.300s", a.status, a.body)
	}
	list, _ := s.store.ListSetups(context.Background(), warehouse.SetupQuery{Environment: "env-a"})
	if len(list.Setups) != 2 {
		t.Fatalf("%d setups after two valid creates", len(list.Setups))
	}
	for _, st := range list.Setups {
		if st.ExternalID == "" && st.EntityValue != "" {
			t.Errorf("the setup without external id has entity value %q, want none", st.EntityValue)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	token := csrf(t, do(t, c, "GET", s.URL+"/ui/evaluators/char-count", nil).body)
	a := do(t, c, "POST", s.URL+"/ui/evaluators/char-count", url.Values{"csrf": {token}, "input.text": {strings.Repeat("a", 100<<10)}})
	if a.status != 413 || !strings.Contains(a.body, "larger than the limit of 65536 bytes") {
		t.Errorf("oversized form = %d", a.status)
	}
}

func TestRootAndAPIBehindMount(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	if a := do(t, c, "GET", s.URL+"/", nil); a.status != 302 || a.header.Get("Location") != "/ui/traces" {
		t.Errorf("GET / = %d %s", a.status, a.header.Get("Location"))
	}
	if a := do(t, c, "GET", s.URL+"/ui", nil); a.status != 301 || a.header.Get("Location") != "/ui/" {
		t.Errorf("GET /ui = %d %s", a.status, a.header.Get("Location"))
	}
	if a := do(t, c, "POST", s.URL+"/", nil); a.status != 404 || !strings.Contains(a.body, `"error"`) {
		t.Errorf("POST / = %d %s (want the API's JSON 404)", a.status, a.body)
	}
	if a := do(t, c, "GET", s.URL+"/v2/evaluators", nil); a.status != 401 || !strings.Contains(a.body, "missing API key") {
		t.Errorf("API without key = %d", a.status)
	}
	// A console session is no API credential.
	s.login(t, c, keyA)
	if a := do(t, c, "GET", s.URL+"/v2/evaluators", nil); a.status != 401 {
		t.Errorf("API with a console cookie = %d", a.status)
	}
}

func TestEditSetup(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	token := csrf(t, do(t, c, "GET", s.URL+"/ui/monitors/new", nil).body)
	create := url.Values{"csrf": {token}, "external_id": {"e-1"}, "entity_type": {"workflow"}, "entity_value": {"wf"},
		"evaluators": {"char-count"}, "sample_rate": {"1"}}
	if a := do(t, c, "POST", s.URL+"/ui/monitors", create); a.status != 303 {
		t.Fatalf("create = %d", a.status)
	}
	list, _ := s.store.ListSetups(context.Background(), warehouse.SetupQuery{Environment: "env-a"})
	id := list.Setups[0].ID
	edit := do(t, c, "GET", s.URL+"/ui/monitors/"+id, nil)
	if edit.status != 200 || !strings.Contains(edit.body, `value="e-1"`) || !strings.Contains(edit.body, `value="char-count" checked`) {
		t.Fatalf("edit form = %d", edit.status)
	}
	update := url.Values{"csrf": {token}, "external_id": {"e-1"}, "entity_type": {"agent"}, "entity_value": {"helper"},
		"evaluators": {"word-count", "pii-detector"}, "sample_rate": {"0.5"}, "selector": {"gen_ai.request.model=gpt-4o"}}
	if a := do(t, c, "POST", s.URL+"/ui/monitors/"+id, update); a.status != 303 || !strings.Contains(a.header.Get("Location"), "updated=") {
		t.Fatalf("update = %d %s", a.status, a.body)
	}
	got, err := s.store.GetSetup(context.Background(), "env-a", id)
	if err != nil || got.EntityType != "agent" || got.EntityValue != "helper" || got.SampleRate != 0.5 || len(got.Evaluators) != 2 ||
		got.Evaluators[0].EvaluatorType != "word-count" || len(got.InitRules) != 2 || got.InitRules[1].Key != "gen_ai.request.model" {
		t.Fatalf("after the update: %+v, %v", got, err)
	}
	// A bad update shows the error and changes nothing.
	bad := with(update, "sample_rate", "7")
	if a := do(t, c, "POST", s.URL+"/ui/monitors/"+id, bad); a.status != 400 || !strings.Contains(a.body, `id="error-sample_rate"`) {
		t.Errorf("bad update = %d", a.status)
	}
	if again, _ := s.store.GetSetup(context.Background(), "env-a", id); again.SampleRate != 0.5 || again.Version != got.Version {
		t.Errorf("a refused update changed the setup: %+v", again)
	}
	// Another environment's setup is a 404, for the form and the update.
	cb := s.client(t)
	s.login(t, cb, keyB)
	tokenB := csrf(t, do(t, cb, "GET", s.URL+"/ui/monitors", nil).body)
	if a := do(t, cb, "GET", s.URL+"/ui/monitors/"+id, nil); a.status != 404 {
		t.Errorf("env-b's edit form of env-a's setup = %d", a.status)
	}
	if a := do(t, cb, "POST", s.URL+"/ui/monitors/"+id, with(update, "csrf", tokenB)); a.status != 404 {
		t.Errorf("env-b's update of env-a's setup = %d", a.status)
	}
}

// TestTracesLimitIsClampedAndSaid: a page size above the maximum shows the
// maximum and says so; a page size that is no number is an error next to
// the list, not a silent default.
func TestTracesLimitIsClampedAndSaid(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	a := do(t, c, "GET", s.URL+"/ui/traces?limit=500", nil)
	if a.status != 200 || !strings.Contains(a.body, `id="limit-notice">Showing at most 200 rows a page (500 asked for).`) {
		t.Errorf("limit=500: %d, no notice of the clamp", a.status)
	}
	if !strings.Contains(a.body, "limit=200") {
		t.Errorf("limit=500: the page's links do not carry the clamped limit")
	}
	a = do(t, c, "GET", s.URL+"/ui/traces?limit=lots", nil)
	if a.status != 200 || !strings.Contains(a.body, `id="limit-error">limit must be a whole number between 1 and 200; showing 50`) {
		t.Errorf("limit=lots: %d, no error", a.status)
	}
}

func TestAggregateChips(t *testing.T) {
	in := []chip{
		{Name: "toxicity-detector", Verdict: "pass", Title: "a"}, {Name: "pii-detector", Verdict: "fail", Title: "b"},
		{Name: "toxicity-detector", Verdict: "pass", Title: "c"}, {Name: "toxicity-detector", Verdict: "fail", Title: "d"},
	}
	got := aggregateChips(in)
	want := []chip{
		{Name: "toxicity-detector", Verdict: "pass", Title: "a\nc", Count: 2}, {Name: "pii-detector", Verdict: "fail", Title: "b", Count: 1},
		{Name: "toxicity-detector", Verdict: "fail", Title: "d", Count: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("aggregateChips = %+v, want %+v", got, want)
	}
}

// TestTracesSearchOff: with the warehouse's full-text index off, the
// traces page disables its search box and says why; a search in the URL
// is a 400 page with the store's message naming the setting.
func TestTracesSearchOff(t *testing.T) {
	off, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "off.db"), sqlite.Options{NoSearchIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = off.Close() })
	s := newTestServer(t, false, func(o *Options) { o.Store, o.SearchOff = off, true })
	c := s.client(t)
	s.login(t, c, keyA)
	a := do(t, c, "GET", s.URL+"/ui/traces", nil)
	if a.status != 200 || !strings.Contains(a.body, `maxlength="200" disabled aria-describedby="q-off">`) ||
		!strings.Contains(a.body, `id="q-off">off in this warehouse (warehouse.search_index: false)</span>`) {
		t.Errorf("traces with the index off: %d, the search box not disabled or not explained", a.status)
	}
	a = do(t, c, "GET", s.URL+"/ui/traces?q=refund", nil)
	if a.status != 400 || !strings.Contains(a.body, "warehouse.search_index is false") {
		t.Errorf("q with the index off: %d, want 400 naming the setting", a.status)
	}
	// With the index on (the default), the box is enabled.
	on := newTestServer(t, false, nil)
	c = on.client(t)
	on.login(t, c, keyA)
	if a = do(t, c, "GET", on.URL+"/ui/traces", nil); a.status != 200 || strings.Contains(a.body, `id="q-off"`) ||
		!strings.Contains(a.body, `maxlength="200">`) {
		t.Errorf("traces with the index on: %d, the search box disabled", a.status)
	}
}
