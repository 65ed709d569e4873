package httpapi

import (
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Fuzz targets of the query parsers: whatever a caller sends, parsing
// never panics, every error is a *warehouse.QueryError (a 400, never a
// 500), and every query that parses satisfies the invariants the stores
// rely on.

// maxFuzzInput caps fuzzed inputs so that one execution stays fast.
const maxFuzzInput = 8 << 10

// requireQueryError fails unless err is a *warehouse.QueryError with a
// message.
func requireQueryError(t *testing.T, err error) {
	t.Helper()
	var qe *warehouse.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("error %v (%T) is not a *QueryError", err, err)
	}
	if qe.Msg == "" {
		t.Fatalf("QueryError %+v has no message", qe)
	}
}

// checkFilters checks the invariants of validated filters.
func checkFilters(t *testing.T, fs []warehouse.Filter, ops []warehouse.Operator) {
	t.Helper()
	values := 0
	for i, f := range fs {
		if f.Field == "" {
			t.Fatalf("filters[%d] has no field: %+v", i, f)
		}
		if !slices.Contains(ops, f.Operator) {
			t.Fatalf("filters[%d] has operator %q outside %v", i, f.Operator, ops)
		}
		switch f.ValueType {
		case "", warehouse.TypeString, warehouse.TypeNumber, warehouse.TypeBoolean:
		default:
			t.Fatalf("filters[%d] has valueType %q", i, f.ValueType)
		}
		if f.Operator.IsNumeric() {
			if _, ok := warehouse.ParseNumber(f.Value); !ok {
				t.Fatalf("filters[%d]: numeric operator %s with value %q", i, f.Operator, f.Value)
			}
		}
		if f.Operator.IsList() && f.Values == nil {
			t.Fatalf("filters[%d]: list operator %s without values", i, f.Operator)
		}
		values += len(f.Values)
	}
	if len(fs) > warehouse.MaxFilters || values > warehouse.MaxFilterValues {
		t.Fatalf("%d filters with %d values accepted; the limits are %d and %d", len(fs), values, warehouse.MaxFilters, warehouse.MaxFilterValues)
	}
}

func checkTimeRange(t *testing.T, fromMs, toMs int64) {
	t.Helper()
	if fromMs < 0 || fromMs > warehouse.MaxTimestampSec*1000 {
		t.Fatalf("FromMs %d out of range", fromMs)
	}
	if toMs != 0 && (toMs < fromMs || toMs > warehouse.MaxTimestampSec*1000+999) {
		t.Fatalf("ToMs %d out of range (FromMs %d)", toMs, fromMs)
	}
}

func checkSpanQuery(t *testing.T, q warehouse.SpanQuery) {
	t.Helper()
	if q.Limit < 1 || q.Limit > warehouse.MaxSpanLimit {
		t.Fatalf("Limit %d outside 1..%d", q.Limit, warehouse.MaxSpanLimit)
	}
	checkTimeRange(t, q.FromMs, q.ToMs)
	if canonical, ok := warehouse.SortKeyByName(string(q.SortBy)); !ok || canonical != q.SortBy {
		t.Fatalf("SortBy %q is not a canonical sort key", q.SortBy)
	}
	if len(q.Environments) != 0 {
		t.Fatalf("Environments %v set from the query string", q.Environments)
	}
	checkFilters(t, q.Filters, warehouse.SpanOperators())
	again, err := q.Normalize()
	if err != nil {
		t.Fatalf("Normalize of a parsed query: %v", err)
	}
	if !reflect.DeepEqual(again, q) {
		t.Fatalf("Normalize changed a parsed query:\n got %+v\nwant %+v", again, q)
	}
}

func FuzzParseSpanQuery(f *testing.F) {
	for _, seed := range []struct{ query, filters string }{
		{"from_timestamp_sec=100", ""},
		{"", ""},
		{"from_timestamp_sec=1&to_timestamp_sec=0", ""},
		{"from_timestamp_sec=100&to_timestamp_sec=200&workflow=wf&span_name=chat&sort_order=desc&sort_by=duration_ms&limit=1000&cursor=abc", ""},
		{"from_timestamp_sec=-1", ""},
		{"from_timestamp_sec=253402300800", ""},
		{"from_timestamp_sec=9223372036854775807", ""},
		{"from_timestamp_sec=1&limit=0", ""},
		{"from_timestamp_sec=1&limit=1001", ""},
		{"from_timestamp_sec=1&limit=%20%2010", ""},
		{"from_timestamp_sec=1&sort_by=TRACELOOP_WORKFLOW_NAME&sort_order=aSc", ""},
		{"from_timestamp_sec=1&sort_by=nope", ""},
		{"from_timestamp_sec=1&llm.vendor=openai&a=1&a=2&=x", ""},
		{"from_timestamp_sec=1&%27%3B+DROP+TABLE+spans%3B--=1", ""},
		{"from_timestamp_sec=1&k=%ff%fe", ""},
		{"from_timestamp_sec=1&a=%zz;b", ""},
		{"from_timestamp_sec=1", `[{"id":"user.id","operator":"equals","value":"u1"}]`},
		{"from_timestamp_sec=1", `[{"id":"n","operator":"greater_than","value":100},{"id":"r","operator":"in","value":["eu",1,true]}]`},
		{"from_timestamp_sec=1", `[{"id":"tag","operator":"exists"},{"id":"x","operator":"not_exists","value":{"a":1}}]`},
		{"from_timestamp_sec=1", `[{"id":"n","operator":"less_than","value":"1e400"}]`},
		{"from_timestamp_sec=1", `[{"id":"n","operator":"equals","value":1e400}]`},
		{"from_timestamp_sec=1", `[{"id":"n","operator":"in","value":[]}]`},
		{"from_timestamp_sec=1", `[{"id":"n","operator":"in","value":[null]}]`},
		{"from_timestamp_sec=1", `[{"id":"","operator":"equals","value":"x"}]`},
		{"from_timestamp_sec=1", `[{"operator":"equals","value":"x"}]`},
		{"from_timestamp_sec=1", `[{"id":"a","operator":"like","value":"x"}]`},
		{"from_timestamp_sec=1", `[{"id":"a","operator":"equals","value":[1]}]`},
		{"from_timestamp_sec=1", `[1, "x", null]`},
		{"from_timestamp_sec=1", `{"id":"a"}`},
		{"from_timestamp_sec=1", `[[[[[[[[[[[[[[[[[[[[`},
		{"from_timestamp_sec=1", "[{\"id\":\"\xff\",\"operator\":\"equals\",\"value\":\"\xfe\"}]"},
		{"from_timestamp_sec=1", `[{"id":"a' OR '1'='1","operator":"equals","value":"x\"; DROP TABLE spans; --"}]`},
		{"from_timestamp_sec=1&" + strings.Repeat("a=1&", warehouse.MaxFilters), ""},
		{"from_timestamp_sec=1", "[" + strings.Repeat(`{"id":"a","operator":"exists"},`, warehouse.MaxFilters) + `{"id":"a","operator":"exists"}]`},
		{"from_timestamp_sec=1", `[{"id":"a","operator":"in","value":[` + strings.Repeat("1,", warehouse.MaxFilterValues) + `1]}]`},
	} {
		f.Add(seed.query, seed.filters)
	}
	f.Fuzz(func(t *testing.T, query, filters string) {
		if len(query)+len(filters) > maxFuzzInput {
			return
		}
		v, _ := url.ParseQuery(query) // the server ignores the error too (r.URL.Query)
		if filters != "" {
			v.Set("filters", filters)
		}
		q, err := ParseSpanQuery(v)
		if err != nil {
			requireQueryError(t, err)
			return
		}
		checkSpanQuery(t, q)
		// A cursor made for the parsed query continues it, and only it.
		want := warehouse.SpanCursor{Snapshot: 7, Total: 3, Seq: 2, Num: -5, Str: "k"}
		q.Cursor = warehouse.EncodeSpanCursor(q, want)
		got, ok, err := warehouse.DecodeSpanCursor(q)
		if err != nil || !ok || got != want {
			t.Fatalf("cursor round trip = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		q.Environments = []string{"other"}
		if _, _, err := warehouse.DecodeSpanCursor(q); err == nil {
			t.Fatalf("a cursor of one environment was accepted for another")
		} else {
			requireQueryError(t, err)
		}
	})
}

func checkMetricQuery(t *testing.T, q warehouse.MetricQuery) {
	t.Helper()
	if q.Limit < 1 || q.Limit > warehouse.MaxMetricLimit {
		t.Fatalf("Limit %d outside 1..%d", q.Limit, warehouse.MaxMetricLimit)
	}
	checkTimeRange(t, q.FromMs, q.ToMs)
	switch q.SortBy {
	case warehouse.MetricSortEventTime, warehouse.MetricSortMetricName, warehouse.MetricSortNumericValue:
	default:
		t.Fatalf("SortBy %q", q.SortBy)
	}
	switch q.MetricSource {
	case "", warehouse.SourceEvaluator, warehouse.SourceOTLP:
	default:
		t.Fatalf("MetricSource %q", q.MetricSource)
	}
	if q.Cursor < 0 {
		t.Fatalf("Cursor %d is negative", q.Cursor)
	}
	if _, _, _, err := warehouse.DecodeMetricCursor(q.Cursor); err != nil {
		t.Fatalf("a parsed cursor does not decode: %v", err)
	}
	checkFilters(t, q.Filters, warehouse.MetricOperators())
	for i, f := range q.Filters {
		if !warehouse.IsMetricField(f.Field) {
			t.Fatalf("filters[%d] has unknown metric field %q", i, f.Field)
		}
	}
	again, err := q.Normalize()
	if err != nil {
		t.Fatalf("Normalize of a parsed query: %v", err)
	}
	if !reflect.DeepEqual(again, q) {
		t.Fatalf("Normalize changed a parsed query:\n got %+v\nwant %+v", again, q)
	}
}

func FuzzParseMetricQuery(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `   `, `null`, `[]`, `"x"`, `{"limit":1000}`, `{"limit":1001}`, `{"limit":"7"}`, `{"limit":1.5}`,
		`{"cursor":4194305}`, `{"cursor":"4194305"}`, `{"cursor":-1}`, `{"cursor":4194304}`, `{"cursor":1e30}`,
		`{"from_timestamp_sec":10,"to_timestamp_sec":5}`, `{"from_timestamp_sec":"10","to_timestamp_sec":"10"}`,
		`{"from_timestamp_sec":253402300800}`, `{"from_timestamp_sec":-1}`, `{"to_timestamp_sec":true}`,
		`{"sort_by":"NUMERIC_VALUE","sort_order":"asc","metric_source":"OTLP","logical_operator":"or"}`,
		`{"sort_by":"x"}`, `{"metric_source":"x"}`, `{"logical_operator":"xor"}`, `{"environments":["a","b"]}`,
		`{"filters":[{"field":"labels.agent_name","operator":"equals","value":"a"}]}`,
		`{"filters":[{"field":"numeric_value","operator":"greater_than","value":0.5,"valueType":"number"}]}`,
		`{"filters":[{"field":"bool_value","operator":"equals","value":"true","valueType":"BOOLEAN"}]}`,
		`{"filters":[{"field":"bool_value","operator":"equals","value":"maybe","valueType":"boolean"}]}`,
		`{"filters":[{"field":"trace_id","operator":"in","values":["a","b"]}]}`,
		`{"filters":[{"field":"trace_id","operator":"in","value":["a",2]}]}`,
		`{"filters":[{"field":"trace_id","operator":"not_in","values":[{"a":1}]}]}`,
		`{"filters":[{"field":"attributes.x","operator":"not_contains","value":"y"}]}`,
		`{"filters":[{"field":"attributes.","operator":"exists"}]}`,
		`{"filters":[{"field":"nope","operator":"exists"}]}`,
		`{"filters":[{"field":"labels.a","operator":"equals","value":"x","valueType":"date"}]}`,
		`{"filters":[{"field":"labels.a","operator":"equals","value":null}]}`,
		`{"filters":[{"field":"labels.a'; DROP TABLE metric_points; --","operator":"equals","value":"1' OR '1'='1"}]}`,
		`{"filters":{}}`, `{"a":1} {"b":2}`, "{\"metric_name\":\"\xff\"}", `[[[[[[[[[[[[[[[[`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzInput {
			return
		}
		q, err := ParseMetricQuery(body)
		if err != nil {
			requireQueryError(t, err)
			return
		}
		checkMetricQuery(t, q)
	})
}

func FuzzMetricQueryFromValues(f *testing.F) {
	for _, seed := range []string{
		"", "limit=5&cursor=4194305&sort_by=metric_name&sort_order=ASC",
		"environments=a,b&environments=c,,%20", "from_timestamp_sec=9&to_timestamp_sec=8", "limit=abc", "cursor=-3",
		"cursor=99999999999999999999", "metric_source=evaluator&logical_operator=AND",
		"filters=" + url.QueryEscape(`[{"field":"labels.model","operator":"starts_with","value":"gpt"}]`),
		"filters=" + url.QueryEscape(`[{"field":"event_time","operator":"less_than","value":"x"}]`),
		"filters=" + url.QueryEscape(`{"field":"x"}`), "filters=%5B", "metric_name=%ff", "%zz=1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		if len(query) > maxFuzzInput {
			return
		}
		v, _ := url.ParseQuery(query)
		q, err := MetricQueryFromValues(v)
		if err != nil {
			requireQueryError(t, err)
			return
		}
		checkMetricQuery(t, q)
		for _, env := range q.Environments {
			if env == "" {
				t.Fatalf("empty environment in %q", q.Environments)
			}
		}
	})
}
