// Package storetest is the conformance suite every warehouse backend
// passes: Run it from the backend's tests with a function that opens an
// empty store, and RunRetention with one that opens a store enforcing a
// retention.
package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Opener opens a new, empty store for one test; the suite closes it.
type Opener func(t *testing.T) warehouse.Store

// RunTraceStats runs the suite's sorted trace list tests alone (a backend
// runs them again with its own settings).
func RunTraceStats(t *testing.T, open Opener) { testTraceStats(t, open) }

// Run runs the whole suite against the backend that open creates.
func Run(t *testing.T, open Opener) {
	t.Run("SpanRoundTrip", func(t *testing.T) { testSpanRoundTrip(t, open) })
	t.Run("SpanContent", func(t *testing.T) { testSpanContent(t, open) })
	t.Run("SpanEmpty", func(t *testing.T) { testSpanEmpty(t, open) })
	t.Run("SpanTenancy", func(t *testing.T) { testSpanTenancy(t, open) })
	t.Run("SpanTimeRange", func(t *testing.T) { testSpanTimeRange(t, open) })
	t.Run("SpanFilters", func(t *testing.T) { testSpanFilters(t, open) })
	t.Run("SpanIndexedEquality", func(t *testing.T) { testSpanIndexedEquality(t, open) })
	t.Run("SpanSort", func(t *testing.T) { testSpanSort(t, open) })
	t.Run("SpanPaging", func(t *testing.T) { testSpanPaging(t, open) })
	t.Run("SpanBadCursor", func(t *testing.T) { testSpanBadCursor(t, open) })
	t.Run("SpanBadQuery", func(t *testing.T) { testSpanBadQuery(t, open) })
	t.Run("PageBytes", func(t *testing.T) { testPageBytes(t, open) })
	t.Run("MetricRoundTrip", func(t *testing.T) { testMetricRoundTrip(t, open) })
	t.Run("MetricFilters", func(t *testing.T) { testMetricFilters(t, open) })
	t.Run("MetricSortAndGroups", func(t *testing.T) { testMetricSortAndGroups(t, open) })
	t.Run("MetricPaging", func(t *testing.T) { testMetricPaging(t, open) })
	t.Run("MetricTenancyAndBadInput", func(t *testing.T) { testMetricTenancyAndBadInput(t, open) })
	t.Run("MetricSourceLabelCounts", func(t *testing.T) { testMetricSourceLabelCounts(t, open) })
	t.Run("IdempotentWrites", func(t *testing.T) { testIdempotentWrites(t, open) })
	t.Run("SpanConflicts", func(t *testing.T) { testSpanConflicts(t, open) })
	t.Run("Setups", func(t *testing.T) { testSetups(t, open) })
	t.Run("SetupsWithoutExternalID", func(t *testing.T) { testSetupsWithoutExternalID(t, open) })
	t.Run("Organizations", func(t *testing.T) { testOrganizations(t, open) })
	t.Run("PipelineStatus", func(t *testing.T) { testPipelineStatus(t, open) })
	t.Run("AppendEvaluations", func(t *testing.T) { testAppendEvaluations(t, open) })
	t.Run("EvaluationCounts", func(t *testing.T) { testEvaluationCounts(t, open) })
	t.Run("SpanStats", func(t *testing.T) { testSpanStats(t, open) })
	t.Run("TraceStats", func(t *testing.T) { testTraceStats(t, open) })
	t.Run("VerdictFilters", func(t *testing.T) { testVerdictFilters(t, open) })
	t.Run("Traces", func(t *testing.T) { testTraces(t, open) })
	t.Run("Aggregates", func(t *testing.T) { testAggregates(t, open) })
	t.Run("Settings", func(t *testing.T) { testSettings(t, open) })
	t.Run("Sessions", func(t *testing.T) { testSessions(t, open) })
	t.Run("Documents", func(t *testing.T) { testDocuments(t, open) })
	t.Run("Closed", func(t *testing.T) { testClosed(t, open) })
}

// base is the start of the suite's time range (2026-01-01, Unix ms).
const base = int64(1_767_225_600_000)

func openStore(t *testing.T, open Opener) warehouse.Store {
	t.Helper()
	st := open(t)
	t.Cleanup(func() { st.Close() })
	return st
}

func writeSpans(t *testing.T, st warehouse.Store, spans ...warehouse.Span) {
	t.Helper()
	if err := st.WriteSpans(context.Background(), spans); err != nil {
		t.Fatalf("WriteSpans: %v", err)
	}
}

func querySpans(t *testing.T, st warehouse.Store, q warehouse.SpanQuery) warehouse.SpanPage {
	t.Helper()
	page, err := st.QuerySpans(context.Background(), q)
	if err != nil {
		t.Fatalf("QuerySpans(%+v): %v", q, err)
	}
	return page
}

// allPages follows the cursors of q to the end and returns every span.
func allPages(t *testing.T, st warehouse.Store, q warehouse.SpanQuery) []warehouse.Span {
	t.Helper()
	var out []warehouse.Span
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("pagination does not end")
		}
		page := querySpans(t, st, q)
		out = append(out, page.Spans...)
		if page.NextCursor == "" {
			return out
		}
		q.Cursor = page.NextCursor
	}
}

// ids returns the span ids of spans in order.
func ids(spans []warehouse.Span) []string {
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.SpanID
	}
	return out
}

// span returns a minimal span of env with the given id at base+offsetMs.
func span(env, id string, offsetMs int64) warehouse.Span {
	return warehouse.Span{Environment: env, SpanID: id, TraceID: "trace-" + id, Timestamp: base + offsetMs,
		SpanName: "op", SpanKind: "SPAN_KIND_INTERNAL", StatusCode: "STATUS_CODE_UNSET", ServiceName: "svc"}
}

// normalizeSpan gives a span the shape a store returns: non-nil maps.
func normalizeSpan(sp warehouse.Span) warehouse.Span {
	for _, m := range []*map[string]string{&sp.ResourceAttributes, &sp.SpanAttributes, &sp.Prompts, &sp.Completions} {
		if *m == nil {
			*m = map[string]string{}
		}
	}
	if len(sp.Evaluations) == 0 {
		sp.Evaluations = nil
	}
	return sp
}

func fullSpan() warehouse.Span {
	attrs := map[string]string{
		"llm.vendor": "openai", "llm.request.model": "gpt-4o", "llm.usage.total_tokens": "42",
		"unicode.ключ": "значение 🚀 日本語", "quote\"key": "back\\slash", "empty": "",
		"html": "<b>&amp;</b>", "newline": "a\nb\tc",
	}
	for i := range 500 {
		attrs[fmt.Sprintf("bulk.%03d", i)] = strings.Repeat("x", i%40)
	}
	return warehouse.Span{
		Environment: "prod", Timestamp: base + 1234, TraceID: "0af7651916cd43dd8448eb211c80319c",
		SpanID: "b7ad6b7169203331", ParentSpanID: "00f067aa0ba902b7", TraceState: "rojo=00f067aa0ba902b7",
		SpanName: "openai.chat ✓", SpanKind: "SPAN_KIND_CLIENT", ServiceName: "chat-service",
		ResourceAttributes: map[string]string{"service.name": "chat-service", "deployment.environment.name": "prod"},
		ScopeName:          "opentelemetry.instrumentation.openai", ScopeVersion: "0.33.0",
		SpanAttributes: attrs, Duration: 1500, StatusCode: "STATUS_CODE_ERROR", StatusMessage: "rate limited ⚠",
		Prompts:     map[string]string{"llm.prompts.0.role": "user", "llm.prompts.0.content": "Hello, мир! \"quoted\""},
		Completions: map[string]string{"llm.completions.0.role": "assistant", "llm.completions.0.content": "Hi 👋", "llm.completions.0.finish_reason": "stop"},
		Input:       `{"messages":[{"role":"user"}]}`, Output: "Hi 👋",
		WorkflowName: "support-flow", EntityName: "answerer", AgentName: "agent-1", RequestModel: "gpt-4o",
		ResponseModel: "gpt-4o-2024-08-06", Vendor: "openai", TotalTokens: 42,
		Evaluations: []warehouse.Evaluation{
			{Name: "toxicity-detector", ScoreValue: 0.25, ScoreLabel: "safe", MonitorID: "m1",
				Output: map[string]any{"is_safe": "safe", "score": 0.25, "flags": []any{"a", "b"}, "ok": true}},
			{Name: "pii-detector", Error: "timeout"},
		},
	}
}

func testSpanRoundTrip(t *testing.T, open Opener) {
	st := openStore(t, open)
	want := fullSpan()
	sparse := span("prod", "sparse", 2000) // nil maps, no evaluations
	writeSpans(t, st, want, sparse)
	page := querySpans(t, st, warehouse.SpanQuery{Environments: []string{"prod"}, FromMs: base})
	if len(page.Spans) != 2 || page.TotalResults != 2 || page.NextCursor != "" {
		t.Fatalf("got %d spans, total %d, cursor %q; want 2, 2, \"\"", len(page.Spans), page.TotalResults, page.NextCursor)
	}
	if got := page.Spans[0]; !reflect.DeepEqual(got, normalizeSpan(want)) {
		t.Errorf("full span round trip differs:\n got %+v\nwant %+v", got, normalizeSpan(want))
	}
	if got := page.Spans[1]; !reflect.DeepEqual(got, normalizeSpan(sparse)) {
		t.Errorf("sparse span round trip differs:\n got %+v\nwant %+v", got, normalizeSpan(sparse))
	}
	if err := st.WriteSpans(context.Background(), nil); err != nil {
		t.Errorf("WriteSpans(nil) = %v, want nil", err)
	}
	if err := st.Ping(context.Background()); err != nil {
		t.Errorf("Ping = %v", err)
	}
}

func testSpanEmpty(t *testing.T, open Opener) {
	st := openStore(t, open)
	for _, tc := range []struct {
		name string
		envs []string
	}{{"no spans", []string{"prod"}}, {"no environments", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			page := querySpans(t, st, warehouse.SpanQuery{Environments: tc.envs})
			if page.Spans == nil || len(page.Spans) != 0 || page.TotalResults != 0 || page.NextCursor != "" {
				t.Errorf("got %+v, want an empty non-nil page", page)
			}
		})
	}
}

func testSpanTenancy(t *testing.T, open Opener) {
	st := openStore(t, open)
	writeSpans(t, st, span("A", "a1", 1), span("B", "b1", 2), span("A", "a2", 3), span("C", "c1", 4))
	for _, tc := range []struct {
		name string
		envs []string
		want []string
	}{
		{"A only", []string{"A"}, []string{"a1", "a2"}},
		{"B only", []string{"B"}, []string{"b1"}},
		{"A and C", []string{"C", "A"}, []string{"a1", "a2", "c1"}},
		{"unknown", []string{"D"}, []string{}},
		{"none", nil, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(allPages(t, st, warehouse.SpanQuery{Environments: tc.envs, Limit: 1}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// An attribute filter never leaks across environments either.
	a, b := span("A", "a-attr", 10), span("B", "b-attr", 11)
	a.SpanAttributes = map[string]string{"user.id": "u1"}
	b.SpanAttributes = map[string]string{"user.id": "u1"}
	writeSpans(t, st, a, b)
	got := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"A"},
		Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"}}}))
	if !slices.Equal(got, []string{"a-attr"}) {
		t.Errorf("attribute filter in A: got %v, want [a-attr]", got)
	}
}

func testSpanTimeRange(t *testing.T, open Opener) {
	st := openStore(t, open)
	writeSpans(t, st, span("e", "t0", 0), span("e", "t999", 999), span("e", "t1000", 1000), span("e", "t5000", 5000))
	for _, tc := range []struct {
		name     string
		from, to int64
		want     []string
	}{
		{"open end", base, 0, []string{"t0", "t999", "t1000", "t5000"}},
		{"inclusive both ends", base + 999, base + 1000, []string{"t999", "t1000"}},
		{"from after all", base + 5001, 0, []string{}},
		{"single ms", base + 5000, base + 5000, []string{"t5000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"e"}, FromMs: tc.from, ToMs: tc.to}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
