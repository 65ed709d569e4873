package console

import (
	"context"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// setupCount is the number of setups env-a holds, read from the store.
func setupCount(t *testing.T, s *testServer) int {
	t.Helper()
	page, err := s.store.ListSetups(context.Background(), warehouse.SetupQuery{Environment: "env-a", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Setups)
}

// TestHostileSampleRate: a sample rate of NaN or ±Inf parses as a float
// but is no rate; the form answered "request body is empty" (the JSON
// encoding of NaN failed). It is an error next to the field, and nothing
// is created.
func TestHostileSampleRate(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	token := csrf(t, do(t, c, "GET", s.URL+"/ui/monitors/new", nil).body)
	base := url.Values{"csrf": {token}, "external_id": {"e-1"}, "entity_type": {"workflow"}, "entity_value": {"wf"}, "evaluators": {"char-count"}}
	for _, rate := range []string{"NaN", "nan", "Inf", "-Inf", "+Infinity", "1e400"} {
		a := do(t, c, "POST", s.URL+"/ui/monitors", with(base, "sample_rate", rate))
		m := regexp.MustCompile(`id="error-sample_rate" role="alert">([^<]*)<`).FindStringSubmatch(a.body)
		if a.status != 400 || m == nil || m[1] != "must be a number between 0 and 1" {
			t.Errorf("sample_rate=%s: %d, field error %v; want 400 must be a number between 0 and 1", rate, a.status, m)
		}
		if strings.Contains(a.body, "request body is empty") {
			t.Errorf("sample_rate=%s: the form says the request body is empty", rate)
		}
	}
	if n := setupCount(t, s); n != 0 {
		t.Fatalf("%d setups created, want none", n)
	}
}

// TestHostileForwardedHost: a cross-site login post that names its own
// origin in X-Forwarded-Host used to pass the same-site check. The header
// is believed only from trusted_proxies; from anyone else the post is a
// 403 and no session is made.
func TestHostileForwardedHost(t *testing.T) {
	post := func(t *testing.T, s *testServer) answer {
		c := s.client(t)
		form := do(t, c, "GET", s.URL+"/ui/login", nil)
		return do(t, c, "POST", s.URL+"/ui/login", url.Values{"csrf": {csrf(t, form.body)}, "api_key": {keyA}},
			"Origin", "https://evil.example", "X-Forwarded-Host", "evil.example")
	}
	t.Run("no trusted proxies", func(t *testing.T) {
		s := newTestServer(t, false, nil)
		if a := post(t, s); a.status != 403 || setSession(a.header) != nil {
			t.Errorf("forged X-Forwarded-Host login = %d (session %v), want 403 and no session", a.status, setSession(a.header))
		}
	})
	t.Run("peer not a trusted proxy", func(t *testing.T) {
		s := newTestServer(t, false, func(o *Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")} })
		if a := post(t, s); a.status != 403 || setSession(a.header) != nil {
			t.Errorf("forged X-Forwarded-Host login = %d, want 403 and no session", a.status)
		}
	})
	t.Run("from a trusted proxy", func(t *testing.T) {
		s := newTestServer(t, false, func(o *Options) { o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")} })
		if a := post(t, s); a.status != 303 || setSession(a.header) == nil {
			t.Errorf("login through a trusted proxy = %d, want 303 with a session", a.status)
		}
	})
}
