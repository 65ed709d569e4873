package warehouse

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpanQuery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query string
		want  SpanQuery
	}{
		{"defaults", "from_timestamp_sec=100",
			SpanQuery{FromMs: 100_000, SortBy: SortTimestamp, Limit: DefaultSpanLimit}},
		{"all known parameters", "from_timestamp_sec=100&to_timestamp_sec=200&workflow=wf&span_name=chat&sort_order=desc&sort_by=duration_ms&limit=1000&cursor=abc",
			SpanQuery{FromMs: 100_000, ToMs: 200_999, SortBy: SortDuration, Desc: true, Limit: 1000, Cursor: "abc",
				Filters: []Filter{{Field: "workflow_name", Operator: OpEquals, Value: "wf"}, {Field: "span_name", Operator: OpEquals, Value: "chat"}}}},
		{"sort order case-insensitive", "from_timestamp_sec=1&sort_order=Asc",
			SpanQuery{FromMs: 1000, SortBy: SortTimestamp, Limit: DefaultSpanLimit}},
		{"sort alias", "from_timestamp_sec=1&sort_by=traceloop_workflow_name",
			SpanQuery{FromMs: 1000, SortBy: SortWorkflowName, Limit: DefaultSpanLimit}},
		{"sort alias tokens", "from_timestamp_sec=1&sort_by=llm_usage_total_tokens",
			SpanQuery{FromMs: 1000, SortBy: SortTotalTokens, Limit: DefaultSpanLimit}},
		{"unknown parameters are attribute filters", "from_timestamp_sec=1&llm.vendor=openai&a=1&a=2",
			SpanQuery{FromMs: 1000, SortBy: SortTimestamp, Limit: DefaultSpanLimit, Filters: []Filter{
				{Field: "span_attributes.a", Operator: OpEquals, Value: "1"},
				{Field: "span_attributes.a", Operator: OpEquals, Value: "2"},
				{Field: "span_attributes.llm.vendor", Operator: OpEquals, Value: "openai"}}}},
		{"filters", `from_timestamp_sec=1&filters=` + url.QueryEscape(`[{"id":"user.id","operator":"equals","value":"u1"},`+
			`{"id":"llm.usage.total_tokens","operator":"greater_than","value":100},`+
			`{"id":"resource.region","operator":"in","value":["eu","us"]},`+
			`{"id":"n","operator":"not_in","value":[1,2.5]},`+
			`{"id":"flag","operator":"equals","value":true},`+
			`{"id":"tag","operator":"exists"}]`),
			SpanQuery{FromMs: 1000, SortBy: SortTimestamp, Limit: DefaultSpanLimit, Filters: []Filter{
				{Field: "user.id", Operator: OpEquals, Value: "u1"},
				{Field: "llm.usage.total_tokens", Operator: OpGreaterThan, Value: "100", ValueType: TypeNumber},
				{Field: "resource.region", Operator: OpIn, Values: []string{"eu", "us"}},
				{Field: "n", Operator: OpNotIn, Values: []string{"1", "2.5"}, ValueType: TypeNumber},
				{Field: "flag", Operator: OpEquals, Value: "true"},
				{Field: "tag", Operator: OpExists}}}},
		{"numeric string for greater_than", `from_timestamp_sec=1&filters=` + url.QueryEscape(`[{"id":"d","operator":"less_than","value":"3.5"}]`),
			SpanQuery{FromMs: 1000, SortBy: SortTimestamp, Limit: DefaultSpanLimit, Filters: []Filter{
				{Field: "d", Operator: OpLessThan, Value: "3.5"}}}},
		{"empty to is absent", "from_timestamp_sec=1&to_timestamp_sec=",
			SpanQuery{FromMs: 1000, SortBy: SortTimestamp, Limit: DefaultSpanLimit}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseSpanQuery(v)
			if err != nil {
				t.Fatalf("ParseSpanQuery: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseSpanQueryErrors(t *testing.T) {
	ops := "equals, not_equals, greater_than, greater_than_or_equal, less_than, less_than_or_equal, contains, starts_with, in, not_in, exists, not_exists"
	filters := func(s string) string { return "from_timestamp_sec=1&filters=" + url.QueryEscape(s) }
	for _, tc := range []struct {
		name    string
		query   string
		field   string
		message string
	}{
		{"missing from", "to_timestamp_sec=5", "from_timestamp_sec", "from_timestamp_sec: required (Unix seconds)"},
		{"from not an integer", "from_timestamp_sec=yesterday", "from_timestamp_sec", `from_timestamp_sec: "yesterday" is not an integer (Unix seconds)`},
		{"from a float", "from_timestamp_sec=1.5", "from_timestamp_sec", `from_timestamp_sec: "1.5" is not an integer (Unix seconds)`},
		{"from negative", "from_timestamp_sec=-1", "from_timestamp_sec", "from_timestamp_sec: -1 is out of range 0..253402300799"},
		{"to not an integer", "from_timestamp_sec=1&to_timestamp_sec=x", "to_timestamp_sec", `to_timestamp_sec: "x" is not an integer (Unix seconds)`},
		{"to before from", "from_timestamp_sec=10&to_timestamp_sec=5", "to_timestamp_sec", "to_timestamp_sec: 5 is before from_timestamp_sec 10"},
		{"bad sort order", "from_timestamp_sec=1&sort_order=up", "sort_order", `sort_order: "up" is not ASC or DESC`},
		{"bad sort by", "from_timestamp_sec=1&sort_by=colour", "sort_by", `sort_by: "colour" is not one of ` + sortKeyList},
		{"limit too large", "from_timestamp_sec=1&limit=1001", "limit", "limit: 1001 is not between 1 and 1000"},
		{"limit zero", "from_timestamp_sec=1&limit=0", "limit", "limit: 0 is not between 1 and 1000"},
		{"limit not a number", "from_timestamp_sec=1&limit=ten", "limit", `limit: "ten" is not an integer`},
		{"filters not JSON", filters("{oops"), "filters", "filters: not a JSON array of {id, operator, value}"},
		{"filters not an array", filters(`{"id":"a"}`), "filters", "filters: not a JSON array of {id, operator, value}"},
		{"filter not an object", filters(`["a"]`), "filters[0]", "filters[0]: not an object {id, operator, value}"},
		{"missing id", filters(`[{"operator":"equals","value":"x"}]`), "filters[0]", "filters[0]: missing id"},
		{"unknown operator", filters(`[{"id":"a","operator":"equals","value":"x"},{"id":"b","operator":"foo","value":"x"}]`), "filters[1]",
			`filters[1]: operator "foo" is not one of ` + ops},
		{"not_contains is metrics only", filters(`[{"id":"a","operator":"not_contains","value":"x"}]`), "filters[0]",
			`filters[0]: operator "not_contains" is not one of ` + ops},
		{"array for equals", filters(`[{"id":"a","operator":"equals","value":["x"]}]`), "filters[0]", "filters[0]: operator equals takes a single value, not an array"},
		{"missing value", filters(`[{"id":"a","operator":"contains"}]`), "filters[0]", "filters[0]: operator contains needs a value"},
		{"null value", filters(`[{"id":"a","operator":"equals","value":null}]`), "filters[0]", "filters[0]: operator equals needs a value"},
		{"scalar for in", filters(`[{"id":"a","operator":"in","value":"x"}]`), "filters[0]", "filters[0]: operator in needs an array value"},
		{"missing list for not_in", filters(`[{"id":"a","operator":"not_in"}]`), "filters[0]", "filters[0]: operator not_in needs an array value"},
		{"object in list", filters(`[{"id":"a","operator":"in","value":["x",{}]}]`), "filters[0]", "filters[0]: value[1] is not a string, number or boolean"},
		{"object value", filters(`[{"id":"a","operator":"equals","value":{"k":1}}]`), "filters[0]", "filters[0]: value is not a string, number or boolean"},
		{"non-numeric greater_than", filters(`[{"id":"a","operator":"greater_than","value":"big"}]`), "filters[0]", `filters[0]: operator greater_than needs a numeric value, got "big"`},
		{"boolean for less_than", filters(`[{"id":"a","operator":"less_than","value":true}]`), "filters[0]", `filters[0]: operator less_than needs a numeric value, got "true"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseSpanQuery(v)
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("got %v, want a *QueryError", err)
			}
			if qe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("got field %q, message %q; want field %q, message starting %q", qe.Field, err.Error(), tc.field, tc.message)
			}
		})
	}
}

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
