package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
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
				st.forceAccess = func(p spanPlan) spanPlan { p.Access, p.Post = index.TimeIndex, -1; return p }
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

// TestResourceFiltersMatchPerSpanLookup: a filter on a resource attribute
// tests the resource sets once (spanFilters) and matches exactly the spans
// that looking up each span's set matches, negations and missing keys
// included; the pages and totals of QuerySpans agree.
func TestResourceFiltersMatchPerSpanLookup(t *testing.T) {
	ctx := context.Background()
	st := openWith(t, Options{})
	resources := []map[string]string{
		{"service.name": "checkout", "region": "eu", "replicas": "3"},
		{"service.name": "search", "region": "us"},
		{"service.name": "checkout-v2", "replicas": "12"},
		{},
		{"service.name": "a\xffb", "region": "eu"}, // stored as "a\ufffdb"
	}
	var spans []warehouse.Span
	for i := range 40 {
		spans = append(spans, warehouse.Span{Environment: []string{"e", "f"}[i%2], TraceID: "t", SpanID: fmt.Sprint("s", i),
			Timestamp: 1_790_000_000_000 + int64(i), ResourceAttributes: resources[i%len(resources)]})
	}
	if err := st.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	f := func(key string, op warehouse.Operator, value string, values ...string) warehouse.Filter {
		return warehouse.Filter{Field: "resource." + key, Operator: op, Value: value, Values: values}
	}
	for _, filter := range []warehouse.Filter{
		f("service.name", warehouse.OpEquals, "checkout"),
		f("service.name", warehouse.OpNotEquals, "checkout"),
		f("service.name", warehouse.OpIn, "", "search", "a\uFFFDb"),
		f("service.name", warehouse.OpNotIn, "", "search", "nothing"),
		f("service.name", warehouse.OpStartsWith, "checkout"),
		f("service.name", warehouse.OpContains, "\uFFFD"),
		f("region", warehouse.OpExists, ""),
		f("region", warehouse.OpNotExists, ""),
		f("region", warehouse.OpNotEquals, "eu"),
		f("replicas", warehouse.OpGreaterThan, "5"),
		{Field: "resource_attributes.replicas", Operator: warehouse.OpEquals, Value: "3.0", ValueType: warehouse.TypeNumber},
	} {
		perSpan := dialect.SpanFilters([]warehouse.Filter{filter})[0] // each span's set looked up
		var want int64
		if err := st.reader.QueryRowContext(ctx, `SELECT count(*) FROM spans WHERE environment = 'e' AND `+perSpan.SQL,
			perSpan.Args...).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(spanFilters([]warehouse.Filter{filter})[0].SQL, "resource_id IN") {
			t.Fatalf("%v: not rendered as a test of the resource sets", filter)
		}
		page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}, Filters: []warehouse.Filter{filter}, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		for q := (warehouse.SpanQuery{Environments: []string{"e"}, Filters: []warehouse.Filter{filter}, Limit: 3}); ; {
			p, err := st.QuerySpans(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got += int64(len(p.Spans))
			if p.NextCursor == "" {
				break
			}
			q.Cursor = p.NextCursor
		}
		if page.TotalResults != want || got != want {
			t.Errorf("%s %s %q %q: total %d, %d spans paged; looking up each span's set: %d", filter.Field, filter.Operator,
				filter.Value, filter.Values, page.TotalResults, got, want)
		}
	}
}
