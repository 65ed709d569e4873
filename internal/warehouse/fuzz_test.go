package warehouse

import (
	"errors"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// Fuzz targets of the query parsers and cursors: whatever a caller sends,
// parsing never panics, every error is a *QueryError (a 400, never a 500),
// and every query that parses satisfies the invariants the stores rely on.

// maxFuzzInput caps fuzzed inputs so that one execution stays fast.
const maxFuzzInput = 8 << 10

// requireQueryError fails unless err is a *QueryError with a message.
func requireQueryError(t *testing.T, err error) {
	t.Helper()
	var qe *QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("error %v (%T) is not a *QueryError", err, err)
	}
	if qe.Msg == "" {
		t.Fatalf("QueryError %+v has no message", qe)
	}
}

// checkFilters checks the invariants of validated filters.
func checkFilters(t *testing.T, fs []Filter, ops []Operator) {
	t.Helper()
	values := 0
	for i, f := range fs {
		if f.Field == "" {
			t.Fatalf("filters[%d] has no field: %+v", i, f)
		}
		if !knownOperator(ops, f.Operator) {
			t.Fatalf("filters[%d] has operator %q outside %v", i, f.Operator, ops)
		}
		switch f.ValueType {
		case "", TypeString, TypeNumber, TypeBoolean:
		default:
			t.Fatalf("filters[%d] has valueType %q", i, f.ValueType)
		}
		if f.Operator.IsNumeric() {
			if _, ok := ParseNumber(f.Value); !ok {
				t.Fatalf("filters[%d]: numeric operator %s with value %q", i, f.Operator, f.Value)
			}
		}
		if f.Operator.IsList() && f.Values == nil {
			t.Fatalf("filters[%d]: list operator %s without values", i, f.Operator)
		}
		values += len(f.Values)
	}
	if len(fs) > MaxFilters || values > MaxFilterValues {
		t.Fatalf("%d filters with %d values accepted; the limits are %d and %d", len(fs), values, MaxFilters, MaxFilterValues)
	}
}

func checkTimeRange(t *testing.T, fromMs, toMs int64) {
	t.Helper()
	if fromMs < 0 || fromMs > maxTimestampSec*1000 {
		t.Fatalf("FromMs %d out of range", fromMs)
	}
	if toMs != 0 && (toMs < fromMs || toMs > maxTimestampSec*1000+999) {
		t.Fatalf("ToMs %d out of range (FromMs %d)", toMs, fromMs)
	}
}

func checkSpanQuery(t *testing.T, q SpanQuery) {
	t.Helper()
	if q.Limit < 1 || q.Limit > MaxSpanLimit {
		t.Fatalf("Limit %d outside 1..%d", q.Limit, MaxSpanLimit)
	}
	checkTimeRange(t, q.FromMs, q.ToMs)
	if canonical, ok := sortKeys[string(q.SortBy)]; !ok || canonical != q.SortBy {
		t.Fatalf("SortBy %q is not a canonical sort key", q.SortBy)
	}
	if len(q.Environments) != 0 {
		t.Fatalf("Environments %v set from the query string", q.Environments)
	}
	checkFilters(t, q.Filters, spanOperators)
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
		{"from_timestamp_sec=1&" + strings.Repeat("a=1&", MaxFilters), ""},
		{"from_timestamp_sec=1", "[" + strings.Repeat(`{"id":"a","operator":"exists"},`, MaxFilters) + `{"id":"a","operator":"exists"}]`},
		{"from_timestamp_sec=1", `[{"id":"a","operator":"in","value":[` + strings.Repeat("1,", MaxFilterValues) + `1]}]`},
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
		want := SpanCursor{Snapshot: 7, Total: 3, Seq: 2, Num: -5, Str: "k"}
		q.Cursor = EncodeSpanCursor(q, want)
		got, ok, err := DecodeSpanCursor(q)
		if err != nil || !ok || got != want {
			t.Fatalf("cursor round trip = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		q.Environments = []string{"other"}
		if _, _, err := DecodeSpanCursor(q); err == nil {
			t.Fatalf("a cursor of one environment was accepted for another")
		} else {
			requireQueryError(t, err)
		}
	})
}

func checkMetricQuery(t *testing.T, q MetricQuery) {
	t.Helper()
	if q.Limit < 1 || q.Limit > MaxMetricLimit {
		t.Fatalf("Limit %d outside 1..%d", q.Limit, MaxMetricLimit)
	}
	checkTimeRange(t, q.FromMs, q.ToMs)
	switch q.SortBy {
	case MetricSortEventTime, MetricSortMetricName, MetricSortNumericValue:
	default:
		t.Fatalf("SortBy %q", q.SortBy)
	}
	switch q.MetricSource {
	case "", SourceEvaluator, SourceOTLP:
	default:
		t.Fatalf("MetricSource %q", q.MetricSource)
	}
	if q.Cursor < 0 {
		t.Fatalf("Cursor %d is negative", q.Cursor)
	}
	if _, _, _, err := DecodeMetricCursor(q.Cursor); err != nil {
		t.Fatalf("a parsed cursor does not decode: %v", err)
	}
	checkFilters(t, q.Filters, metricOperators)
	for i, f := range q.Filters {
		if _, ok := resolveMetricField(f.Field); !ok {
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

func FuzzDecodeSpanCursor(f *testing.F) {
	query := SpanQuery{Environments: []string{"env-a"}, FromMs: 1000, SortBy: SortTimestamp, Limit: 10}
	valid := EncodeSpanCursor(query, SpanCursor{Snapshot: 10, Total: 4, Seq: 3, Num: 1700000000000})
	for _, seed := range []struct {
		cursor                  string
		snap, total, seq, num   int64
		str                     string
		otherEnv, otherSortDesc bool
	}{
		{valid, 10, 4, 3, 1700000000000, "", false, false},
		{valid, 10, 4, 3, 1700000000000, "", true, false},
		{valid, 10, 4, 3, 1700000000000, "", false, true},
		{"", 0, 0, 0, 0, "", false, false},
		{"abc", 1, 1, 1, math.MinInt64, "name", false, false},
		{"eyJ2IjoxfQ", 0, 0, 0, 0, "", false, false}, // {"v":1}
		{"eyJ2IjoxLCJzIjotMX0", 0, 0, 0, 0, "", false, false},
		{"!!!!", math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64, "\u2603", false, false},
		{"", 1, 1, 1, 0, "a\xfe", false, false}, // invalid UTF-8 sort value
		{"", 1, 1, 1, 0, "\xff\xfe\x00", false, false},
		{"bnVsbA", 0, 0, 0, 0, "", false, false}, // null
		{"W10", 0, 0, 0, 0, "", false, false},    // []
	} {
		f.Add(seed.cursor, seed.snap, seed.total, seed.seq, seed.num, seed.str, seed.otherEnv, seed.otherSortDesc)
	}
	f.Fuzz(func(t *testing.T, cursor string, snap, total, seq, num int64, str string, otherEnv, otherSortDesc bool) {
		if len(cursor)+len(str) > maxFuzzInput {
			return
		}
		// Arbitrary cursor text: no panic, a *QueryError or a sane cursor.
		q := query
		q.Cursor = cursor
		c, ok, err := DecodeSpanCursor(q)
		switch {
		case err != nil:
			requireQueryError(t, err)
		case cursor == "" && ok:
			t.Fatalf("an empty cursor decoded as present")
		case ok && (c.Snapshot < 0 || c.Total < 0 || c.Seq < 0):
			t.Fatalf("decoded cursor %+v has negative counters", c)
		}

		// Encoded cursors round-trip for their own query only, whatever
		// bytes the text sort value holds (it was once carried as a JSON
		// string, which turned invalid UTF-8 into U+FFFD and moved the
		// keyset position).
		if snap < 0 || total < 0 || seq < 0 {
			return
		}
		want := SpanCursor{Snapshot: snap, Total: total, Seq: seq, Num: num, Str: str}
		q.Cursor = EncodeSpanCursor(query, want)
		got, ok, err := DecodeSpanCursor(q)
		if err != nil || !ok || got != want {
			t.Fatalf("round trip = %+v, %v, %v; want %+v", got, ok, err, want)
		}
		other := q
		if otherEnv {
			other.Environments = []string{"env-b"}
		}
		if otherSortDesc {
			other.Desc = true
		}
		if otherEnv || otherSortDesc {
			if _, _, err := DecodeSpanCursor(other); err == nil {
				t.Fatalf("cursor accepted for another query (other env %v, desc %v)", otherEnv, otherSortDesc)
			} else {
				requireQueryError(t, err)
			}
		}
	})
}

func FuzzDecodeMetricCursor(f *testing.F) {
	for _, seed := range []int64{0, 1, -1, MaxMetricOffset, MaxMetricOffset + 1, 1 << metricOffsetBits,
		1<<metricOffsetBits | 5, math.MaxInt64, math.MinInt64} {
		f.Add(seed, seed>>metricOffsetBits, seed&MaxMetricOffset)
	}
	f.Fuzz(func(t *testing.T, cursor, snapshot, offset int64) {
		snap, off, ok, err := DecodeMetricCursor(cursor)
		switch {
		case err != nil:
			requireQueryError(t, err)
			if cursor >= 0 && cursor&MaxMetricOffset != 0 {
				t.Fatalf("cursor %d rejected: %v", cursor, err)
			}
		case cursor == 0:
			if ok || FormatMetricCursor(cursor) != "" {
				t.Fatalf("cursor 0 decoded as present")
			}
		default:
			if !ok || snap < 0 || off < 1 || off > MaxMetricOffset {
				t.Fatalf("cursor %d decoded to snapshot %d offset %d ok %v", cursor, snap, off, ok)
			}
			back, err := EncodeMetricCursor(snap, off)
			if err != nil || back != cursor {
				t.Fatalf("cursor %d re-encodes to %d, %v", cursor, back, err)
			}
		}

		// Encoding accepts exactly the representable pairs and round-trips.
		c, err := EncodeMetricCursor(snapshot, offset)
		representable := offset >= 1 && offset <= MaxMetricOffset && snapshot >= 0 && snapshot <= math.MaxInt64>>metricOffsetBits
		if (err == nil) != representable {
			t.Fatalf("EncodeMetricCursor(%d, %d) error %v, representable %v", snapshot, offset, err, representable)
		}
		if err != nil {
			return
		}
		s, o, ok, err := DecodeMetricCursor(c)
		if err != nil || !ok || s != snapshot || o != offset {
			t.Fatalf("DecodeMetricCursor(EncodeMetricCursor(%d, %d)) = %d, %d, %v, %v", snapshot, offset, s, o, ok, err)
		}
	})
}
