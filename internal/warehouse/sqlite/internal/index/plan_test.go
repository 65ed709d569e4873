package index

import (
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

const day = 24 * HourMs

// spanQuery is a query of one environment over a day, a page of 50.
func spanQuery(sort warehouse.SortKey, filters ...warehouse.Filter) warehouse.SpanQuery {
	return warehouse.SpanQuery{Environments: []string{"prod"}, FromMs: 0, ToMs: day - 1, SortBy: sort, Desc: true,
		Filters: filters, Limit: 50}
}

func equals(field, value string) warehouse.Filter {
	return warehouse.Filter{Field: field, Operator: warehouse.OpEquals, Value: value}
}

// TestSpanPlans prints the plans of representative span reads on the
// statistics of a 1 000 000-span store whose day holds 100 000 spans.
func TestSpanPlans(t *testing.T) {
	stats := func(postings ...PostingStat) SpanStats {
		return SpanStats{RangeSpans: 100_000, Postings: postings, PostingFrom: 0, PostingTo: day - 1,
			AllSpans: 1_000_000, MaxCandidates: DefaultMaxCandidates}
	}
	rare := PostingStat{Name: `"user"=["u-17"]`, Listed: 40}
	common := PostingStat{Name: `"\x00response_model"=["gpt-4o"]`, Listed: 60_000}
	for _, c := range []struct {
		name string
		q    warehouse.SpanQuery
		st   SpanStats
		want string
	}{
		{"time range only", spanQuery(warehouse.SortTimestamp), stats(),
			"time-index sort=timestamp range=100000 sel=1 cost=51: time order, no posting list to walk"},
		{"rare value, time order", spanQuery(warehouse.SortTimestamp, equals("attributes.user", "u-17")), stats(rare),
			`hour-walk sort=timestamp range=100000 postings="user"=["u-17"](~40) sel=0.0004 cost=51: ` +
				"the postings' hours read fewer entries than the time index (127500)"},
		{"common value, time order", spanQuery(warehouse.SortTimestamp, equals("response_model", "gpt-4o")), stats(common),
			`time-index sort=timestamp range=100000 postings="\x00response_model"=["gpt-4o"](~60000) sel=0.6 cost=85: ` +
				"the time index reads no more than the postings' hours (2500)"},
		{"the rarer of two filters", spanQuery(warehouse.SortTimestamp, equals("response_model", "gpt-4o"),
			equals("attributes.user", "u-17")), stats(common, rare),
			`hour-walk sort=timestamp range=100000 postings="user"=["u-17"](~40) sel=0.0004 cost=51: ` +
				"the postings' hours read fewer entries than the time index (127500)"},
		{"sort by duration", spanQuery(warehouse.SortDuration), stats(),
			"sort-index sort=duration_ms index=spans_env_duration(buckets) range=100000 sel=1 cost=12500: " +
				"the sort index reaches a page sooner than sorting the range"},
		{"sort by duration, rare value", spanQuery(warehouse.SortDuration, equals("attributes.user", "u-17")), stats(rare),
			`candidates sort=duration_ms range=100000 postings="user"=["u-17"](~40) sel=0.0004 cost=1200: ` +
				"the candidates cost less than the sort index and the range"},
		{"sort by duration, unindexed filter", spanQuery(warehouse.SortDuration,
			warehouse.Filter{Field: "attributes.prompt", Operator: warehouse.OpContains, Value: "refund"}), stats(),
			"sort-index sort=duration_ms index=spans_env_duration(buckets) range=100000 sel=0.2 cost=20150: " +
				"the sort index reaches a page sooner than sorting the range"},
		{"sort by workflow name", spanQuery(warehouse.SortWorkflowName), stats(),
			"sort-index sort=svc_workflow_name index=spans_env_workflow(exact) range=100000 sel=1 cost=112500: " +
				"the sort index reaches a page sooner than sorting the range"},
		{"sort by span name, a day", spanQuery(warehouse.SortSpanName), func() SpanStats {
			st := stats()
			st.Earliest, st.Latest, st.HasSpans = 0, day-1, true
			return st
		}(), "name-merge sort=span_name range=100000 sel=1 cost=1464: the tops of 24 hours cost less than sorting the range"},
		{"sort by status, no index", spanQuery(warehouse.SortKey("status_code")), stats(),
			"time-index sort=status_code range=100000 sel=1 cost=1000000: no sort index: the range sorted"},
	} {
		if got := PlanSpans(c.q, c.st).String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestTextPlans: a search of few matches reads them; of many, it is a
// condition on the planner's access, which a walk of hours cannot take.
func TestTextPlans(t *testing.T) {
	st := SpanStats{RangeSpans: 100_000, Postings: []PostingStat{{Name: `"user"=["u-17"]`, Listed: 40}},
		PostingTo: day - 1, MaxCandidates: DefaultMaxCandidates}
	q := spanQuery(warehouse.SortTimestamp, equals("attributes.user", "u-17"))
	for _, c := range []struct {
		matches int64
		want    string
	}{
		{12, `text sort=timestamp range=100000 postings="user"=["u-17"](~40) text=12 sel=0.00012 cost=360: ` +
			"few search matches, read as candidates"},
		{50_000, `candidates sort=timestamp range=100000 postings="user"=["u-17"](~40) text=50000 sel=0.0004 cost=51: ` +
			"search: the candidates instead of a walk of hours"},
	} {
		p, _ := PlanText(PlanSpans(q, st), q, c.matches, DefaultMaxCandidates)
		if got := p.String(); got != c.want {
			t.Errorf("%d matches:\n got %s\nwant %s", c.matches, got, c.want)
		}
	}
}

// TestPointPlans prints the plans of representative metric reads.
func TestPointPlans(t *testing.T) {
	label := func(key, value string) warehouse.Filter {
		return warehouse.Filter{Field: "labels." + key, Operator: warehouse.OpEquals, Value: value}
	}
	q := func(sort string, filters ...warehouse.Filter) warehouse.MetricQuery {
		return warehouse.MetricQuery{Environments: []string{"prod"}, FromMs: 0, ToMs: day - 1, SortBy: sort,
			Filters: filters, Limit: 50}
	}
	withSource := q("", label("route", "/chat"))
	withSource.MetricSource = "gen_ai"
	named := q(warehouse.MetricSortNumericValue, label("route", "/chat"))
	named.MetricName = "gen_ai.client.token.usage"
	for _, c := range []struct {
		name string
		q    warehouse.MetricQuery
		st   PointStats
		want string
	}{
		{"time range only", q(""), PointStats{}, "time-order count=point_counts: SQLite's order"},
		{"sort by value over a day", q(warehouse.MetricSortNumericValue), PointStats{ValueHours: 24},
			"value-merge count=point_counts: sorted by value, 24 hours merged"},
		{"sort by value within two hours", q(warehouse.MetricSortNumericValue), PointStats{ValueHours: 2},
			"time-order count=point_counts: SQLite's order"},
		{"sort by name", q(warehouse.MetricSortMetricName), PointStats{},
			"name-index count=point_counts: sorted by name: each name's index"},
		{"rare label, a source", withSource, PointStats{Labels: []PostingStat{{Name: `"route"=["/chat"]`, Listed: 300}},
			LabelRuns: true, RangePoints: 1_000_000},
			`label-candidates postings="route"=["/chat"](~300) count=point_counts["route" in ["/chat"]]: few label candidates`},
		{"common label, counted", q("", label("route", "/chat")), PointStats{Labels: []PostingStat{{Name: `"route"=["/chat"]`,
			Listed: 15_000}}, LabelRuns: true, RangePoints: 1_000_000},
			`time-order count=point_counts["route" in ["/chat"]]: reading in order costs less than 15000 candidates`},
		{"label with a name, sorted by value", named, PointStats{Labels: []PostingStat{{Name: `"route"=["/chat"]`,
			Listed: 15_000}}, LabelRuns: true},
			`label-candidates postings="route"=["/chat"](~15000) count=matches: few label candidates`},
		{"label of too many points", q("", label("route", "/chat")), PointStats{Labels: []PostingStat{{Name: `"route"=["/chat"]`,
			Listed: 90_000}}, LabelRuns: true},
			`time-order count=point_counts["route" in ["/chat"]]: label postings name over 20000 points`},
		{"no posting run in range", q("", label("route", "/chat")), PointStats{Labels: []PostingStat{{Name: `"route"=["/chat"]`}},
			RangePoints: 10},
			`label-candidates postings="route"=["/chat"](~0) count=point_counts["route" in ["/chat"]]: few label candidates`},
	} {
		if got := PlanPoints(c.q, int64(c.q.Limit), c.st).String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestNeeds: the planners ask only for the statistics their choice reads.
func TestNeeds(t *testing.T) {
	if !NeedsSpanTimes(spanQuery(warehouse.SortSpanName)) || NeedsSpanTimes(spanQuery(warehouse.SortSpanName, equals("span_name", "x"))) {
		t.Error("NeedsSpanTimes: span name without filters only")
	}
	if !NeedsAllSpans(spanQuery(warehouse.SortDuration)) || NeedsAllSpans(spanQuery(warehouse.SortTimestamp)) {
		t.Error("NeedsAllSpans: sort keys with an index only")
	}
	q := warehouse.MetricQuery{Environments: []string{"prod"}, SortBy: warehouse.MetricSortNumericValue, Limit: 50,
		Filters: []warehouse.Filter{{Field: "labels.route", Operator: warehouse.OpEquals, Value: "/chat"}}}
	few := PointStats{Labels: []PostingStat{{Listed: 3}}, LabelRuns: true, RangePoints: 1_000_000}
	if !NeedsRangePoints(q, few) || NeedsValueHours(q, 50, few) {
		t.Error("few candidates: the range's points, no hours")
	}
	if !NeedsValueHours(q, 50, PointStats{}) || NeedsValueHours(q, MaxMergedRank+1, PointStats{}) {
		t.Error("NeedsValueHours: sorted by value, not too deep")
	}
}
