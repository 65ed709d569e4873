package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/organizations"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

const (
	keyA     = "key-environment-a"
	keyB     = "key-environment-b"
	keyAdmin = "key-admin-ops"
)

type testServer struct {
	*httptest.Server
	store warehouse.Store
}

// newTestServer starts the API on a loopback port with a real SQLite
// warehouse and two keys of two environments.
func newTestServer(t *testing.T, mutate func(*Options)) *testServer {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	return newTestServerOn(t, store, mutate)
}

// newTestServerOn is newTestServer on the given warehouse.
func newTestServerOn(t testing.TB, store warehouse.Store, mutate func(*Options)) *testServer {
	t.Helper()
	keys := tenant.NewKeyring([]tenant.Key{
		{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}},
		{Secret: keyB, Tenant: tenant.Tenant{Environment: "env-b", OrganizationID: "org-b", ProjectID: "p-b"}},
		{Secret: keyAdmin, Tenant: tenant.Tenant{Environment: "ops", OrganizationID: "org-ops", ProjectID: "p-ops", Admin: true}},
	})
	cache := organizations.NewCache(store, organizations.CacheOptions{})
	keys.SetResolver(cache)
	opts := Options{
		Keys:             keys,
		Store:            store,
		MaxBodyBytes:     1 << 20,
		Organizations:    organizations.NewService(store, cache, nil),
		MonitoringStatus: &monitoringstatus.Reader{Store: store, Tracker: monitoringstatus.NewTracker(), CollectorID: "test", Live: time.Minute},
	}
	if mutate != nil {
		mutate(&opts)
	}
	srv := httptest.NewServer(validating(t, New(opts)))
	t.Cleanup(srv.Close)
	return &testServer{Server: srv, store: store}
}

// do sends a request with the raw Authorization header value auth and
// decodes the JSON object it answers.
func (s *testServer) do(t *testing.T, method, path, auth string, body []byte) (int, map[string]any) {
	t.Helper()
	status, header, data := s.send(t, method, path, auth, body)
	if ct := header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %s: Content-Type = %q, want application/json (body %s)", method, path, ct, data)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %v: %s", method, path, err, data)
	}
	return status, out
}

func TestExecuteCounts(t *testing.T) {
	s := newTestServer(t, nil)
	tests := []struct {
		name, path, auth, body string
		want                   map[string]any
	}{
		{"char-count bearer", "/v2/evaluators/execute/char-count", "Bearer " + keyA, `{"input":{"text":"héllo"}}`, map[string]any{"char_count": 5.0}},
		{"char-count bare key", "/v2/evaluators/execute/char-count", keyA, `{"input":{"text":"ab"}}`, map[string]any{"char_count": 2.0}},
		{"word-count newer path", "/v2/evaluators/word-count/execute", "bearer " + keyB, `{"input":{"text":" one\ttwo\u001fthree "}}`, map[string]any{"word_count": 3.0}},
		{"guardrail wraps result", "/v2/guardrails/char-count/execute", "Bearer " + keyA, `{"input":{"text":"abc"}}`, map[string]any{"result": map[string]any{"char_count": 3.0}, "pass": true}},
		{"guardrail answers booleans as the Traceloop SDK reads them", "/v2/guardrails/prompt-injection/execute", "Bearer " + keyA, `{"input":{"prompt":"What is the capital of France?"}}`, map[string]any{"result": map[string]any{"has_injection": false}, "pass": true}},
		{"evaluator path keeps the spec's strings", "/v2/evaluators/execute/prompt-injection", "Bearer " + keyA, `{"input":{"prompt":"What is the capital of France?"}}`, map[string]any{"has_injection": "safe"}},
		{"extra input fields ignored", "/v2/evaluators/execute/char-count", "Bearer " + keyA, `{"input":{"text":"abc","other":1}}`, map[string]any{"char_count": 3.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodPost, tt.path, tt.auth, []byte(tt.body))
			if status != http.StatusOK {
				t.Fatalf("status %d, want 200: %v", status, got)
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tt.want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("body = %s, want %s", gotJSON, wantJSON)
			}
		})
	}
}

func TestExecuteBadInput(t *testing.T) {
	s := newTestServer(t, nil)
	auth := "Bearer " + keyA
	big := `{"input":{"text":"` + strings.Repeat("a", 2<<20) + `"}}`
	tests := []struct {
		name, method, path, auth, body string
		status                         int
		msg                            string
	}{
		{"no key", "POST", "/v2/evaluators/execute/char-count", "", `{"input":{"text":"a"}}`, 401, "missing API key"},
		{"unknown key", "POST", "/v2/evaluators/execute/char-count", "Bearer nope-nope-nope", `{"input":{"text":"a"}}`, 401, "invalid API key"},
		{"body not JSON", "POST", "/v2/evaluators/execute/char-count", auth, `{"input":`, 400, "request body is not valid JSON"},
		{"empty body", "POST", "/v2/evaluators/execute/char-count", auth, ``, 400, "request body is empty"},
		{"body is an array", "POST", "/v2/evaluators/execute/char-count", auth, `[1]`, 400, "request body is not valid JSON"},
		{"input missing", "POST", "/v2/evaluators/execute/char-count", auth, `{"config":{}}`, 400, "input is required"},
		{"input not an object", "POST", "/v2/evaluators/execute/char-count", auth, `{"input":"text"}`, 400, "input must be a JSON object"},
		{"required field missing", "POST", "/v2/evaluators/execute/char-count", auth, `{"input":{}}`, 400, "input.text is required"},
		{"wrong type", "POST", "/v2/evaluators/execute/char-count", auth, `{"input":{"text":5}}`, 400, "input.text must be a string, got number"},
		{"unknown config field", "POST", "/v2/evaluators/execute/toxicity-detector", auth, `{"input":{"text":"x"},"config":{"treshold":0.5}}`, 400, "config.treshold is not a config field of toxicity-detector (known: threshold)"},
		{"config on a slug without config", "POST", "/v2/evaluators/execute/char-count", auth, `{"input":{"text":"x"},"config":{"a":1}}`, 400, "it takes no config"},
		{"threshold above 1", "POST", "/v2/evaluators/execute/sexism-detector", auth, `{"input":{"text":"x"},"config":{"threshold":1.5}}`, 400, "config.threshold must be between 0 and 1, got 1.5"},
		{"threshold not a number", "POST", "/v2/evaluators/execute/prompt-injection", auth, `{"input":{"prompt":"x"},"config":{"threshold":"high"}}`, 400, "config.threshold must be a number, got string"},
		{"config not an object", "POST", "/v2/evaluators/execute/sexism-detector", auth, `{"input":{"text":"x"},"config":[1]}`, 400, "config must be a JSON object"},
		{"logprobs not a JSON array", "POST", "/v2/evaluators/execute/perplexity", auth, `{"input":{"logprobs":"-0.5, -1"}}`, 400, "input.logprobs must be a JSON array"},
		{"unknown slug", "POST", "/v2/evaluators/execute/no-such-evaluator", auth, `{"input":{}}`, 404, `unknown evaluator "no-such-evaluator"`},
		{"GET on execute", "GET", "/v2/evaluators/execute/char-count", auth, ``, 405, "method GET is not allowed"},
		{"body over the limit", "POST", "/v2/evaluators/execute/char-count", auth, big, 413, "request body exceeds the limit of 1048576 bytes"},
		{"unknown path", "GET", "/v2/nothing", auth, ``, 404, "no such endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := s.do(t, tt.method, tt.path, tt.auth, []byte(tt.body))
			if status != tt.status {
				t.Fatalf("status %d, want %d: %v", status, tt.status, got)
			}
			msg, _ := got["error"].(string)
			if !strings.Contains(msg, tt.msg) {
				t.Errorf("error = %q, want it to contain %q", msg, tt.msg)
			}
			if len(got) != 1 {
				t.Errorf("error body has fields %v, want only error", got)
			}
		})
	}
}

func TestEvaluatorPanicIsRecovered(t *testing.T) {
	s := newTestServer(t, func(o *Options) {
		o.RunEvaluator = func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
			if req.Text("text") == "boom" {
				panic("evaluator exploded")
			}
			return def.Run(ctx, req)
		}
	})
	status, got := s.do(t, "POST", "/v2/evaluators/execute/char-count", keyA, []byte(`{"input":{"text":"boom"}}`))
	if status != 500 || got["error"] != "internal error" {
		t.Fatalf("panic answered %d %v, want 500 internal error", status, got)
	}
	status, got = s.do(t, "POST", "/v2/evaluators/execute/char-count", keyA, []byte(`{"input":{"text":"fine"}}`))
	if status != 200 || got["char_count"] != 4.0 {
		t.Fatalf("after a panic the server answered %d %v, want 200 char_count 4", status, got)
	}
}

func TestListEvaluators(t *testing.T) {
	s := newTestServer(t, nil)
	status, got := s.do(t, "GET", "/v2/evaluators", "Bearer "+keyA, nil)
	if status != 200 {
		t.Fatalf("status %d: %v", status, got)
	}
	list, _ := got["evaluators"].([]any)
	if len(list) != 35 {
		t.Fatalf("got %d evaluators, want 35", len(list))
	}
	first := list[0].(map[string]any)
	if first["slug"] != "sexism-detector" || first["category"] != "Security & Compliance" {
		t.Errorf("first entry = %v", first)
	}
	outs := first["output_schema"].([]any)
	out := outs[0].(map[string]any)
	if out["name"] != "is_safe" || out["type"] != "string" || len(out["enum_values"].([]any)) != 2 {
		t.Errorf("sexism-detector output schema = %v", out)
	}
}

func TestHealthz(t *testing.T) {
	s := newTestServer(t, func(o *Options) {})
	status, got := s.do(t, "GET", "/healthz", "", nil)
	if status != 200 || got["status"] != "ok" {
		t.Fatalf("healthz = %d %v", status, got)
	}
	down := newTestServer(t, func(o *Options) {
		o.Health = func(*http.Request) error { return warehouse.ErrUnavailable }
	})
	status, got = down.do(t, "GET", "/healthz", "", nil)
	if status != 503 || got["warehouse"] != "unavailable" {
		t.Fatalf("healthz with the warehouse down = %d %v, want 503 warehouse unavailable", status, got)
	}
}

// TestExecuteExplain: explain=true adds the explanation beside the spec's
// output on the execute and guardrail paths; without it the answer is the
// spec's; a bad value is a 400 that names the parameter.
func TestExecuteExplain(t *testing.T) {
	s := newTestServer(t, nil)
	auth := "Bearer " + keyA
	body := []byte(`{"input":{"text":"Mail me at jane.doe@example.com"}}`)
	for _, path := range []string{"/v2/evaluators/execute/pii-detector?explain=true", "/v2/evaluators/pii-detector/execute?explain=1", "/v2/guardrails/pii-detector/execute?explain=true"} {
		status, got := s.do(t, http.MethodPost, path, auth, body)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %v", path, status, got)
		}
		e, _ := got["explanation"].(map[string]any)
		fs, _ := e["findings"].([]any)
		if len(fs) == 0 {
			t.Fatalf("%s: no findings in %v", path, got)
		}
		f := fs[0].(map[string]any)
		if f["kind"] != "EMAIL_ADDRESS" || f["text"] != "jane.doe@example.com" || f["start"] != 11.0 || f["end"] != 31.0 {
			t.Errorf("%s: finding %v", path, f)
		}
	}
	status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/pii-detector", auth, body)
	if _, has := got["explanation"]; status != 200 || has || got["has_pii"] != true {
		t.Errorf("without explain: %d %v", status, got)
	}
	status, got = s.do(t, http.MethodPost, "/v2/evaluators/execute/pii-detector?explain=yes%20please", auth, body)
	if status != 400 || !strings.Contains(fmt.Sprint(got["error"]), "explain must be true or false") {
		t.Errorf("explain=yes please: %d %v", status, got)
	}
}
