package warehouse

import (
	"errors"
	"strings"
	"testing"
)

func TestSpanCursor(t *testing.T) {
	q := SpanQuery{Environments: []string{"b", "a"}, FromMs: 1000, SortBy: SortDuration, Desc: true,
		Filters: []Filter{{Field: "k", Operator: OpEquals, Value: "v"}}}
	c := SpanCursor{Snapshot: 99, Total: 12, Seq: 7, Num: -5}
	q.Cursor = EncodeSpanCursor(q, c)
	got, ok, err := DecodeSpanCursor(q)
	if err != nil || !ok || got != c {
		t.Fatalf("round trip: got %+v, %v, %v; want %+v", got, ok, err, c)
	}
	reordered := q
	reordered.Environments = []string{"a", "b"}
	reordered.Limit = 7
	if _, _, err := DecodeSpanCursor(reordered); err != nil {
		t.Errorf("same query, environments reordered and another limit: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*SpanQuery)
		msg    string
	}{
		{"other environment", func(q *SpanQuery) { q.Environments = []string{"a"} }, "cursor: cursor belongs to a different query"},
		{"other filter value", func(q *SpanQuery) { q.Filters = []Filter{{Field: "k", Operator: OpEquals, Value: "w"}} }, "cursor: cursor belongs to a different query"},
		{"other order", func(q *SpanQuery) { q.Desc = false }, "cursor: cursor belongs to a different query"},
		{"other range", func(q *SpanQuery) { q.ToMs = 5000 }, "cursor: cursor belongs to a different query"},
		{"not base64", func(q *SpanQuery) { q.Cursor = "%%%" }, "cursor: malformed cursor"},
		{"not JSON", func(q *SpanQuery) { q.Cursor = "bm9wZQ" }, "cursor: malformed cursor"},
		{"negative snapshot", func(q *SpanQuery) {
			q.Cursor = EncodeSpanCursor(*q, SpanCursor{Snapshot: -1})
		}, "cursor: malformed cursor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := q
			tc.change(&bad)
			_, _, err := DecodeSpanCursor(bad)
			var qe *QueryError
			if !errors.As(err, &qe) || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Errorf("got %v, want a *QueryError starting %q", err, tc.msg)
			}
		})
	}
	if _, ok, err := DecodeSpanCursor(SpanQuery{}); ok || err != nil {
		t.Errorf("no cursor: ok %v, err %v; want false, nil", ok, err)
	}
}

func TestResolveSpanField(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want FieldRef
	}{
		{"span_name", FieldRef{Column: "span_name"}},
		{"duration", FieldRef{Column: "duration", ColType: ColInt}},
		{"duration_ms", FieldRef{Column: "duration", ColType: ColInt}},
		{"traceloop_entity_name", FieldRef{Column: "entity_name"}},
		{"llm.vendor", FieldRef{Kind: KindSpanAttribute, Key: "llm.vendor"}},
		{"span_attributes.span_name", FieldRef{Kind: KindSpanAttribute, Key: "span_name"}},
		{"resource.service.name", FieldRef{Kind: KindResourceAttribute, Key: "service.name"}},
		{"resource_attributes.region", FieldRef{Kind: KindResourceAttribute, Key: "region"}},
		{"resource.", FieldRef{Kind: KindSpanAttribute, Key: "resource."}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			if got := ResolveSpanField(tc.id); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
