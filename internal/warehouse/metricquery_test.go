package warehouse

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseMetricQuery(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want MetricQuery
	}{
		{"empty object gets defaults", `{}`, MetricQuery{SortBy: MetricSortEventTime, Desc: true, Limit: DefaultMetricLimit}},
		{"no body gets defaults", " \n", MetricQuery{SortBy: MetricSortEventTime, Desc: true, Limit: DefaultMetricLimit}},
		{"all fields", `{"cursor": 4194305, "environments": ["prod"], "from_timestamp_sec": 10, "to_timestamp_sec": 20,
			"limit": 1000, "metric_name": "m", "metric_source": "OTLP", "sort_by": "numeric_value", "sort_order": "asc",
			"logical_operator": "or", "filters": [
				{"field": "bool_value", "operator": "equals", "value": "true", "valueType": "boolean"},
				{"field": "labels.agent_name", "operator": "in", "values": ["a", "b"]},
				{"field": "attributes.user.id", "operator": "not_contains", "value": "x"},
				{"field": "numeric_value", "operator": "greater_than", "value": 0.5, "valueType": "number"},
				{"field": "enum_value", "operator": "exists"}]}`,
			MetricQuery{Cursor: 4194305, Environments: []string{"prod"}, FromMs: 10_000, ToMs: 20_999, Limit: 1000,
				MetricName: "m", MetricSource: SourceOTLP, SortBy: MetricSortNumericValue, Or: true, Filters: []Filter{
					{Field: "bool_value", Operator: OpEquals, Value: "true", ValueType: TypeBoolean},
					{Field: "labels.agent_name", Operator: OpIn, Values: []string{"a", "b"}, ValueType: TypeString},
					{Field: "attributes.user.id", Operator: OpNotContains, Value: "x", ValueType: TypeString},
					{Field: "numeric_value", Operator: OpGreaterThan, Value: "0.5", ValueType: TypeNumber},
					{Field: "enum_value", Operator: OpExists, ValueType: TypeString}}}},
		{"cursor as string", `{"cursor": "4194305"}`, MetricQuery{Cursor: 4194305, SortBy: MetricSortEventTime, Desc: true, Limit: DefaultMetricLimit}},
		{"null cursor", `{"cursor": null, "limit": "7"}`, MetricQuery{SortBy: MetricSortEventTime, Desc: true, Limit: 7}},
		{"in list given as value", `{"filters": [{"field": "trace_id", "operator": "in", "value": ["t1"]}]}`,
			MetricQuery{SortBy: MetricSortEventTime, Desc: true, Limit: DefaultMetricLimit, Filters: []Filter{
				{Field: "trace_id", Operator: OpIn, Values: []string{"t1"}, ValueType: TypeString}}}},
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
		{"bad source", `{"metric_source": "prometheus"}`, "metric_source", `metric_source: "prometheus" is not one of evaluator, otlp`},
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

func TestMetricQueryFromValues(t *testing.T) {
	v := url.Values{
		"environments": {"a,b", "c"}, "from_timestamp_sec": {"5"}, "cursor": {"4194306"}, "sort_order": {"ASC"},
		"filters": {`[{"field":"labels.x","operator":"equals","value":"1"}]`}, "metric_name": {"m"},
	}
	got, err := MetricQueryFromValues(v)
	if err != nil {
		t.Fatalf("MetricQueryFromValues: %v", err)
	}
	want := MetricQuery{Environments: []string{"a", "b", "c"}, FromMs: 5000, Cursor: 4194306, MetricName: "m",
		SortBy: MetricSortEventTime, Limit: DefaultMetricLimit,
		Filters: []Filter{{Field: "labels.x", Operator: OpEquals, Value: "1", ValueType: TypeString}}}
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
			if !IsQueryError(err) || !strings.HasPrefix(err.Error(), tc.message) {
				t.Errorf("got %v, want a *QueryError starting %q", err, tc.message)
			}
		})
	}
}

func TestMetricCursor(t *testing.T) {
	for _, tc := range []struct {
		name             string
		snapshot, offset int64
	}{{"small", 1, 1}, {"typical", 123456, 50}, {"deepest offset", 7, MaxMetricOffset}, {"large snapshot", 1<<31 - 1, 1000}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := EncodeMetricCursor(tc.snapshot, tc.offset)
			if err != nil {
				t.Fatal(err)
			}
			if tc.snapshot < 1<<31 && c >= 1<<53 {
				t.Errorf("cursor %d is not exact in a JSON double", c)
			}
			s, o, ok, err := DecodeMetricCursor(c)
			if err != nil || !ok || s != tc.snapshot || o != tc.offset {
				t.Errorf("decode(%d) = %d, %d, %v, %v; want %d, %d", c, s, o, ok, err, tc.snapshot, tc.offset)
			}
		})
	}
	if _, err := EncodeMetricCursor(1, 0); err == nil {
		t.Error("offset 0 encoded without error")
	}
	if _, err := EncodeMetricCursor(1, MaxMetricOffset+1); err == nil {
		t.Error("offset past the maximum encoded without error")
	}
	if _, _, ok, err := DecodeMetricCursor(0); ok || err != nil {
		t.Errorf("cursor 0: ok %v, err %v; want first page", ok, err)
	}
	if got := FormatMetricCursor(0); got != "" {
		t.Errorf("FormatMetricCursor(0) = %q, want empty", got)
	}
}
