package index

import (
	"math"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// CountPlan is how total_results of a metric query is counted from
// point_counts: Key "" counts every point; Values nil with a key is an
// exists test; Negate takes the result from the total.
type CountPlan struct {
	Key    string
	Values []string
	Negate bool
}

// ReservedLabelKey reports whether a label key starts like the
// point_counts key of an attribute (or with a byte 0): such labels are not
// counted.
func ReservedLabelKey(key string) bool { return key != "" && key[0] <= 1 }

// AttributeCountKey is the point_counts key of a point attribute's rows:
// a byte 1 before the key, which no counted label key starts with.
func AttributeCountKey(key string) string { return "\x01" + key }

// PlanCount returns the CountPlan of q; ok is false when point_counts
// cannot answer it.
func PlanCount(q warehouse.MetricQuery) (CountPlan, bool) {
	switch {
	case len(q.Filters) == 0:
		return CountPlan{}, true
	case len(q.Filters) > 1 || q.MetricName != "":
		// Labels are counted over every name, by source (00030).
		return CountPlan{}, false
	}
	f := q.Filters[0]
	ref := warehouse.ResolveMetricField(f.Field)
	if ref.Key == "" || (f.ValueType != "" && f.ValueType != warehouse.TypeString) {
		return CountPlan{}, false
	}
	var p CountPlan
	switch {
	case ref.Kind == warehouse.KindLabel && !ReservedLabelKey(ref.Key):
		p.Key = ref.Key
	case ref.Kind == warehouse.KindPointAttribute:
		p.Key = AttributeCountKey(ref.Key)
	default:
		return CountPlan{}, false
	}
	switch f.Operator {
	case warehouse.OpEquals, warehouse.OpNotEquals:
		p.Values = []string{f.Value}
	case warehouse.OpIn, warehouse.OpNotIn:
		p.Values = slices.Compact(slices.Sorted(slices.Values(f.Values)))
		if len(p.Values) == 0 {
			return CountPlan{}, false
		}
	case warehouse.OpExists, warehouse.OpNotExists:
	default:
		return CountPlan{}, false
	}
	p.Negate = f.Operator == warehouse.OpNotEquals || f.Operator == warehouse.OpNotIn || f.Operator == warehouse.OpNotExists
	return p, true
}

// WholeHours returns the first and last hour that q's range covers
// whole (the last is unbounded for an open range); ok is false when it
// covers none.
func WholeHours(q warehouse.MetricQuery) (first, last int64, ok bool) {
	first = HourOf(q.FromMs)
	if first*HourMs < q.FromMs {
		first++
	}
	last = int64(math.MaxInt64 / HourMs)
	if q.ToMs != 0 {
		last = HourOf(q.ToMs+1) - 1 // the last hour that ends by ToMs
	}
	return first, last, first <= last
}
