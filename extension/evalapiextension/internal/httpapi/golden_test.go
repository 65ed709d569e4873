package httpapi

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// sealedCursor matches a non-empty next_cursor in an answer.
var sealedCursor = regexp.MustCompile(`"next_cursor":"[A-Za-z0-9_-]+"`)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of TestWarehouseJSONGolden")

// goldenSpans are stored spans covering what the span JSON must carry:
// every field, empty maps, no evaluations, HTML and control characters,
// invalid UTF-8, line separators, numbers and nested evaluator outputs.
func goldenSpans() []warehouse.Span {
	const t0 = int64(1_767_225_600_000) // 2026-01-01
	return []warehouse.Span{
		{Environment: "env-a", Timestamp: t0, TraceID: "0af7651916cd43dd8448eb211c80319c", SpanID: "b7ad6b7169203331",
			ParentSpanID: "", TraceState: "congo=t61rcWkgMzE", SpanName: "openai.chat", SpanKind: "SPAN_KIND_CLIENT",
			ServiceName: "chat-svc", ResourceAttributes: map[string]string{"service.name": "chat-svc", "deployment.environment.name": "env-a"},
			ScopeName: "opentelemetry.instrumentation.openai", ScopeVersion: "0.27.0",
			SpanAttributes: map[string]string{"gen_ai.request.model": "gpt-4o", "user.id": "u-1", "html": "<b>Tom & \"Jerry\"</b>",
				"ctl": "tab\tnl\ncr\r\x01", "ls": "a\u2028b\u2029c", "emoji": "héllo 👋"},
			Duration: 1234, StatusCode: "STATUS_CODE_OK", StatusMessage: "",
			Prompts:     map[string]string{"0.role": "user", "0.content": "What is <2+2>?"},
			Completions: map[string]string{"0.role": "assistant", "0.content": "4 & done"},
			Input:       "What is <2+2>?", Output: "4 & done",
			WorkflowName: "qa", EntityName: "answer", RequestModel: "gpt-4o", ResponseModel: "gpt-4o-2024-08-06", Vendor: "openai", TotalTokens: 57,
			Evaluations: []warehouse.Evaluation{
				{Name: "toxicity-detector", ScoreValue: 0.0123, ScoreLabel: "safe", MonitorID: "mon-1",
					Output: map[string]any{"is_safe": "safe", "score": 0.0123, "nested": map[string]any{"list": []any{1.0, "two", true, nil}}}},
				{Name: "pii-detector", ScoreValue: 1, ScoreLabel: "unsafe", Error: "timeout <1s>"},
			}},
		{Environment: "env-a", Timestamp: t0 + 1500, TraceID: "0af7651916cd43dd8448eb211c80319c", SpanID: "00f067aa0ba902b7",
			ParentSpanID: "b7ad6b7169203331", SpanName: "tool.call", SpanKind: "SPAN_KIND_INTERNAL", ServiceName: "chat-svc",
			ResourceAttributes: map[string]string{"service.name": "chat-svc"}, Duration: 0, StatusCode: "STATUS_CODE_ERROR",
			StatusMessage: "boom", TotalTokens: 0},
		{Environment: "env-a", Timestamp: t0 + 3000, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "53995c3f42cd8ad8",
			SpanName: "bad\xffutf8", ServiceName: "svc-2", SpanAttributes: map[string]string{"k\xfe": "v\xff"}, Duration: 99,
			Input: "in\xc3", Output: "out", RequestModel: "m", TotalTokens: 7},
		// Another environment: never in env-a's answers.
		{Environment: "env-b", Timestamp: t0 + 10, TraceID: "t-b", SpanID: "s-b", SpanName: "other tenant"},
	}
}

// goldenPoints are stored metric points: each value kind, labels with
// special characters, two metric names, and numbers JSON prints in
// different forms.
func goldenPoints() []warehouse.MetricPoint {
	const t0 = int64(1_767_225_600_000)
	b := func(v bool) *bool { return &v }
	n := func(v float64) *float64 { return &v }
	e := func(v string) *string { return &v }
	return []warehouse.MetricPoint{
		{Environment: "env-a", OrganizationID: "org-a", MetricName: "toxicity-detector.score", Source: warehouse.SourceEvaluator,
			EventTime: t0 + 1234, NumericValue: n(0.0123), TraceID: "0af7651916cd43dd8448eb211c80319c", SpanID: "b7ad6b7169203331",
			Labels:     map[string]string{"evaluator_name": "toxicity-detector", "trace_id": "0af7651916cd43dd8448eb211c80319c", "model": "gpt-4o <&>"},
			Attributes: map[string]string{"user.id": "u-1"}},
		{Environment: "env-a", OrganizationID: "org-a", MetricName: "toxicity-detector.is_safe", Source: warehouse.SourceEvaluator,
			EventTime: t0 + 1234, EnumValue: e("safe"), Labels: map[string]string{"evaluator_name": "toxicity-detector"}},
		{Environment: "env-a", OrganizationID: "org-a", MetricName: "toxicity-detector.score", Source: warehouse.SourceEvaluator,
			EventTime: t0 + 5000, NumericValue: n(1e21), Labels: map[string]string{}},
		{Environment: "env-a", OrganizationID: "org-a", MetricName: "otlp.flag", Source: warehouse.SourceOTLP,
			EventTime: t0 + 6000, BoolValue: b(false), Labels: map[string]string{"ls": "a\u2028b", "bad": "\xff"}},
		{Environment: "env-a", OrganizationID: "org-a", MetricName: "otlp.gauge", Source: warehouse.SourceOTLP,
			EventTime: t0 + 7000, NumericValue: n(-0.5), Labels: map[string]string{}},
		{Environment: "env-b", OrganizationID: "org-b", MetricName: "toxicity-detector.score", Source: warehouse.SourceEvaluator,
			EventTime: t0 + 1, NumericValue: n(0.9), Labels: map[string]string{}},
	}
}

// TestWarehouseJSONGolden pins the exact bytes of GET /v2/warehouse/spans
// and GET/POST /v2/metrics answers (pages, cursors, errors) on a fixed
// data set, so that moving the wire format (parsing, JSON shapes) cannot
// change what clients receive. go test -run TestWarehouseJSONGolden
// -update rewrites testdata/golden/ (review the diff).
func TestWarehouseJSONGolden(t *testing.T) {
	s := newTestServer(t, nil)
	ctx := context.Background()
	if err := s.store.WriteSpans(ctx, goldenSpans()); err != nil {
		t.Fatal(err)
	}
	if err := s.store.WriteMetricPoints(ctx, goldenPoints()); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, []byte) {
		t.Helper()
		return s.raw(t, http.MethodGet, path, nil)
	}
	type step struct {
		name   string
		method string
		path   string
		body   string
		status int
		// next, when set, names the step whose next_cursor this step's
		// path gets as &cursor=.
		next string
	}
	steps := []step{
		{name: "spans_all", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=0", status: 200},
		{name: "spans_page1", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=1767225600&to_timestamp_sec=1767225700&sort_by=duration_ms&sort_order=desc&limit=2", status: 200},
		{name: "spans_page2", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=1767225600&to_timestamp_sec=1767225700&sort_by=duration_ms&sort_order=desc&limit=2", status: 200, next: "spans_page1"},
		{name: "spans_filtered", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=0&workflow=qa&user.id=u-1&filters=" +
			url.QueryEscape(`[{"id":"total_tokens","operator":"greater_than","value":10},{"id":"llm.vendor","operator":"not_exists"}]`), status: 200},
		{name: "spans_empty", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=1900000000", status: 200},
		{name: "spans_error_from", method: "GET", path: "/v2/warehouse/spans", status: 400},
		{name: "spans_error_filter", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=0&filters=" + url.QueryEscape(`[{"id":"x","operator":"like","value":1}]`), status: 400},
		{name: "spans_error_cursor", method: "GET", path: "/v2/warehouse/spans?from_timestamp_sec=0&cursor=bm90LWEtY3Vyc29y", status: 400},
		{name: "metrics_get_all", method: "GET", path: "/v2/metrics", status: 200},
		{name: "metrics_get_page1", method: "GET", path: "/v2/metrics?limit=2&sort_by=event_time&sort_order=ASC", status: 200},
		{name: "metrics_get_page2", method: "GET", path: "/v2/metrics?limit=2&sort_by=event_time&sort_order=ASC", status: 200, next: "metrics_get_page1"},
		{name: "metrics_get_filtered", method: "GET", path: "/v2/metrics?metric_name=toxicity-detector.score&filters=" +
			url.QueryEscape(`[{"field":"labels.model","operator":"contains","value":"<&>"}]`), status: 200},
		{name: "metrics_post", method: "POST", path: "/v2/metrics", body: `{"environments":["env-a"],"from_timestamp_sec":"1767225600","sort_by":"numeric_value","sort_order":"desc","limit":"3","logical_operator":"OR","filters":[{"field":"numeric_value","operator":"less_than","value":1,"valueType":"number"},{"field":"metric_source","operator":"equals","value":"otlp"}]}`, status: 200},
		{name: "metrics_post_empty", method: "POST", path: "/v2/metrics", body: ``, status: 200},
		{name: "metrics_error_sort", method: "POST", path: "/v2/metrics", body: `{"sort_by":"bogus"}`, status: 400},
		{name: "metrics_error_cursor", method: "GET", path: "/v2/metrics?cursor=-5", status: 400},
		{name: "metrics_error_env", method: "POST", path: "/v2/metrics", body: `{"environments":["env-b"]}`, status: 403},
	}
	bodies := map[string][]byte{}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			path := st.path
			if st.next != "" {
				cur := nextCursorOf(t, bodies[st.next])
				if cur == "" {
					t.Fatalf("%s has no next_cursor", st.next)
				}
				path += "&cursor=" + url.QueryEscape(cur)
			}
			var status int
			var body []byte
			if st.method == http.MethodGet {
				status, body = get(path)
			} else {
				status, body = s.raw(t, st.method, path, []byte(st.body))
			}
			bodies[st.name] = body
			if status != st.status {
				t.Fatalf("status %d, want %d: %s", status, st.status, body)
			}
			// Cursors are sealed with a random nonce (and a random secret
			// here): the golden files show where one is, not its bytes.
			body = sealedCursor.ReplaceAll(body, []byte(`"next_cursor":"<sealed cursor>"`))
			file := filepath.Join("testdata", "golden", st.name+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, body, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("%s %s answered\n%s\nwant (%s)\n%s", st.method, path, body, file, want)
			}
		})
	}
}

// raw sends a request with key A and returns the status and the body
// bytes as sent.
func (s *testServer) raw(t *testing.T, method, path string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+keyA)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data
}

// nextCursorOf returns the next_cursor of a span or metric page body.
func nextCursorOf(t *testing.T, body []byte) string {
	t.Helper()
	for _, key := range [][]byte{[]byte(`"next_cursor":"`)} {
		if i := bytes.Index(body, key); i >= 0 {
			rest := body[i+len(key):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				return string(rest[:j])
			}
		}
	}
	return ""
}
