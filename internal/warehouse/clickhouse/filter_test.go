package clickhouse

import (
	"context"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestFilterTypeMixes covers what the conformance suite does not: numeric
// lists and equalities against integer and nullable columns (ClickHouse is
// strict about types in IN), placeholders inside keys and values, and
// negated operators on NULL metric values.
func TestFilterTypeMixes(t *testing.T) {
	st := openTestStore(t, serverAddr(t))
	defer st.Close()
	ctx := context.Background()
	sp := warehouse.Span{Environment: "e", SpanID: "s", TraceID: "t", Timestamp: 1000, Duration: 100,
		SpanAttributes: map[string]string{"k?": "v?", "n": "1e3"}}
	if err := st.WriteSpans(ctx, []warehouse.Span{sp}); err != nil {
		t.Fatal(err)
	}
	two := 2.0
	if err := st.WriteMetricPoints(ctx, []warehouse.MetricPoint{{Environment: "e", MetricName: "m", EventTime: 5, NumericValue: &two}}); err != nil {
		t.Fatal(err)
	}
	type F = warehouse.Filter
	for _, tc := range []struct {
		name   string
		f      F
		metric bool
		want   int64
	}{
		{"int column in floats", F{Field: "duration", Operator: warehouse.OpIn, Values: []string{"100", "50.5"}}, false, 1},
		{"int column not_in", F{Field: "duration", Operator: warehouse.OpNotIn, Values: []string{"7"}}, false, 1},
		{"int column equals float text", F{Field: "duration", Operator: warehouse.OpEquals, Value: "100.0"}, false, 1},
		{"int column in no match", F{Field: "duration", Operator: warehouse.OpIn, Values: []string{"99.9"}}, false, 0},
		{"question marks in key and value", F{Field: "k?", Operator: warehouse.OpEquals, Value: "v?"}, false, 1},
		{"exponent attribute equals number", F{Field: "n", Operator: warehouse.OpEquals, Value: "1000", ValueType: warehouse.TypeNumber}, false, 1},
		{"exponent attribute in numbers", F{Field: "n", Operator: warehouse.OpIn, Values: []string{"1000"}, ValueType: warehouse.TypeNumber}, false, 1},
		{"timestamp greater than fraction", F{Field: "timestamp", Operator: warehouse.OpGreaterThan, Value: "999.5"}, false, 1},
		{"nullable float in", F{Field: "numeric_value", Operator: warehouse.OpIn, Values: []string{"2", "3.5"}, ValueType: warehouse.TypeNumber}, true, 1},
		{"nullable float in text values", F{Field: "numeric_value", Operator: warehouse.OpIn, Values: []string{"2"}}, true, 1},
		{"int column in (metrics)", F{Field: "event_time", Operator: warehouse.OpIn, Values: []string{"5"}}, true, 1},
		{"not_equals on NULL bool", F{Field: "bool_value", Operator: warehouse.OpNotEquals, Value: "true"}, true, 1},
		{"not_in on NULL bool", F{Field: "bool_value", Operator: warehouse.OpNotIn, Values: []string{"true"}}, true, 1},
		{"not_contains on NULL enum", F{Field: "enum_value", Operator: warehouse.OpNotContains, Value: "x"}, true, 1},
		{"contains on NULL enum", F{Field: "enum_value", Operator: warehouse.OpContains, Value: ""}, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got int64
			if tc.metric {
				p, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"e"}, Filters: []F{tc.f}})
				if err != nil {
					t.Fatal(err)
				}
				got = p.TotalResults
			} else {
				p, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}, Filters: []F{tc.f}})
				if err != nil {
					t.Fatal(err)
				}
				got = p.TotalResults
			}
			if got != tc.want {
				t.Errorf("%d matches, want %d", got, tc.want)
			}
		})
	}
}
