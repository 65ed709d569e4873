package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Attribute key and value shaped like SQL injection; stores must treat
// them as plain data.
const (
	injectionKey   = `x' OR 1=1 --"); DROP TABLE spans; --`
	injectionValue = `'; DROP TABLE spans; SELECT '`
)

// filterFixture is the span set the filter cases run on.
func filterFixture() []warehouse.Span {
	s1 := span("f", "s1", 1)
	s1.SpanName, s1.Duration, s1.StatusCode, s1.WorkflowName, s1.TotalTokens = "chat.completion", 100, "STATUS_CODE_OK", "wf-a", 10
	s1.SpanAttributes = map[string]string{"user.id": "alice", "tokens": "10", "tag": "red"}
	s1.ResourceAttributes = map[string]string{"region": "eu"}
	s2 := span("f", "s2", 2)
	s2.SpanName, s2.Duration, s2.StatusCode, s2.WorkflowName, s2.TotalTokens = "chat.embedding", 2000, "STATUS_CODE_ERROR", "wf-b", 200
	s2.SpanAttributes = map[string]string{"user.id": "bob", "tokens": "200", "tag": "blue"}
	s2.ResourceAttributes = map[string]string{"region": "us"}
	s3 := span("f", "s3", 3)
	s3.SpanName, s3.Duration = "retrieval", 50
	s3.SpanAttributes = map[string]string{"user.id": "carol", "tokens": "3.5", injectionKey: injectionValue}
	s4 := span("f", "s4", 4)
	s4.SpanName, s4.Duration = "Chat.Completion", 0
	s4.ResourceAttributes = map[string]string{"region": "eu", "tier": "gold"}
	s5 := span("f", "s5", 5)
	s5.SpanName, s5.Duration = "tool ✓", 75
	s5.SpanAttributes = map[string]string{"tokens": "not-a-number", "tag": "red", "quote": `"q"`, "ключ": "значение"}
	return []warehouse.Span{s1, s2, s3, s4, s5}
}

func testSpanFilters(t *testing.T, open Opener) {
	st := openStore(t, open)
	writeSpans(t, st, filterFixture()...)
	type F = warehouse.Filter
	for _, tc := range []struct {
		name    string
		filters []F
		want    []string
	}{
		{"equals attribute", []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "alice"}}, []string{"s1"}},
		{"equals injection key and value", []F{{Field: injectionKey, Operator: warehouse.OpEquals, Value: injectionValue}}, []string{"s3"}},
		{"equals injection value elsewhere", []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "x' OR '1'='1"}}, []string{}},
		{"exists injection key", []F{{Field: injectionKey, Operator: warehouse.OpExists}}, []string{"s3"}},
		{"equals unicode key", []F{{Field: "ключ", Operator: warehouse.OpEquals, Value: "значение"}}, []string{"s5"}},
		{"equals quoted value", []F{{Field: "quote", Operator: warehouse.OpEquals, Value: `"q"`}}, []string{"s5"}},
		{"explicit span_attributes prefix", []F{{Field: "span_attributes.tag", Operator: warehouse.OpEquals, Value: "red"}}, []string{"s1", "s5"}},
		{"not_equals includes missing", []F{{Field: "user.id", Operator: warehouse.OpNotEquals, Value: "alice"}}, []string{"s2", "s3", "s4", "s5"}},
		{"greater_than numeric attribute", []F{{Field: "tokens", Operator: warehouse.OpGreaterThan, Value: "10"}}, []string{"s2"}},
		{"greater_than_or_equal", []F{{Field: "tokens", Operator: warehouse.OpGreaterThanOrEqual, Value: "10"}}, []string{"s1", "s2"}},
		{"less_than", []F{{Field: "tokens", Operator: warehouse.OpLessThan, Value: "10"}}, []string{"s3"}},
		{"less_than_or_equal fraction", []F{{Field: "tokens", Operator: warehouse.OpLessThanOrEqual, Value: "3.5"}}, []string{"s3"}},
		{"contains is case-sensitive", []F{{Field: "span_name", Operator: warehouse.OpContains, Value: "chat"}}, []string{"s1", "s2"}},
		{"contains_fold ignores case", []F{{Field: "span_name", Operator: warehouse.OpContainsFold, Value: "CHAT.c"}}, []string{"s1", "s4"}},
		{"contains_fold column", []F{{Field: "workflow_name", Operator: warehouse.OpContainsFold, Value: "WF-"}}, []string{"s1", "s2"}},
		{"contains attribute", []F{{Field: "user.id", Operator: warehouse.OpContains, Value: "o"}}, []string{"s2", "s3"}},
		{"contains unicode", []F{{Field: "span_name", Operator: warehouse.OpContains, Value: "✓"}}, []string{"s5"}},
		{"starts_with", []F{{Field: "span_name", Operator: warehouse.OpStartsWith, Value: "chat."}}, []string{"s1", "s2"}},
		{"starts_with unicode", []F{{Field: "span_name", Operator: warehouse.OpStartsWith, Value: "tool ✓"}}, []string{"s5"}},
		{"in", []F{{Field: "user.id", Operator: warehouse.OpIn, Values: []string{"alice", "carol"}}}, []string{"s1", "s3"}},
		{"in numbers", []F{{Field: "tokens", Operator: warehouse.OpIn, Values: []string{"200", "3.50"}, ValueType: warehouse.TypeNumber}}, []string{"s2", "s3"}},
		{"in empty list", []F{{Field: "user.id", Operator: warehouse.OpIn, Values: []string{}}}, []string{}},
		{"not_in includes missing", []F{{Field: "user.id", Operator: warehouse.OpNotIn, Values: []string{"alice"}}}, []string{"s2", "s3", "s4", "s5"}},
		{"exists", []F{{Field: "tag", Operator: warehouse.OpExists}}, []string{"s1", "s2", "s5"}},
		{"not_exists", []F{{Field: "tag", Operator: warehouse.OpNotExists}}, []string{"s3", "s4"}},
		{"resource equals", []F{{Field: "resource.region", Operator: warehouse.OpEquals, Value: "eu"}}, []string{"s1", "s4"}},
		{"resource_attributes exists", []F{{Field: "resource_attributes.tier", Operator: warehouse.OpExists}}, []string{"s4"}},
		{"resource not_exists", []F{{Field: "resource.region", Operator: warehouse.OpNotExists}}, []string{"s3", "s5"}},
		{"duration greater_than", []F{{Field: "duration", Operator: warehouse.OpGreaterThan, Value: "100"}}, []string{"s2"}},
		{"duration_ms less_than_or_equal", []F{{Field: "duration_ms", Operator: warehouse.OpLessThanOrEqual, Value: "50"}}, []string{"s3", "s4"}},
		{"duration equals non-number", []F{{Field: "duration", Operator: warehouse.OpEquals, Value: "abc"}}, []string{}},
		{"status_code column", []F{{Field: "status_code", Operator: warehouse.OpEquals, Value: "STATUS_CODE_ERROR"}}, []string{"s2"}},
		{"workflow column", []F{{Field: "workflow_name", Operator: warehouse.OpEquals, Value: "wf-a"}}, []string{"s1"}},
		{"workflow alias exists", []F{{Field: "traceloop_workflow_name", Operator: warehouse.OpExists}}, []string{"s1", "s2"}},
		{"total_tokens greater_than", []F{{Field: "total_tokens", Operator: warehouse.OpGreaterThan, Value: "100"}}, []string{"s2"}},
		{"span_id column", []F{{Field: "span_id", Operator: warehouse.OpIn, Values: []string{"s4", "s5"}}}, []string{"s4", "s5"}},
		{"AND of filters", []F{{Field: "tag", Operator: warehouse.OpEquals, Value: "red"}, {Field: "user.id", Operator: warehouse.OpEquals, Value: "alice"}}, []string{"s1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"f"}, Filters: tc.filters, Limit: 2}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// The injection attempts left the data alone.
	if got := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"f"}})); len(got) != 5 {
		t.Errorf("after injection cases: %d spans, want 5", len(got))
	}
}

// testSpanIndexedEquality covers equality on many spans (where a backend
// may use an attribute index), long values and time bounds.
func testSpanIndexedEquality(t *testing.T, open Opener) {
	st := openStore(t, open)
	long := strings.Repeat("long-value-", 40)
	var spans []warehouse.Span
	for i := range 300 {
		sp := span("idx", fmt.Sprintf("i%03d", i), int64(i)*60_000) // one a minute: 5 hours
		sp.SpanAttributes = map[string]string{"user.id": fmt.Sprintf("user-%d", i%30), "n": fmt.Sprint(i)}
		if i == 123 {
			sp.SpanAttributes["payload"] = long
		}
		spans = append(spans, sp)
		other := sp
		other.Environment = "idx-other"
		spans = append(spans, other)
	}
	writeSpans(t, st, spans...)
	expect := func(pred func(i int) bool) []string {
		out := []string{}
		for i := range 300 {
			if pred(i) {
				out = append(out, fmt.Sprintf("i%03d", i))
			}
		}
		return out
	}
	type F = warehouse.Filter
	for _, tc := range []struct {
		name     string
		from, to int64
		filters  []F
		want     []string
	}{
		{"equals", base, 0, []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "user-7"}}, expect(func(i int) bool { return i%30 == 7 })},
		{"in", base, 0, []F{{Field: "user.id", Operator: warehouse.OpIn, Values: []string{"user-1", "user-2"}}}, expect(func(i int) bool { return i%30 == 1 || i%30 == 2 })},
		{"equals within range", base + 60*60_000, base + 120*60_000 - 1, []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "user-7"}},
			expect(func(i int) bool { return i%30 == 7 && i >= 60 && i < 120 })},
		{"long value", base, 0, []F{{Field: "payload", Operator: warehouse.OpEquals, Value: long}}, []string{"i123"}},
		{"equals and numeric", base, 0, []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "user-7"}, {Field: "n", Operator: warehouse.OpGreaterThan, Value: "200"}},
			expect(func(i int) bool { return i%30 == 7 && i > 200 })},
		{"no match", base, 0, []F{{Field: "user.id", Operator: warehouse.OpEquals, Value: "user-99"}}, []string{}},
		{"trace_id equals", base, 0, []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "trace-i042"}}, []string{"i042"}},
		{"trace_id in", base, 0, []F{{Field: "trace_id", Operator: warehouse.OpIn, Values: []string{"trace-i001", "trace-i299", "nope"}}}, []string{"i001", "i299"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := warehouse.SpanQuery{Environments: []string{"idx"}, FromMs: tc.from, ToMs: tc.to, Filters: tc.filters, Limit: 4}
			first := querySpans(t, st, q)
			if first.TotalResults != int64(len(tc.want)) {
				t.Errorf("total_results %d, want %d", first.TotalResults, len(tc.want))
			}
			if got := ids(allPages(t, st, q)); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func testSpanBadCursor(t *testing.T, open Opener) {
	st := openStore(t, open)
	var spans []warehouse.Span
	for i := range 5 {
		spans = append(spans, span("A", fmt.Sprint("a", i), int64(i)), span("B", fmt.Sprint("b", i), int64(i)))
	}
	writeSpans(t, st, spans...)
	qA := warehouse.SpanQuery{Environments: []string{"A"}, Limit: 2}
	page := querySpans(t, st, qA)
	if page.NextCursor == "" {
		t.Fatal("no next cursor on a partial page")
	}
	for _, tc := range []struct {
		name string
		q    warehouse.SpanQuery
	}{
		{"garbage", warehouse.SpanQuery{Environments: []string{"A"}, Cursor: "!!not a cursor!!"}},
		{"base64 of nonsense", warehouse.SpanQuery{Environments: []string{"A"}, Cursor: "bm9uc2Vuc2U"}},
		{"other tenant", warehouse.SpanQuery{Environments: []string{"B"}, Limit: 2, Cursor: page.NextCursor}},
		{"other filters", warehouse.SpanQuery{Environments: []string{"A"}, Limit: 2, Cursor: page.NextCursor,
			Filters: []warehouse.Filter{{Field: "k", Operator: warehouse.OpExists}}}},
		{"other sort", warehouse.SpanQuery{Environments: []string{"A"}, Limit: 2, Cursor: page.NextCursor, Desc: true}},
		{"other range", warehouse.SpanQuery{Environments: []string{"A"}, Limit: 2, Cursor: page.NextCursor, FromMs: base}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.QuerySpans(context.Background(), tc.q)
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) || qe.Field != "cursor" {
				t.Fatalf("got %v, want a *QueryError on cursor", err)
			}
		})
	}
	// The same cursor with another page size is fine.
	q := qA
	q.Limit, q.Cursor = 10, page.NextCursor
	if got := ids(querySpans(t, st, q).Spans); !slices.Equal(got, []string{"a2", "a3", "a4"}) {
		t.Errorf("continuing with limit 10: got %v, want [a2 a3 a4]", got)
	}
}

func testSpanBadQuery(t *testing.T, open Opener) {
	st := openStore(t, open)
	for _, tc := range []struct {
		name  string
		q     warehouse.SpanQuery
		field string
	}{
		{"limit too large", warehouse.SpanQuery{Environments: []string{"A"}, Limit: 1001}, "limit"},
		{"negative limit", warehouse.SpanQuery{Environments: []string{"A"}, Limit: -1}, "limit"},
		{"unknown sort", warehouse.SpanQuery{Environments: []string{"A"}, SortBy: "colour"}, "sort_by"},
		{"bad operator", warehouse.SpanQuery{Environments: []string{"A"}, Filters: []warehouse.Filter{{Field: "a", Operator: "foo"}}}, "filters[0]"},
		{"non-numeric greater_than", warehouse.SpanQuery{Environments: []string{"A"}, Filters: []warehouse.Filter{{Field: "a", Operator: warehouse.OpGreaterThan, Value: "x"}}}, "filters[0]"},
		{"end before start", warehouse.SpanQuery{Environments: []string{"A"}, FromMs: 10, ToMs: 5}, "to_timestamp_sec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.QuerySpans(context.Background(), tc.q)
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) || qe.Field != tc.field {
				t.Fatalf("got %v, want a *QueryError on %s", err, tc.field)
			}
		})
	}
}

func testClosed(t *testing.T, open Opener) {
	st := open(t)
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := context.Background()
	for name, err := range map[string]error{
		"Ping":       st.Ping(ctx),
		"WriteSpans": st.WriteSpans(ctx, []warehouse.Span{span("A", "x", 0)}),
		"QuerySpans": func() error {
			_, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"A"}})
			return err
		}(),
		"QueryMetrics": func() error {
			_, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"A"}})
			return err
		}(),
		"AppendEvaluations": func() error {
			app, ok := st.(warehouse.EvaluationAppender)
			if !ok {
				return warehouse.ErrUnavailable // nothing to check
			}
			return app.AppendEvaluations(ctx, "A", []warehouse.SpanEvaluations{{TraceID: "trace-x", SpanID: "x",
				Evaluations: []warehouse.Evaluation{{Name: "char-count", MonitorID: "m"}}}})
		}(),
	} {
		if !warehouse.IsRetryable(err) {
			t.Errorf("%s after Close: %v, want an error wrapping ErrUnavailable", name, err)
		}
	}
}
