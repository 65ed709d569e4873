package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Hostile-input tests: whatever a client sends, the API answers 4xx with a
// JSON error naming the problem (never 500), keeps serving, and loses or
// changes nothing it stored.

const (
	authA = "Bearer " + keyA
	authB = "Bearer " + keyB
	// sqlKey is a span attribute key that would break naive SQL or JSON
	// path quoting.
	sqlKey   = `k"') OR 1=1; DROP TABLE spans; --\`
	sqlValue = `v' OR '1'='1`
)

// newHostileServer is newTestServer with the setup endpoints enabled and
// spans and metric points stored for both environments.
func newHostileServer(t *testing.T) *testServer {
	t.Helper()
	s := newTestServer(t, func(o *Options) {
		o.Setups = setups.NewService(setups.Options{Store: o.Store})
	})
	ctx := context.Background()
	var spans []warehouse.Span
	for env, n := range map[string]int{"env-a": 3, "env-b": 2} {
		for i := range n {
			spans = append(spans, warehouse.Span{
				Environment: env, Timestamp: int64(1_700_000_000_000 + i*1000),
				TraceID: fmt.Sprintf("%032x", i+1), SpanID: fmt.Sprintf("%016x", i+1),
				SpanName: "chat", SpanKind: "SPAN_KIND_CLIENT", ServiceName: "svc-" + env,
				SpanAttributes: map[string]string{"llm.vendor": "openai", "i": fmt.Sprint(i), sqlKey: sqlValue},
				Duration:       int64(10 * (i + 1)), StatusCode: "STATUS_CODE_UNSET", WorkflowName: "wf",
				Input: "hello", Output: "world",
			})
		}
	}
	if err := s.store.WriteSpans(ctx, spans); err != nil {
		t.Fatalf("writing spans: %v", err)
	}
	score := 0.25
	pts := []warehouse.MetricPoint{{
		Environment: "env-a", OrganizationID: "org-a", MetricName: "char-count.char_count", Source: warehouse.SourceEvaluator,
		EventTime: 1_700_000_000_000, NumericValue: &score, TraceID: fmt.Sprintf("%032x", 1), SpanID: fmt.Sprintf("%016x", 1),
		Labels: map[string]string{"evaluator_name": "char-count", sqlKey: sqlValue},
	}}
	if err := s.store.WriteMetricPoints(ctx, pts); err != nil {
		t.Fatalf("writing metric points: %v", err)
	}
	return s
}

// stored is everything the store holds, read straight from it.
type stored struct {
	spans   map[string][]warehouse.Span
	metrics warehouse.MetricPage
	setups  warehouse.SetupPage
}

func snapshot(t *testing.T, s *testServer) stored {
	t.Helper()
	ctx := context.Background()
	out := stored{spans: map[string][]warehouse.Span{}}
	for _, env := range []string{"env-a", "env-b"} {
		page, err := s.store.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{env}, Limit: warehouse.MaxSpanLimit})
		if err != nil {
			t.Fatalf("reading the spans of %s: %v", env, err)
		}
		out.spans[env] = page.Spans
	}
	var err error
	if out.metrics, err = s.store.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"env-a"}, Limit: warehouse.MaxMetricLimit}); err != nil {
		t.Fatalf("reading metric points: %v", err)
	}
	if out.setups, err = s.store.ListSetups(ctx, warehouse.SetupQuery{Environment: "env-a", Limit: 100}); err != nil {
		t.Fatalf("reading setups: %v", err)
	}
	return out
}

// requireUnchanged fails unless the store holds exactly what before saw,
// and the server still answers a normal request.
func requireUnchanged(t *testing.T, s *testServer, before stored) {
	t.Helper()
	after := snapshot(t, s)
	if len(after.spans["env-a"]) != 3 || len(after.spans["env-b"]) != 2 {
		t.Fatalf("stored spans: env-a %d, env-b %d; want 3 and 2", len(after.spans["env-a"]), len(after.spans["env-b"]))
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("the store changed:\nbefore %+v\nafter  %+v", before, after)
	}
	status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/char-count", authA, []byte(`{"input":{"text":"still here"}}`))
	if status != http.StatusOK || got["char_count"] != 10.0 {
		t.Fatalf("after the hostile request the server answered %d %v, want 200 char_count 10", status, got)
	}
}

// requireError fails unless the answer is status with a JSON error
// containing msg (and nothing else).
func requireError(t *testing.T, status int, got map[string]any, wantStatus int, msg string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status %d, want %d: %v", status, wantStatus, got)
	}
	e, _ := got["error"].(string)
	if !strings.Contains(e, msg) {
		t.Fatalf("error = %q, want it to contain %q", e, msg)
	}
	if len(got) != 1 {
		t.Errorf("error body has fields %v, want only error", got)
	}
}

// spanPage returns the spans page of a 200 answer.
func spanPage(t *testing.T, status int, got map[string]any) (data []any, total float64, next string) {
	t.Helper()
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200: %v", status, got)
	}
	page, ok := got["spans"].(map[string]any)
	if !ok {
		t.Fatalf("no spans object in %v", got)
	}
	data, _ = page["data"].([]any)
	total, _ = page["total_results"].(float64)
	next, _ = page["next_cursor"].(string)
	return data, total, next
}

// rawRequest writes req as is on a new connection and returns the status
// code and body of the answer.
func rawRequest(t *testing.T, s *testServer, req string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", s.Listener.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatalf("writing the request: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestHostileBodyTooLarge(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	tenMB := strings.Repeat("a", 10<<20)
	for _, tc := range []struct{ name, method, path, body string }{
		{"evaluator", http.MethodPost, "/v2/evaluators/execute/char-count", `{"input":{"text":"` + tenMB + `"}}`},
		{"guardrail", http.MethodPost, "/v2/guardrails/toxicity-detector/execute", `{"input":{"text":"` + tenMB + `"}}`},
		{"metrics", http.MethodPost, "/v2/metrics", `{"metric_name":"` + tenMB + `"}`},
		{"setup", http.MethodPost, "/v2/auto-monitor-setups", `{"entity_type":"workflow","entity_value":"` + tenMB + `"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, tc.method, tc.path, authA, []byte(tc.body))
			requireError(t, status, got, http.StatusRequestEntityTooLarge, "request body exceeds the limit of 1048576 bytes")
			requireUnchanged(t, s, before)
		})
	}
}

func TestHostileDeepNesting(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	deep := strings.Repeat("[", 100_000)
	deepObj := strings.Repeat(`{"a":`, 100_000)
	for _, tc := range []struct{ name, method, path, body, msg string }{
		{"evaluator body", http.MethodPost, "/v2/evaluators/execute/char-count", deep, "request body is not valid JSON"},
		{"evaluator input", http.MethodPost, "/v2/evaluators/execute/char-count", `{"input":` + deep, "request body is not valid JSON"},
		{"evaluator objects", http.MethodPost, "/v2/evaluators/execute/char-count", `{"input":{"text":"a","x":` + deepObj, "request body is not valid JSON"},
		{"metrics body", http.MethodPost, "/v2/metrics", deep, "body: not a JSON metric query object"},
		{"metrics filters", http.MethodPost, "/v2/metrics", `{"filters":` + deep, "body: not a JSON metric query object"},
		{"setup body", http.MethodPost, "/v2/auto-monitor-setups", deep, "body: request body must be a JSON object"},
		{"setup selector", http.MethodPost, "/v2/auto-monitor-setups", `{"entity_type":"workflow","selector":` + deep, "body: request body must be a JSON object"},
		{"spans filters", http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0&filters=" + url.QueryEscape(deep), "", "filters: not a JSON array"},
		{"metrics GET filters", http.MethodGet, "/v2/metrics?filters=" + url.QueryEscape(deep), "", "filters: not a JSON array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, tc.method, tc.path, authA, []byte(tc.body))
			requireError(t, status, got, http.StatusBadRequest, tc.msg)
			requireUnchanged(t, s, before)
		})
	}
}

func TestHostileInvalidUTF8(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	t.Run("evaluator text", func(t *testing.T) {
		// encoding/json decodes each invalid byte as U+FFFD.
		status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/char-count", authA, []byte("{\"input\":{\"text\":\"a\xff\xfeb\"}}"))
		if status != http.StatusOK || got["char_count"] != 4.0 {
			t.Fatalf("got %d %v, want 200 char_count 4", status, got)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("evaluator field name", func(t *testing.T) {
		status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/char-count", authA, []byte("{\"input\":{\"te\xffxt\":\"a\"}}"))
		requireError(t, status, got, http.StatusBadRequest, "input.text is required")
		requireUnchanged(t, s, before)
	})
	t.Run("every evaluator", func(t *testing.T) {
		for _, slug := range []string{"toxicity-detector", "sexism-detector", "pii-detector", "secrets-detector", "profanity-detector",
			"word-count", "uncertainty-detector"} {
			body := "{\"input\":{\"text\":\"\xc3\x28 \xa0\xa1 \xe2\x28\xa1 \xf0\x28\x8c\xbc \xed\xa0\x80\",\"prompt\":\"\xff\"}}"
			status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/"+slug, authA, []byte(body))
			if status != http.StatusOK {
				t.Errorf("%s: status %d, want 200: %v", slug, status, got)
			}
		}
		requireUnchanged(t, s, before)
	})
	t.Run("regex pattern", func(t *testing.T) {
		status, got := s.do(t, http.MethodPost, "/v2/evaluators/execute/regex-validator", authA,
			[]byte("{\"input\":{\"text\":\"a\xffb\"},\"config\":{\"regex\":\"a\xff\"}}"))
		if status != http.StatusOK || got["is_valid_regex"] != true {
			t.Fatalf("got %d %v, want 200 is_valid_regex true (both sides decode to U+FFFD)", status, got)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("metrics body", func(t *testing.T) {
		status, got := s.do(t, http.MethodPost, "/v2/metrics", authA, []byte("{\"metric_name\":\"\xff\",\"filters\":[{\"field\":\"labels.\xfe\",\"operator\":\"equals\",\"value\":\"\xfd\"}]}"))
		if status != http.StatusOK {
			t.Fatalf("status %d, want 200: %v", status, got)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("setup body", func(t *testing.T) {
		status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authA, []byte("{\"entity_type\":\"work\xffflow\",\"entity_value\":\"w\",\"evaluators\":[\"char-count\"],\"external_id\":\"x\"}"))
		requireError(t, status, got, http.StatusBadRequest, "entity_type: \"work\ufffdflow\" is not one of")
		requireUnchanged(t, s, before)
	})
	for _, tc := range []struct {
		name, path string
		status     int
		msg        string // for errors
		spans      int    // for span pages
	}{
		{"attribute param name", "/v2/warehouse/spans?from_timestamp_sec=0&%ff%fe=1", 200, "", 0},
		{"attribute param value", "/v2/warehouse/spans?from_timestamp_sec=0&llm.vendor=%ff", 200, "", 0},
		{"workflow", "/v2/warehouse/spans?from_timestamp_sec=0&workflow=%c3%28", 200, "", 0},
		{"filters value", "/v2/warehouse/spans?from_timestamp_sec=0&filters=" + url.QueryEscape("[{\"id\":\"i\",\"operator\":\"equals\",\"value\":\"\xff\"}]"), 200, "", 0},
		{"filters id", "/v2/warehouse/spans?from_timestamp_sec=0&filters=" + url.QueryEscape("[{\"id\":\"\xff\",\"operator\":\"not_exists\"}]"), 200, "", 3},
		{"sort_by", "/v2/warehouse/spans?from_timestamp_sec=0&sort_by=%ff", 400, `sort_by: "\xff" is not one of`, 0},
		{"from", "/v2/warehouse/spans?from_timestamp_sec=%ff", 400, `from_timestamp_sec: "\xff" is not an integer`, 0},
		{"cursor", "/v2/warehouse/spans?from_timestamp_sec=0&cursor=%ff%fe", 400, "cursor: malformed cursor", 0},
		{"metrics name", "/v2/metrics?metric_name=%ff", 200, "", 0},
		{"metrics environments", "/v2/metrics?environments=%ff", 403, "environments: this API key may read only environment", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodGet, tc.path, authA, nil)
			switch {
			case tc.status != http.StatusOK:
				// JSON encodes the invalid byte of the message as U+FFFD.
				requireError(t, status, got, tc.status, strings.ReplaceAll(tc.msg, "\xff", "\ufffd"))
			case strings.HasPrefix(tc.path, "/v2/warehouse/spans"):
				if data, _, _ := spanPage(t, status, got); len(data) != tc.spans {
					t.Fatalf("got %d spans, want %d: %v", len(data), tc.spans, got)
				}
			case status != http.StatusOK:
				t.Fatalf("status %d, want 200: %v", status, got)
			}
			requireUnchanged(t, s, before)
		})
	}
	t.Run("raw bytes in the request line", func(t *testing.T) {
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0&a=\xff\xfe HTTP/1.1\r\nHost: x\r\nAuthorization: "+authA+"\r\nConnection: close\r\n\r\n")
		if status != http.StatusOK && status != http.StatusBadRequest {
			t.Fatalf("status %d, want 200 or 400: %s", status, body)
		}
		requireUnchanged(t, s, before)
	})
}

func TestHostileHeaders(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	for _, tc := range []struct{ name, auth, msg string }{
		{"bearer without token", "Bearer", "invalid API key"},
		{"bearer and spaces", "Bearer     ", "invalid API key"},
		{"bare scheme lower case", "bearer ", "invalid API key"},
		{"other scheme", "Basic " + keyA, "invalid API key"},
		{"key of the wrong case", "Bearer " + strings.ToUpper(keyA), "invalid API key"},
		{"key with a suffix", "Bearer " + keyA + "x", "invalid API key"},
		{"two bearer words", "Bearer Bearer " + keyA, "invalid API key"},
		{"64 KB header", "Bearer " + strings.Repeat("k", 64<<10), "invalid API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/v2/warehouse/spans?from_timestamp_sec=0", "/v2/metrics", "/v2/auto-monitor-setups"} {
				req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header["Authorization"] = []string{tc.auth}
				resp, err := s.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var got map[string]any
				err = json.NewDecoder(resp.Body).Decode(&got)
				resp.Body.Close()
				if err != nil {
					t.Fatalf("%s: body is not JSON: %v", path, err)
				}
				requireError(t, resp.StatusCode, got, http.StatusUnauthorized, tc.msg)
				if resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s: 401 without WWW-Authenticate", path)
				}
			}
			requireUnchanged(t, s, before)
		})
	}
	t.Run("control characters in the key", func(t *testing.T) {
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x01"+keyA+"\x7f\r\nConnection: close\r\n\r\n")
		if status != http.StatusBadRequest && (status != http.StatusUnauthorized || !strings.Contains(body, "invalid API key")) {
			t.Fatalf("got %d %s, want 400 (net/http) or 401 invalid API key", status, body)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("no authorization header", func(t *testing.T) {
		status, got := s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0", "", nil)
		requireError(t, status, got, http.StatusUnauthorized, "missing API key: send Authorization: Bearer <key>")
		requireUnchanged(t, s, before)
	})
	t.Run("header line without a name", func(t *testing.T) {
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0 HTTP/1.1\r\nHost: x\r\n: "+authA+"\r\nConnection: close\r\n\r\n")
		if status != http.StatusBadRequest {
			t.Fatalf("status %d, want 400: %s", status, body)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("header name without a value", func(t *testing.T) {
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0 HTTP/1.1\r\nHost: x\r\nAuthorization:\r\nConnection: close\r\n\r\n")
		if status != http.StatusUnauthorized || !strings.Contains(body, "missing API key") {
			t.Fatalf("got %d %s, want 401 missing API key", status, body)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("two authorization headers", func(t *testing.T) {
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\nAuthorization: "+authA+"\r\nConnection: close\r\n\r\n")
		if status != http.StatusUnauthorized || !strings.Contains(body, "invalid API key") {
			t.Fatalf("got %d %s, want 401 invalid API key (the first header counts)", status, body)
		}
		requireUnchanged(t, s, before)
	})
	t.Run("header over the server limit", func(t *testing.T) {
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+
			strings.Repeat("k", 2<<20)+"\r\nConnection: close\r\n\r\n")
		if status != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("status %d, want 431: %.200s", status, body)
		}
		requireUnchanged(t, s, before)
	})
}

func TestHostileCrossTenantCursor(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	const path = "/v2/warehouse/spans?from_timestamp_sec=0&limit=1"
	status, got := s.do(t, http.MethodGet, path, authA, nil)
	data, total, next := spanPage(t, status, got)
	if len(data) != 1 || total != 3 || next == "" {
		t.Fatalf("first page of env-a: %d spans, total %v, next %q; want 1, 3 and a cursor", len(data), total, next)
	}
	status, got = s.do(t, http.MethodGet, path+"&cursor="+url.QueryEscape(next), authB, nil)
	requireError(t, status, got, http.StatusBadRequest, "cursor: the cursor was not issued for this environment and listing")
	// The same cursor still works for its own tenant, and B sees only B.
	status, got = s.do(t, http.MethodGet, path+"&cursor="+url.QueryEscape(next), authA, nil)
	data, total, _ = spanPage(t, status, got)
	if len(data) != 1 || total != 3 || data[0].(map[string]any)["environment"] != "env-a" {
		t.Fatalf("second page of env-a: %v", data)
	}
	status, got = s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0", authB, nil)
	data, total, _ = spanPage(t, status, got)
	if len(data) != 2 || total != 2 {
		t.Fatalf("env-b sees %d spans (total %v), want 2", len(data), total)
	}
	for _, sp := range data {
		if env := sp.(map[string]any)["environment"]; env != "env-b" {
			t.Fatalf("env-b got a span of %v", env)
		}
	}
	requireUnchanged(t, s, before)
}

func TestHostileSQLInjection(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	filtersPath := func(filters string) string {
		return "/v2/warehouse/spans?from_timestamp_sec=0&filters=" + url.QueryEscape(filters)
	}
	for _, tc := range []struct {
		name, path string
		spans      int    // matching spans of env-a, or -1 for a 400
		msg        string // the message of the 400
	}{
		{"or-true value", filtersPath(`[{"id":"llm.vendor","operator":"equals","value":"x' OR '1'='1"}]`), 0, ""},
		{"drop table value", filtersPath(`[{"id":"llm.vendor","operator":"equals","value":"'); DROP TABLE spans; --"}]`), 0, ""},
		{"or-true key", filtersPath(`[{"id":"x' OR '1'='1","operator":"exists"}]`), 0, ""},
		{"json path key", filtersPath(`[{"id":"$.llm.vendor","operator":"exists"}]`), 0, ""},
		{"wildcard key", filtersPath(`[{"id":"*","operator":"exists"}]`), 0, ""},
		{"quote key exists", filtersPath(`[{"id":` + jsonString(sqlKey) + `,"operator":"exists"}]`), 3, ""},
		{"quote key equals", filtersPath(`[{"id":` + jsonString(sqlKey) + `,"operator":"equals","value":` + jsonString(sqlValue) + `}]`), 3, ""},
		{"resource drop key", filtersPath(`[{"id":"resource.x\"); DROP TABLE resources; --","operator":"not_exists"}]`), 3, ""},
		{"contains percent", filtersPath(`[{"id":"llm.vendor","operator":"contains","value":"%"}]`), 0, ""},
		{"starts_with underscore", filtersPath(`[{"id":"llm.vendor","operator":"starts_with","value":"_pen"}]`), 0, ""},
		{"in list", filtersPath(`[{"id":"span_name","operator":"in","value":["chat') OR ('1'='1","x"]}]`), 0, ""},
		{"numeric injection", filtersPath(`[{"id":"duration","operator":"greater_than","value":"0 OR 1=1"}]`), -1, `filters[0]: operator greater_than needs a numeric value, got "0 OR 1=1"`},
		{"extra param key", "/v2/warehouse/spans?from_timestamp_sec=0&" + url.QueryEscape("x' OR '1'='1") + "=1", 0, ""},
		{"extra param value", "/v2/warehouse/spans?from_timestamp_sec=0&llm.vendor=" + url.QueryEscape("openai' OR '1'='1"), 0, ""},
		{"extra param quote key", "/v2/warehouse/spans?from_timestamp_sec=0&" + url.QueryEscape(sqlKey) + "=" + url.QueryEscape(sqlValue), 3, ""},
		{"extra param drop", "/v2/warehouse/spans?from_timestamp_sec=0&" + url.QueryEscape(`"; DROP TABLE spans; --`) + "=" + url.QueryEscape("'; DELETE FROM spans; --"), 0, ""},
		{"workflow", "/v2/warehouse/spans?from_timestamp_sec=0&workflow=" + url.QueryEscape("wf' OR 1=1 --"), 0, ""},
		{"sort_by", "/v2/warehouse/spans?from_timestamp_sec=0&sort_by=" + url.QueryEscape("timestamp; DROP TABLE spans"), -1, `sort_by: "timestamp; DROP TABLE spans" is not one of`},
		{"sort_order", "/v2/warehouse/spans?from_timestamp_sec=0&sort_order=" + url.QueryEscape("ASC, (SELECT 1)"), -1, `sort_order: "ASC, (SELECT 1)" is not ASC or DESC`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodGet, tc.path, authA, nil)
			if tc.spans < 0 {
				requireError(t, status, got, http.StatusBadRequest, tc.msg)
			} else if data, total, _ := spanPage(t, status, got); len(data) != tc.spans || int(total) != tc.spans {
				t.Fatalf("got %d spans (total %v), want %d", len(data), total, tc.spans)
			}
			requireUnchanged(t, s, before)
		})
	}
	for _, tc := range []struct {
		name, body string
		points     float64
	}{
		{"metric label value", `{"filters":[{"field":"labels.evaluator_name","operator":"equals","value":"x' OR '1'='1"}]}`, 0},
		{"metric label key", `{"filters":[{"field":` + jsonString("labels."+sqlKey) + `,"operator":"equals","value":` + jsonString(sqlValue) + `}]}`, 1},
		{"metric name", `{"metric_name":"x'; DROP TABLE metric_points; --"}`, 0},
		{"metric in", `{"filters":[{"field":"metric_name","operator":"not_in","values":["') OR 1=1 --"]}]}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodPost, "/v2/metrics", authA, []byte(tc.body))
			m, _ := got["metrics"].(map[string]any)
			if status != http.StatusOK || m["total_results"] != tc.points {
				t.Fatalf("got %d %v, want 200 with %v points", status, got, tc.points)
			}
			requireUnchanged(t, s, before)
		})
	}
}

// jsonString returns s as a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// requireAllOrLimit fails unless a query that matches everything answers
// 200 with all want results (count reads them from the answer), or, when
// limitMsg is set, is refused with a 400 whose message contains it: a large
// query is refused up front, never a 500 from the store.
func requireAllOrLimit(t *testing.T, status int, got map[string]any, want float64, count func(map[string]any) float64, limitMsg string) {
	t.Helper()
	if limitMsg != "" {
		requireError(t, status, got, http.StatusBadRequest, limitMsg)
		return
	}
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200 with every result: %v", status, got)
	}
	if n := count(got); n != want {
		t.Fatalf("got %v results, want %v: %.300v", n, want, got)
	}
}

func spanTotal(got map[string]any) float64 {
	page, _ := got["spans"].(map[string]any)
	data, _ := page["data"].([]any)
	if total, _ := page["total_results"].(float64); total != float64(len(data)) {
		return -1
	}
	return float64(len(data))
}

func metricTotal(got map[string]any) float64 {
	m, _ := got["metrics"].(map[string]any)
	total, _ := m["total_results"].(float64)
	return total
}

func TestHostileLargeFilters(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	spanFilters := func(n int, value string) string {
		fs := make([]string, n)
		for i := range fs {
			fs[i] = fmt.Sprintf(`{"id":"attr%d","operator":"not_equals","value":%s}`, i, jsonString(value))
		}
		return "[" + strings.Join(fs, ",") + "]"
	}
	metricFilters := func(n int) string {
		fs := make([]string, n)
		for i := range fs {
			fs[i] = fmt.Sprintf(`{"field":"labels.l%d","operator":"not_equals","value":"x"}`, i)
		}
		return "[" + strings.Join(fs, ",") + "]"
	}
	values := func(n int) string {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf(`"v%d"`, i)
		}
		return "[" + strings.Join(vs, ",") + "]"
	}
	extraParams := func(n int) string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = fmt.Sprintf("attr%d=x", i)
		}
		return strings.Join(ps, "&")
	}
	spansPath := "/v2/warehouse/spans?from_timestamp_sec=0&"
	for _, tc := range []struct {
		name, method, path, body string
		want                     float64 // results when accepted
		count                    func(map[string]any) float64
		limitMsg                 string // the 400's message when refused
	}{
		// SQLite refuses expression trees deeper than 1000 (from 996
		// filters on) and more than 32 766 parameters: the API caps
		// filters at warehouse.MaxFilters and their values at
		// warehouse.MaxFilterValues before the store sees them.
		{"100 span filters", http.MethodGet, spansPath + "filters=" + url.QueryEscape(spanFilters(100, "x")), "", 3, spanTotal, ""},
		{"101 span filters", http.MethodGet, spansPath + "filters=" + url.QueryEscape(spanFilters(101, "x")), "", 0, spanTotal, "filters: 101 filters; at most 100 are allowed"},
		{"1000 span filters", http.MethodGet, spansPath + "filters=" + url.QueryEscape(spanFilters(1000, "x")), "", 0, spanTotal, "filters: 1000 filters; at most 100 are allowed"},
		{"1000 attribute params", http.MethodGet, spansPath + extraParams(1000), "", 0, spanTotal, "filters: 1000 filters; at most 100 are allowed"},
		{"100 attribute params", http.MethodGet, spansPath + extraParams(100), "", 0, spanTotal, ""},
		{"1000 metric filters", http.MethodPost, "/v2/metrics", `{"filters":` + metricFilters(1000) + `}`, 0, metricTotal, "filters: 1000 filters; at most 100 are allowed"},
		{"1000 metric filters or", http.MethodPost, "/v2/metrics", `{"logical_operator":"OR","filters":` + metricFilters(1000) + `}`, 0, metricTotal, "filters: 1000 filters; at most 100 are allowed"},
		{"1000 metric filters GET", http.MethodGet, "/v2/metrics?filters=" + url.QueryEscape(metricFilters(1000)), "", 0, metricTotal, "filters: 1000 filters; at most 100 are allowed"},
		{"100 metric filters", http.MethodPost, "/v2/metrics", `{"filters":` + metricFilters(100) + `}`, 1, metricTotal, ""},
		{"span not_in 1000 values", http.MethodGet, spansPath + "filters=" +
			url.QueryEscape(`[{"id":"span_name","operator":"not_in","value":`+values(1000)+`}]`), "", 3, spanTotal, ""},
		{"span not_in 40000 values", http.MethodGet, spansPath + "filters=" +
			url.QueryEscape(`[{"id":"span_name","operator":"not_in","value":`+values(40_000)+`}]`), "", 0, spanTotal, "filters[0]: 40000 values; at most 1000 are allowed"},
		{"metric not_in 1000 values", http.MethodPost, "/v2/metrics",
			`{"filters":[{"field":"metric_name","operator":"not_in","values":` + values(1000) + `}]}`, 1, metricTotal, ""},
		{"metric not_in 40000 values", http.MethodPost, "/v2/metrics",
			`{"filters":[{"field":"metric_name","operator":"not_in","values":` + values(40_000) + `}]}`, 0, metricTotal, "filters[0]: 40000 values; at most 1000 are allowed"},
		{"metric values over all filters", http.MethodPost, "/v2/metrics",
			`{"filters":[{"field":"metric_name","operator":"not_in","values":` + values(600) + `},{"field":"enum_value","operator":"not_in","values":` + values(600) + `}]}`,
			0, metricTotal, "filters: 1200 values in all; at most 1000 are allowed"},
		{"span filters of 1 MB", http.MethodGet, spansPath + "filters=" +
			url.QueryEscape(spanFilters(1, strings.Repeat("v", 1<<20))), "", 3, spanTotal, ""},
		{"metric filters of 1 MB in the query string", http.MethodGet, "/v2/metrics?filters=" +
			url.QueryEscape(`[{"field":"labels.l","operator":"not_equals","value":"`+strings.Repeat("v", 1<<20-100)+`"}]`), "", 1, metricTotal, ""},
		{"metric filters of 1 MB in the body", http.MethodPost, "/v2/metrics",
			`{"filters":[{"field":"labels.l","operator":"not_equals","value":"` + strings.Repeat("v", 1<<20-100) + `"}]}`, 1, metricTotal, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, tc.method, tc.path, authA, []byte(tc.body))
			requireAllOrLimit(t, status, got, tc.want, tc.count, tc.limitMsg)
			requireUnchanged(t, s, before)
		})
	}
	t.Run("query string over the header limit", func(t *testing.T) {
		// net/http refuses a request line over its 1 MB header limit.
		status, body := rawRequest(t, s, "GET /v2/warehouse/spans?from_timestamp_sec=0&filters="+
			url.QueryEscape(spanFilters(1, strings.Repeat("v", 2<<20)))+" HTTP/1.1\r\nHost: x\r\nAuthorization: "+authA+"\r\nConnection: close\r\n\r\n")
		if status != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("status %d, want 431: %.200s", status, body)
		}
		requireUnchanged(t, s, before)
	})
}

func TestHostileCatastrophicRegex(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	text := strings.Repeat("a", 50_000) + "!"
	for _, tc := range []struct{ name, path, body, msg string }{
		{"regex-validator", "/v2/evaluators/execute/regex-validator",
			`{"input":{"text":"` + text + `"},"config":{"regex":"(a+)+$"}}`, "config.regex: regex timed out"},
		{"placeholder-regex", "/v2/evaluators/execute/placeholder-regex",
			`{"input":{"text":"` + text + `","placeholder_value":"(a+)+$"}}`, "input.placeholder_value: regex timed out"},
		{"guardrail", "/v2/guardrails/regex-validator/execute",
			`{"input":{"text":"` + text + `"},"config":{"regex":"(a|aa)+$","should_match":false}}`, "config.regex: regex timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodPost, tc.path, authA, []byte(tc.body))
			requireError(t, status, got, http.StatusBadRequest, tc.msg)
			requireUnchanged(t, s, before)
		})
	}
}

// TestHostileInvalidUTF8SortKeyPagination pages by a text sort key whose
// stored values are not valid UTF-8 (OTLP protobuf does not stop them).
// When the cursor carried the last value as a JSON string, each invalid
// byte became U+FFFD and the keyset position moved: ascending, the page
// after "a\xfe" started before it again (the same span forever);
// descending, the page after "a\xff" skipped "a\xfe".
func TestHostileInvalidUTF8SortKeyPagination(t *testing.T) {
	s := newTestServer(t, nil)
	names := []string{"a\xfe", "a\xff", "b"}
	spans := make([]warehouse.Span, len(names))
	for i, n := range names {
		spans[i] = warehouse.Span{Environment: "env-a", Timestamp: int64(1_700_000_000_000 + i), TraceID: fmt.Sprintf("%032x", i+1),
			SpanID: fmt.Sprintf("%016x", i+1), SpanName: n}
	}
	if err := s.store.WriteSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	for _, order := range []string{"ASC", "DESC"} {
		t.Run(order, func(t *testing.T) {
			seen := map[string]int{}
			path := "/v2/warehouse/spans?from_timestamp_sec=0&limit=1&sort_by=span_name&sort_order=" + order
			cursor := ""
			for page := 0; page < 2*len(names); page++ {
				status, got := s.do(t, http.MethodGet, path+"&cursor="+url.QueryEscape(cursor), authA, nil)
				data, _, next := spanPage(t, status, got)
				for _, sp := range data {
					seen[sp.(map[string]any)["span_id"].(string)]++
				}
				if next == "" {
					break
				}
				cursor = next
			}
			if len(seen) != len(names) {
				t.Errorf("pagination by span_name returned %d distinct spans of %d: %v", len(seen), len(names), seen)
			}
			for id, n := range seen {
				if n != 1 {
					t.Errorf("span %s returned %d times", id, n)
				}
			}
		})
	}
}
