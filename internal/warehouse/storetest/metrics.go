package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

func ptr[T any](v T) *T { return &v }

func point(env, name string, offsetMs int64) warehouse.MetricPoint {
	return warehouse.MetricPoint{Environment: env, OrganizationID: "org-" + env, MetricName: name,
		Source: warehouse.SourceEvaluator, EventTime: base + offsetMs}
}

// metricFixture: p1..p5 in "prod", p6 in "other". SpanID names the point.
func metricFixture() []warehouse.MetricPoint {
	p1 := point("prod", "toxicity-detector.is_safe", 1)
	p1.EnumValue, p1.TraceID, p1.SpanID = ptr("safe"), "t1", "p1"
	p1.Labels = map[string]string{"agent_name": "a1", "trace_id": "t1", "ключ": "значение ✓"}
	p1.Attributes = map[string]string{"user.id": "alice", injectionKey: injectionValue}
	p2 := point("prod", "answer-correctness.correctness_score", 2)
	p2.NumericValue, p2.SpanID = ptr(0.8), "p2"
	p2.Labels = map[string]string{"agent_name": "a2"}
	p2.Attributes = map[string]string{"user.id": "bob"}
	p3 := point("prod", "secrets-detector.has_secret", 3)
	p3.BoolValue, p3.SpanID = ptr(true), "p3"
	p3.Labels = map[string]string{"score": "5"}
	p4 := point("prod", "secrets-detector.has_secret", 4)
	p4.BoolValue, p4.SpanID, p4.Source = ptr(false), "p4", warehouse.SourceOTLP
	p4.Labels = map[string]string{"score": "12"}
	p5 := point("prod", "answer-correctness.correctness_score", 5)
	p5.NumericValue, p5.SpanID = ptr(0.3), "p5"
	p5.Labels = map[string]string{"agent_name": "a1"}
	p6 := p1
	p6.Environment, p6.OrganizationID, p6.SpanID = "other", "org-other", "p6"
	return []warehouse.MetricPoint{p1, p2, p3, p4, p5, p6}
}

func normalizePoint(p warehouse.MetricPoint) warehouse.MetricPoint {
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	if p.Attributes == nil {
		p.Attributes = map[string]string{}
	}
	return p
}

func writePoints(t *testing.T, st warehouse.Store, pts ...warehouse.MetricPoint) {
	t.Helper()
	if err := st.WriteMetricPoints(context.Background(), pts); err != nil {
		t.Fatalf("WriteMetricPoints: %v", err)
	}
}

func queryMetrics(t *testing.T, st warehouse.Store, q warehouse.MetricQuery) warehouse.MetricPage {
	t.Helper()
	page, err := st.QueryMetrics(context.Background(), q)
	if err != nil {
		t.Fatalf("QueryMetrics(%+v): %v", q, err)
	}
	return page
}

// flatten returns the points of a page in order.
func flatten(page warehouse.MetricPage) []warehouse.MetricPoint {
	var out []warehouse.MetricPoint
	for _, g := range page.Groups {
		out = append(out, g.Points...)
	}
	return out
}

// allMetricPages follows the cursors of q and returns every point in
// page order (within a page, group order).
func allMetricPages(t *testing.T, st warehouse.Store, q warehouse.MetricQuery) []warehouse.MetricPoint {
	t.Helper()
	var out []warehouse.MetricPoint
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("metric pagination does not end")
		}
		page := queryMetrics(t, st, q)
		out = append(out, flatten(page)...)
		if page.NextCursor == "" {
			return out
		}
		var next int64
		if _, err := fmt.Sscan(page.NextCursor, &next); err != nil {
			t.Fatalf("next_cursor %q is not an integer", page.NextCursor)
		}
		q.Cursor = next
	}
}

func pointIDs(pts []warehouse.MetricPoint) []string {
	out := make([]string, len(pts))
	for i, p := range pts {
		out[i] = p.SpanID
	}
	return out
}

func testMetricRoundTrip(t *testing.T, open Opener) {
	st := openStore(t, open)
	fixture := metricFixture()
	writePoints(t, st, fixture...)
	got := allMetricPages(t, st, warehouse.MetricQuery{Environments: []string{"prod"}})
	byID := map[string]warehouse.MetricPoint{}
	for _, p := range got {
		byID[p.SpanID] = p
	}
	for _, want := range fixture[:5] {
		if g, ok := byID[want.SpanID]; !ok || !reflect.DeepEqual(g, normalizePoint(want)) {
			t.Errorf("point %s round trip:\n got %+v\nwant %+v", want.SpanID, g, normalizePoint(want))
		}
	}
	if len(got) != 5 {
		t.Errorf("prod has %d points, want 5", len(got))
	}
	if err := st.WriteMetricPoints(context.Background(), nil); err != nil {
		t.Errorf("WriteMetricPoints(nil) = %v", err)
	}
}

func testMetricFilters(t *testing.T, open Opener) {
	st := openStore(t, open)
	writePoints(t, st, metricFixture()...)
	type F = warehouse.Filter
	for _, tc := range []struct {
		name string
		q    warehouse.MetricQuery
		want []string // ascending event time
	}{
		{"bool true", warehouse.MetricQuery{Filters: []F{{Field: "bool_value", Operator: warehouse.OpEquals, Value: "true", ValueType: warehouse.TypeBoolean}}}, []string{"p3"}},
		{"bool false as string", warehouse.MetricQuery{Filters: []F{{Field: "bool_value", Operator: warehouse.OpEquals, Value: "false"}}}, []string{"p4"}},
		{"numeric greater_than", warehouse.MetricQuery{Filters: []F{{Field: "numeric_value", Operator: warehouse.OpGreaterThan, Value: "0.5"}}}, []string{"p2"}},
		{"numeric less_than_or_equal", warehouse.MetricQuery{Filters: []F{{Field: "numeric_value", Operator: warehouse.OpLessThanOrEqual, Value: "0.8", ValueType: warehouse.TypeNumber}}}, []string{"p2", "p5"}},
		{"enum equals", warehouse.MetricQuery{Filters: []F{{Field: "enum_value", Operator: warehouse.OpEquals, Value: "safe"}}}, []string{"p1"}},
		{"enum exists", warehouse.MetricQuery{Filters: []F{{Field: "enum_value", Operator: warehouse.OpExists}}}, []string{"p1"}},
		{"numeric not_exists", warehouse.MetricQuery{Filters: []F{{Field: "numeric_value", Operator: warehouse.OpNotExists}}}, []string{"p1", "p3", "p4"}},
		{"label equals", warehouse.MetricQuery{Filters: []F{{Field: "labels.agent_name", Operator: warehouse.OpEquals, Value: "a1"}}}, []string{"p1", "p5"}},
		{"label not_equals includes missing", warehouse.MetricQuery{Filters: []F{{Field: "labels.agent_name", Operator: warehouse.OpNotEquals, Value: "a1"}}}, []string{"p2", "p3", "p4"}},
		{"label number greater_than", warehouse.MetricQuery{Filters: []F{{Field: "labels.score", Operator: warehouse.OpGreaterThan, Value: "10", ValueType: warehouse.TypeNumber}}}, []string{"p4"}},
		{"label number equals", warehouse.MetricQuery{Filters: []F{{Field: "labels.score", Operator: warehouse.OpEquals, Value: "5.0", ValueType: warehouse.TypeNumber}}}, []string{"p3"}},
		{"label unicode", warehouse.MetricQuery{Filters: []F{{Field: "labels.ключ", Operator: warehouse.OpContains, Value: "✓"}}}, []string{"p1"}},
		{"attribute in", warehouse.MetricQuery{Filters: []F{{Field: "attributes.user.id", Operator: warehouse.OpIn, Values: []string{"alice", "bob"}}}}, []string{"p1", "p2"}},
		{"attribute not_in", warehouse.MetricQuery{Filters: []F{{Field: "attributes.user.id", Operator: warehouse.OpNotIn, Values: []string{"alice"}}}}, []string{"p2", "p3", "p4", "p5"}},
		{"attribute not_contains", warehouse.MetricQuery{Filters: []F{{Field: "attributes.user.id", Operator: warehouse.OpNotContains, Value: "li"}}}, []string{"p2", "p3", "p4", "p5"}},
		{"injection attribute", warehouse.MetricQuery{Filters: []F{{Field: "attributes." + injectionKey, Operator: warehouse.OpEquals, Value: injectionValue}}}, []string{"p1"}},
		{"metric_name starts_with", warehouse.MetricQuery{Filters: []F{{Field: "metric_name", Operator: warehouse.OpStartsWith, Value: "answer"}}}, []string{"p2", "p5"}},
		{"trace_id column", warehouse.MetricQuery{Filters: []F{{Field: "trace_id", Operator: warehouse.OpEquals, Value: "t1"}}}, []string{"p1"}},
		{"span_id column", warehouse.MetricQuery{Filters: []F{{Field: "span_id", Operator: warehouse.OpIn, Values: []string{"p3", "p6"}}}}, []string{"p3"}},
		{"or", warehouse.MetricQuery{Or: true, Filters: []F{{Field: "labels.agent_name", Operator: warehouse.OpEquals, Value: "a2"}, {Field: "bool_value", Operator: warehouse.OpEquals, Value: "true"}}}, []string{"p2", "p3"}},
		{"and", warehouse.MetricQuery{Filters: []F{{Field: "labels.agent_name", Operator: warehouse.OpEquals, Value: "a1"}, {Field: "numeric_value", Operator: warehouse.OpExists}}}, []string{"p5"}},
		{"metric name", warehouse.MetricQuery{MetricName: "secrets-detector.has_secret"}, []string{"p3", "p4"}},
		{"metric source", warehouse.MetricQuery{MetricSource: warehouse.SourceOTLP}, []string{"p4"}},
		{"time range", warehouse.MetricQuery{FromMs: base + 2, ToMs: base + 4}, []string{"p2", "p3", "p4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Environments, q.Limit = []string{"prod"}, 2
			got := pointIDs(allMetricPages(t, st, q))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func testMetricSortAndGroups(t *testing.T, open Opener) {
	st := openStore(t, open)
	writePoints(t, st, metricFixture()...)
	prod := []string{"prod"}
	names := map[string]string{}
	for _, p := range metricFixture() {
		names[p.SpanID] = p.MetricName
	}
	for _, tc := range []struct {
		name string
		q    warehouse.MetricQuery
		want []string
	}{
		{"event_time desc", warehouse.MetricQuery{Desc: true}, []string{"p5", "p4", "p3", "p2", "p1"}},
		{"event_time asc", warehouse.MetricQuery{}, []string{"p1", "p2", "p3", "p4", "p5"}},
		{"numeric_value asc", warehouse.MetricQuery{SortBy: warehouse.MetricSortNumericValue,
			Filters: []warehouse.Filter{{Field: "numeric_value", Operator: warehouse.OpExists}}}, []string{"p5", "p2"}},
		{"numeric_value desc", warehouse.MetricQuery{SortBy: warehouse.MetricSortNumericValue, Desc: true,
			Filters: []warehouse.Filter{{Field: "numeric_value", Operator: warehouse.OpExists}}}, []string{"p2", "p5"}},
		{"metric_name asc, ties by time", warehouse.MetricQuery{SortBy: warehouse.MetricSortMetricName}, []string{"p2", "p5", "p3", "p4", "p1"}},
		{"metric_name desc, ties by time", warehouse.MetricQuery{SortBy: warehouse.MetricSortMetricName, Desc: true}, []string{"p1", "p4", "p3", "p5", "p2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Environments = prod
			page := queryMetrics(t, st, q)
			want := grouped(tc.want, names)
			if got := pointIDs(flatten(page)); !slices.Equal(got, want) {
				t.Errorf("got %v, want %v (sorted %v, grouped by name)", got, want, tc.want)
			}
		})
	}
	// Groups: one per name, in order of first appearance, with the counts.
	page := queryMetrics(t, st, warehouse.MetricQuery{Environments: prod, Desc: true})
	var groupNames []string
	for _, g := range page.Groups {
		groupNames = append(groupNames, g.MetricName)
		if g.OrganizationID != "org-prod" {
			t.Errorf("group %s: organization %q, want org-prod", g.MetricName, g.OrganizationID)
		}
	}
	wantNames := []string{"answer-correctness.correctness_score", "secrets-detector.has_secret", "toxicity-detector.is_safe"}
	if !slices.Equal(groupNames, wantNames) {
		t.Errorf("groups %v, want %v", groupNames, wantNames)
	}
	if page.TotalPoints != 5 || page.TotalResults != 5 || page.NextCursor != "" {
		t.Errorf("total_points %d, total_results %d, next_cursor %q; want 5, 5, \"\"", page.TotalPoints, page.TotalResults, page.NextCursor)
	}
}

// grouped reorders point ids (sorted) into page order: one group per
// metric name in order of first appearance, each group in sorted order.
func grouped(sorted []string, names map[string]string) []string {
	var order []string
	byName := map[string][]string{}
	for _, id := range sorted {
		n := names[id]
		if _, ok := byName[n]; !ok {
			order = append(order, n)
		}
		byName[n] = append(byName[n], id)
	}
	var out []string
	for _, n := range order {
		out = append(out, byName[n]...)
	}
	return out
}

func testMetricPaging(t *testing.T, open Opener) {
	var pts []warehouse.MetricPoint
	for i := range 25 {
		p := point("pg", fmt.Sprintf("m%d", i%3), int64(i%7))
		p.SpanID, p.NumericValue = fmt.Sprintf("q%02d", i), ptr(float64(i%5))
		pts = append(pts, p)
	}
	for _, sortBy := range []string{warehouse.MetricSortEventTime, warehouse.MetricSortMetricName, warehouse.MetricSortNumericValue} {
		t.Run(sortBy, func(t *testing.T) {
			st := openStore(t, open)
			writePoints(t, st, pts...)
			q := warehouse.MetricQuery{Environments: []string{"pg"}, SortBy: sortBy, Desc: true, Limit: 4}
			seen := map[string]int{}
			for page := 0; ; page++ {
				if page > 20 {
					t.Fatal("pagination does not end")
				}
				p := queryMetrics(t, st, q)
				if p.TotalResults != 25 {
					t.Fatalf("page %d: total_results %d, want 25", page, p.TotalResults)
				}
				if n := len(flatten(p)); int64(n) != p.TotalPoints || (p.NextCursor != "" && n != 4) {
					t.Fatalf("page %d: %d points, total_points %d", page, n, p.TotalPoints)
				}
				for _, pt := range flatten(p) {
					seen[pt.SpanID]++
				}
				late := point("pg", "m0", 3) // sorts into the middle
				late.SpanID, late.NumericValue = fmt.Sprintf("late-%s-%d", sortBy, page), ptr(2.0)
				writePoints(t, st, late)
				if p.NextCursor == "" {
					break
				}
				var next int64
				if _, err := fmt.Sscan(p.NextCursor, &next); err != nil || next <= 0 {
					t.Fatalf("next_cursor %q is not a positive integer", p.NextCursor)
				}
				q.Cursor = next
			}
			for _, p := range pts {
				if seen[p.SpanID] != 1 {
					t.Errorf("point %s seen %d times, want once", p.SpanID, seen[p.SpanID])
				}
			}
			if len(seen) != 25 {
				t.Errorf("saw %d distinct points, want 25", len(seen))
			}
		})
	}
}

func testMetricTenancyAndBadInput(t *testing.T, open Opener) {
	st := openStore(t, open)
	writePoints(t, st, metricFixture()...)
	if got := pointIDs(allMetricPages(t, st, warehouse.MetricQuery{Environments: []string{"other"}})); !slices.Equal(got, []string{"p6"}) {
		t.Errorf("other environment: got %v, want [p6]", got)
	}
	if page := queryMetrics(t, st, warehouse.MetricQuery{}); len(page.Groups) != 0 || page.TotalResults != 0 {
		t.Errorf("no environments: got %+v, want an empty page", page)
	}
	for _, tc := range []struct {
		name  string
		q     warehouse.MetricQuery
		field string
	}{
		{"negative cursor", warehouse.MetricQuery{Environments: []string{"prod"}, Cursor: -5}, "cursor"},
		{"cursor with offset 0", warehouse.MetricQuery{Environments: []string{"prod"}, Cursor: 1 << 22}, "cursor"},
		{"limit too large", warehouse.MetricQuery{Environments: []string{"prod"}, Limit: 1001}, "limit"},
		{"bad sort", warehouse.MetricQuery{Environments: []string{"prod"}, SortBy: "colour"}, "sort_by"},
		{"unknown field", warehouse.MetricQuery{Environments: []string{"prod"}, Filters: []warehouse.Filter{{Field: "colour", Operator: warehouse.OpEquals, Value: "x"}}}, "filters[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.QueryMetrics(context.Background(), tc.q)
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) || qe.Field != tc.field {
				t.Fatalf("got %v, want a *QueryError on %s", err, tc.field)
			}
		})
	}
}

// testMetricSourceLabelCounts checks total_results of a label or
// attribute filter together with metric_source (and without) against a
// count of the fixture, on every page of each pagination: points of three
// sources over five hours, the ranges whole hours, part hours and open.
func testMetricSourceLabelCounts(t *testing.T, open Opener) {
	st := openStore(t, open)
	sources := []string{warehouse.SourceEvaluator, warehouse.SourceOTLP, warehouse.SourceAnnotation}
	var pts []warehouse.MetricPoint
	for i := range 150 {
		p := point("src", []string{"tox.score", "pii.pass"}[i%2], int64(i)*2*60_000+int64(i%7)) // 5 hours
		p.SpanID, p.Source, p.NumericValue = fmt.Sprintf("s%03d", i), sources[(i/3)%3], ptr(float64(i%11))
		p.Labels = map[string]string{"workflow_name": fmt.Sprintf("wf-%d", i%4)}
		if i%5 != 0 {
			p.Labels["verdict"] = []string{"pass", "fail"}[i%2]
		}
		p.Attributes = map[string]string{"user.id": fmt.Sprintf("u%d", i%3)}
		pts = append(pts, p)
	}
	writePoints(t, st, pts...)
	type F = warehouse.Filter
	filters := []struct {
		f     F
		match func(p warehouse.MetricPoint) bool
	}{
		{F{Field: "labels.workflow_name", Operator: warehouse.OpEquals, Value: "wf-1"},
			func(p warehouse.MetricPoint) bool { return p.Labels["workflow_name"] == "wf-1" }},
		{F{Field: "labels.workflow_name", Operator: warehouse.OpNotIn, Values: []string{"wf-0", "wf-2"}},
			func(p warehouse.MetricPoint) bool {
				return p.Labels["workflow_name"] != "wf-0" && p.Labels["workflow_name"] != "wf-2"
			}},
		{F{Field: "labels.verdict", Operator: warehouse.OpNotExists},
			func(p warehouse.MetricPoint) bool { _, ok := p.Labels["verdict"]; return !ok }},
		{F{Field: "labels.verdict", Operator: warehouse.OpNotEquals, Value: "fail"},
			func(p warehouse.MetricPoint) bool { return p.Labels["verdict"] != "fail" }},
		{F{Field: "attributes.user.id", Operator: warehouse.OpIn, Values: []string{"u0", "u2"}},
			func(p warehouse.MetricPoint) bool { return p.Attributes["user.id"] != "u1" }},
	}
	const hour = 3_600_000
	ranges := [][2]int64{{base, base + 4*hour - 1}, {base + 20*60_000, base + 4*hour + 7*60_000}, {base + hour, 0}}
	for _, source := range append([]string{""}, sources...) {
		for fi, f := range filters {
			for ri, r := range ranges {
				var want []string
				for _, p := range pts {
					if (source == "" || p.Source == source) && f.match(p) && p.EventTime >= r[0] && (r[1] == 0 || p.EventTime <= r[1]) {
						want = append(want, p.SpanID)
					}
				}
				for _, sortBy := range []string{warehouse.MetricSortEventTime, warehouse.MetricSortNumericValue} {
					q := warehouse.MetricQuery{Environments: []string{"src"}, MetricSource: source, FromMs: r[0], ToMs: r[1],
						Filters: []F{f.f}, SortBy: sortBy, Limit: 7}
					var got []string
					for page := 0; ; page++ {
						if page > 100 {
							t.Fatal("pagination does not end")
						}
						p := queryMetrics(t, st, q)
						if p.TotalResults != int64(len(want)) {
							t.Fatalf("source %q, filter %d, range %d, %s, page %d: total_results %d, want %d",
								source, fi, ri, sortBy, page, p.TotalResults, len(want))
						}
						got = append(got, pointIDs(flatten(p))...)
						if p.NextCursor == "" {
							break
						}
						if _, err := fmt.Sscan(p.NextCursor, &q.Cursor); err != nil {
							t.Fatalf("next_cursor %q is not an integer", p.NextCursor)
						}
					}
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Fatalf("source %q, filter %d, range %d, %s: points %v, want %v", source, fi, ri, sortBy, got, want)
					}
				}
			}
		}
	}
}
