package httpapi

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func TestParseSpanQuery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query string
		want  warehouse.SpanQuery
	}{
		{"defaults", "from_timestamp_sec=100",
			warehouse.SpanQuery{FromMs: 100_000, SortBy: warehouse.SortTimestamp, Limit: warehouse.DefaultSpanLimit}},
		{"all known parameters", "from_timestamp_sec=100&to_timestamp_sec=200&workflow=wf&span_name=chat&sort_order=desc&sort_by=duration_ms&limit=1000&cursor=abc",
			warehouse.SpanQuery{FromMs: 100_000, ToMs: 200_999, SortBy: warehouse.SortDuration, Desc: true, Limit: 1000, Cursor: "abc",
				Filters: []warehouse.Filter{{Field: "workflow_name", Operator: warehouse.OpEquals, Value: "wf"}, {Field: "span_name", Operator: warehouse.OpEquals, Value: "chat"}}}},
		{"sort order case-insensitive", "from_timestamp_sec=1&sort_order=Asc",
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortTimestamp, Limit: warehouse.DefaultSpanLimit}},
		{"sort alias", "from_timestamp_sec=1&sort_by=traceloop_workflow_name",
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortWorkflowName, Limit: warehouse.DefaultSpanLimit}},
		{"sort alias tokens", "from_timestamp_sec=1&sort_by=llm_usage_total_tokens",
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortTotalTokens, Limit: warehouse.DefaultSpanLimit}},
		{"unknown parameters are attribute filters", "from_timestamp_sec=1&llm.vendor=openai&a=1&a=2",
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortTimestamp, Limit: warehouse.DefaultSpanLimit, Filters: []warehouse.Filter{
				{Field: "span_attributes.a", Operator: warehouse.OpEquals, Value: "1"},
				{Field: "span_attributes.a", Operator: warehouse.OpEquals, Value: "2"},
				{Field: "span_attributes.llm.vendor", Operator: warehouse.OpEquals, Value: "openai"}}}},
		{"filters", `from_timestamp_sec=1&filters=` + url.QueryEscape(`[{"id":"user.id","operator":"equals","value":"u1"},`+
			`{"id":"llm.usage.total_tokens","operator":"greater_than","value":100},`+
			`{"id":"resource.region","operator":"in","value":["eu","us"]},`+
			`{"id":"n","operator":"not_in","value":[1,2.5]},`+
			`{"id":"flag","operator":"equals","value":true},`+
			`{"id":"tag","operator":"exists"}]`),
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortTimestamp, Limit: warehouse.DefaultSpanLimit, Filters: []warehouse.Filter{
				{Field: "user.id", Operator: warehouse.OpEquals, Value: "u1"},
				{Field: "llm.usage.total_tokens", Operator: warehouse.OpGreaterThan, Value: "100", ValueType: warehouse.TypeNumber},
				{Field: "resource.region", Operator: warehouse.OpIn, Values: []string{"eu", "us"}},
				{Field: "n", Operator: warehouse.OpNotIn, Values: []string{"1", "2.5"}, ValueType: warehouse.TypeNumber},
				{Field: "flag", Operator: warehouse.OpEquals, Value: "true"},
				{Field: "tag", Operator: warehouse.OpExists}}}},
		{"numeric string for greater_than", `from_timestamp_sec=1&filters=` + url.QueryEscape(`[{"id":"d","operator":"less_than","value":"3.5"}]`),
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortTimestamp, Limit: warehouse.DefaultSpanLimit, Filters: []warehouse.Filter{
				{Field: "d", Operator: warehouse.OpLessThan, Value: "3.5"}}}},
		{"empty to is absent", "from_timestamp_sec=1&to_timestamp_sec=",
			warehouse.SpanQuery{FromMs: 1000, SortBy: warehouse.SortTimestamp, Limit: warehouse.DefaultSpanLimit}},
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
		{"bad sort by", "from_timestamp_sec=1&sort_by=colour", "sort_by", `sort_by: "colour" is not one of ` + warehouse.SortKeyNames},
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
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("got %v, want a *warehouse.QueryError", err)
			}
			if qe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("got field %q, message %q; want field %q, message starting %q", qe.Field, err.Error(), tc.field, tc.message)
			}
		})
	}
}

func TestParseMetricQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want warehouse.MetricQuery
	}{
		{"empty object gets defaults", `{}`, warehouse.MetricQuery{SortBy: warehouse.MetricSortEventTime, Desc: true, Limit: warehouse.DefaultMetricLimit}},
		{"no body gets defaults", " \n", warehouse.MetricQuery{SortBy: warehouse.MetricSortEventTime, Desc: true, Limit: warehouse.DefaultMetricLimit}},
		{"all fields", `{"cursor": 4194305, "environments": ["prod"], "from_timestamp_sec": 10, "to_timestamp_sec": 20,
			"limit": 1000, "metric_name": "m", "metric_source": "OTLP", "sort_by": "numeric_value", "sort_order": "asc",
			"logical_operator": "or", "filters": [
				{"field": "bool_value", "operator": "equals", "value": "true", "valueType": "boolean"},
				{"field": "labels.agent_name", "operator": "in", "values": ["a", "b"]},
				{"field": "attributes.user.id", "operator": "not_contains", "value": "x"},
				{"field": "numeric_value", "operator": "greater_than", "value": 0.5, "valueType": "number"},
				{"field": "enum_value", "operator": "exists"}]}`,
			warehouse.MetricQuery{Cursor: 4194305, Environments: []string{"prod"}, FromMs: 10_000, ToMs: 20_999, Limit: 1000,
				MetricName: "m", MetricSource: warehouse.SourceOTLP, SortBy: warehouse.MetricSortNumericValue, Or: true, Filters: []warehouse.Filter{
					{Field: "bool_value", Operator: warehouse.OpEquals, Value: "true", ValueType: warehouse.TypeBoolean},
					{Field: "labels.agent_name", Operator: warehouse.OpIn, Values: []string{"a", "b"}, ValueType: warehouse.TypeString},
					{Field: "attributes.user.id", Operator: warehouse.OpNotContains, Value: "x", ValueType: warehouse.TypeString},
					{Field: "numeric_value", Operator: warehouse.OpGreaterThan, Value: "0.5", ValueType: warehouse.TypeNumber},
					{Field: "enum_value", Operator: warehouse.OpExists, ValueType: warehouse.TypeString}}}},
		{"cursor as string", `{"cursor": "4194305"}`, warehouse.MetricQuery{Cursor: 4194305, SortBy: warehouse.MetricSortEventTime, Desc: true, Limit: warehouse.DefaultMetricLimit}},
		{"null cursor", `{"cursor": null, "limit": "7"}`, warehouse.MetricQuery{SortBy: warehouse.MetricSortEventTime, Desc: true, Limit: 7}},
		{"in list given as value", `{"filters": [{"field": "trace_id", "operator": "in", "value": ["t1"]}]}`,
			warehouse.MetricQuery{SortBy: warehouse.MetricSortEventTime, Desc: true, Limit: warehouse.DefaultMetricLimit, Filters: []warehouse.Filter{
				{Field: "trace_id", Operator: warehouse.OpIn, Values: []string{"t1"}, ValueType: warehouse.TypeString}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMetricQuery([]byte(tc.body))
			if err != nil {
				t.Fatalf("ParseMetricQuery: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseMetricQueryErrors(t *testing.T) {
	ops := "equals, not_equals, greater_than, greater_than_or_equal, less_than, less_than_or_equal, contains, starts_with, in, not_in, exists, not_exists, not_contains"
	for _, tc := range []struct {
		name    string
		body    string
		field   string
		message string
	}{
		{"not JSON", `{oops`, "body", "body: not a JSON metric query object"},
		{"array body", `[]`, "body", "body: not a JSON metric query object"},
		{"environments not an array", `{"environments": "prod"}`, "body", "body: not a JSON metric query object"},
		{"cursor not a number", `{"cursor": "abc"}`, "cursor", `cursor: "abc" is not an integer`},
		{"cursor a float", `{"cursor": 1.5}`, "cursor", `cursor: "1.5" is not an integer`},
		{"cursor an object", `{"cursor": {}}`, "cursor", "cursor: {} is not an integer"},
		{"negative cursor", `{"cursor": -3}`, "cursor", "cursor: -3 is not a cursor returned by this API"},
		{"from after to", `{"from_timestamp_sec": 20, "to_timestamp_sec": 10}`, "to_timestamp_sec", "to_timestamp_sec: 10 is before from_timestamp_sec 20"},
		{"from not an integer", `{"from_timestamp_sec": "soon"}`, "from_timestamp_sec", `from_timestamp_sec: "soon" is not an integer (Unix seconds)`},
		{"limit too large", `{"limit": 5000}`, "limit", "limit: 5000 is not between 1 and 1000"},
		{"bad sort_by", `{"sort_by": "span_name"}`, "sort_by", `sort_by: "span_name" is not one of event_time, metric_name, numeric_value`},
		{"bad sort_order", `{"sort_order": "sideways"}`, "sort_order", `sort_order: "sideways" is not ASC or DESC`},
		{"bad source", `{"metric_source": "prometheus"}`, "metric_source", `metric_source: "prometheus" is not one of evaluator, otlp, annotation, experiment`},
		{"bad logical operator", `{"logical_operator": "XOR"}`, "logical_operator", `logical_operator: "XOR" is not AND or OR`},
		{"unknown field", `{"filters": [{"field": "colour", "operator": "equals", "value": "x"}]}`, "filters[0]", `filters[0]: field "colour" is not one of`},
		{"missing field", `{"filters": [{"operator": "equals", "value": "x"}]}`, "filters[0]", "filters[0]: missing field"},
		{"unknown operator", `{"filters": [{"field": "trace_id", "operator": "equals", "value": "x"}, {"field": "trace_id", "operator": "like", "value": "x"}]}`,
			"filters[1]", `filters[1]: operator "like" is not one of ` + ops},
		{"bad valueType", `{"filters": [{"field": "trace_id", "operator": "equals", "value": "x", "valueType": "date"}]}`,
			"filters[0]", `filters[0]: valueType "date" is not one of string, number, boolean`},
		{"number type with text", `{"filters": [{"field": "labels.n", "operator": "equals", "value": "x", "valueType": "number"}]}`,
			"filters[0]", `filters[0]: valueType number needs a numeric value, got "x"`},
		{"boolean type with text", `{"filters": [{"field": "bool_value", "operator": "equals", "value": "maybe", "valueType": "boolean"}]}`,
			"filters[0]", `filters[0]: valueType boolean needs true or false, got "maybe"`},
		{"missing value", `{"filters": [{"field": "trace_id", "operator": "equals"}]}`, "filters[0]", "filters[0]: operator equals needs a value"},
		{"array for equals", `{"filters": [{"field": "trace_id", "operator": "equals", "value": ["a"]}]}`, "filters[0]", "filters[0]: operator equals takes a single value, not an array"},
		{"missing values for in", `{"filters": [{"field": "trace_id", "operator": "in", "value": "a"}]}`, "filters[0]", "filters[0]: operator in needs values (an array)"},
		{"non-numeric list for number type", `{"filters": [{"field": "numeric_value", "operator": "in", "values": ["1", "x"], "valueType": "number"}]}`,
			"filters[0]", `filters[0]: values[1]: valueType number needs a numeric value, got "x"`},
		{"non-numeric greater_than", `{"filters": [{"field": "numeric_value", "operator": "greater_than", "value": "big"}]}`,
			"filters[0]", `filters[0]: operator greater_than needs a numeric value, got "big"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMetricQuery([]byte(tc.body))
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("got %v, want a *warehouse.QueryError", err)
			}
			if qe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("got field %q, message %q; want field %q, message starting %q", qe.Field, err.Error(), tc.field, tc.message)
			}
		})
	}
}

func TestMetricQueryFromValues(t *testing.T) {
	v := url.Values{
		"environments": {"a,b", "c"}, "from_timestamp_sec": {"5"}, "cursor": {"4194306"}, "sort_order": {"ASC"},
		"filters": {`[{"field":"labels.x","operator":"equals","value":"1"}]`}, "metric_name": {"m"},
	}
	got, err := MetricQueryFromValues(v)
	if err != nil {
		t.Fatalf("MetricQueryFromValues: %v", err)
	}
	want := warehouse.MetricQuery{Environments: []string{"a", "b", "c"}, FromMs: 5000, Cursor: 4194306, MetricName: "m",
		SortBy: warehouse.MetricSortEventTime, Limit: warehouse.DefaultMetricLimit,
		Filters: []warehouse.Filter{{Field: "labels.x", Operator: warehouse.OpEquals, Value: "1", ValueType: warehouse.TypeString}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for _, tc := range []struct {
		name, param, value, message string
	}{
		{"filters not JSON", "filters", "[{", "filters: not a JSON array"},
		{"cursor not integer", "cursor", "x", `cursor: "x" is not an integer`},
		{"limit zero", "limit", "0", "limit: 0 is not between 1 and 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MetricQueryFromValues(url.Values{tc.param: {tc.value}})
			if !warehouse.IsQueryError(err) || !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("got %v, want a *warehouse.QueryError starting %q", err, tc.message)
			}
		})
	}
}
