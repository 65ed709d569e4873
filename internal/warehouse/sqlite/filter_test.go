package sqlite

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestAttributePrefilter: text equality and in-lists on attributes and
// labels test the stored JSON for the quoted value before extracting it
// (attributeHas), and give the same answers as without: a value stored
// under another key passes the test and is rejected by the extraction, a
// negation still matches records without the attribute, and a value an
// encoder escaped (rewritten here as encoding/json wrote "<"; invalid
// UTF-8, which the writer stores as "\ufffd") is found, since such values
// skip the test.
func TestAttributePrefilter(t *testing.T) {
	ctx := context.Background()
	st := openWith(t, Options{})
	ts := int64(1_790_000_000_000)
	spans := []warehouse.Span{
		{SpanAttributes: map[string]string{"k": "a<b"}},
		{SpanAttributes: map[string]string{"k": "a<b"}}, // rewritten below as "a\u003cb"
		{SpanAttributes: map[string]string{"k": "plain", "other": "v"}},
		{SpanAttributes: map[string]string{"other": "plain"}},
		{SpanAttributes: map[string]string{"k": "v"}},
		{SpanAttributes: map[string]string{"k": "x\xffy"}}, // stored as "x\ufffdy"
	}
	var pts []warehouse.MetricPoint
	for i := range spans {
		spans[i].Environment, spans[i].TraceID, spans[i].SpanID, spans[i].Timestamp = "e", "t", fmt.Sprint("s", i), ts+int64(i)
		v := float64(i)
		pts = append(pts, warehouse.MetricPoint{Environment: "e", MetricName: "m", EventTime: ts + int64(i), NumericValue: &v,
			TraceID: "t", SpanID: fmt.Sprint("s", i), Labels: spans[i].SpanAttributes, Attributes: spans[i].SpanAttributes})
	}
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteMetricPoints(ctx, pts); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{`UPDATE spans SET span_attributes = '{"k":"a\u003cb"}' WHERE span_id = 's1'`,
		`UPDATE metric_points SET labels = '{"k":"a\u003cb"}', attributes = '{"k":"a\u003cb"}' WHERE span_id = 's1'`} {
		if _, err := st.writer.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		f    warehouse.Filter
		want []string
	}{
		{warehouse.Filter{Operator: warehouse.OpEquals, Value: "a<b"}, []string{"s0", "s1"}},
		{warehouse.Filter{Operator: warehouse.OpEquals, Value: "plain"}, []string{"s2"}},
		{warehouse.Filter{Operator: warehouse.OpIn, Values: []string{"plain", "v"}}, []string{"s2", "s4"}},
		{warehouse.Filter{Operator: warehouse.OpNotEquals, Value: "plain"}, []string{"s0", "s1", "s3", "s4", "s5"}},
		{warehouse.Filter{Operator: warehouse.OpNotIn, Values: []string{"a<b", "v"}}, []string{"s2", "s3", "s5"}},
		{warehouse.Filter{Operator: warehouse.OpEquals, Value: "x\uFFFDy"}, []string{"s5"}},
		{warehouse.Filter{Operator: warehouse.OpNotIn, Values: []string{"x\uFFFDy", "v"}}, []string{"s0", "s1", "s2", "s3"}},
	} {
		for _, field := range []string{"k", warehouse.PrefixLabel + "k", warehouse.PrefixAttribute + "k"} {
			f := tc.f
			f.Field = field
			var got []string
			var total int64
			if field == "k" {
				// The spans read and checked one by one (not the postings).
				st.forceAccess = func(p spanPlan) spanPlan { p.access, p.post = accessTimeIndex, nil; return p }
				page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}, Filters: []warehouse.Filter{f}, Limit: 10})
				st.forceAccess = nil
				if err != nil {
					t.Fatal(err)
				}
				for _, sp := range page.Spans {
					got = append(got, sp.SpanID)
				}
				total = page.TotalResults
			} else {
				page, err := st.QueryMetrics(ctx, warehouse.MetricQuery{Environments: []string{"e"}, Filters: []warehouse.Filter{f}, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range page.Groups {
					for _, p := range g.Points {
						got = append(got, p.SpanID)
					}
				}
				total = page.TotalResults
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || total != int64(len(tc.want)) {
				t.Errorf("%s %s %q %q: %v of %d, want %d (%v)", field, f.Operator, f.Value, f.Values, got, total, len(tc.want), tc.want)
			}
		}
	}
}
