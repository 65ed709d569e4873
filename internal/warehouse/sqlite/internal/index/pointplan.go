package index

import (
	"fmt"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// MaxMergedRank bounds offset + limit of a page merged from hours; deeper
// pages are sorted by SQLite.
const MaxMergedRank = 5000

// MaxLabelCandidates bounds the points a label filter's postings may name
// for its query to read them (each a row read and checked, ~2–3 µs);
// more leave the query to the other paths.
const MaxLabelCandidates = 20_000

// PointAccess is how a metric read finds the points of a page.
type PointAccess int

const (
	// PointTimeOrder lets SQLite read the range (or the name's points)
	// and sort them.
	PointTimeOrder PointAccess = iota
	// PointCandidates reads the points a label filter's postings name.
	PointCandidates
	// PointValueMerge reads each hour of the range in value order, as
	// far as it can still enter the page, and merges them.
	PointValueMerge
	// PointNameIndex takes the range's names from point_counts and each
	// name's top by sequence number from its index.
	PointNameIndex
)

// String names the access.
func (a PointAccess) String() string {
	switch a {
	case PointTimeOrder:
		return "time-order"
	case PointCandidates:
		return "label-candidates"
	case PointValueMerge:
		return "value-merge"
	case PointNameIndex:
		return "name-index"
	}
	return fmt.Sprintf("point-access(%d)", int(a))
}

// PointStats are the statistics a point plan is chosen by, read by the
// caller in the page's transaction.
type PointStats struct {
	// Labels estimate the postings of the query's label equalities and
	// in-lists in the range (less those of keys point_counts leaves
	// out), in order; a caller may stop at the first of 0 points.
	Labels []PostingStat
	// LabelRuns reports that some posting run reaches the range.
	LabelRuns bool
	// RangePoints counts the range's points without filters
	// (NeedsRangePoints).
	RangePoints int64
	// ValueHours counts the hours of the range that hold points, summed
	// over the environments (NeedsValueHours).
	ValueHours int64
}

// PointPlan is the planner's choice for one metric read.
type PointPlan struct {
	Access PointAccess
	// Label is the label filter whose candidates are read, an index of
	// PointStats.Labels (-1: none); Candidates estimates their points.
	Label      int
	LabelName  string
	Candidates int64
	// Count is how point_counts gives total_results (Counted false: it
	// cannot, the matches are counted).
	Count   CountPlan
	Counted bool
	Why     string
}

// String prints the plan on one line: access, candidates, count and
// reason.
func (p PointPlan) String() string {
	var b strings.Builder
	b.WriteString(p.Access.String())
	if p.Label >= 0 {
		fmt.Fprintf(&b, " postings=%s(~%d)", p.LabelName, p.Candidates)
	}
	switch {
	case !p.Counted:
		b.WriteString(" count=matches")
	case p.Count.Key == "":
		b.WriteString(" count=point_counts")
	default:
		fmt.Fprintf(&b, " count=point_counts[%q", p.Count.Key)
		if p.Count.Values != nil {
			fmt.Fprintf(&b, " in %q", p.Count.Values)
		}
		if p.Count.Negate {
			b.WriteString(" negated")
		}
		b.WriteString("]")
	}
	b.WriteString(": " + p.Why)
	return b.String()
}

// labelChoice returns the label filter of fewest candidates within
// MaxLabelCandidates (-1: none) and their estimate; PlanPoints still
// weighs them against reading in order.
func labelChoice(st PointStats) (best int, fewest int64) {
	best, fewest = -1, int64(MaxLabelCandidates)
	if len(st.Labels) > 0 && !st.LabelRuns { // no list reaches the range: no candidate
		return 0, 0
	}
	for i, l := range st.Labels {
		if fewest == 0 {
			break
		}
		if l.Listed <= fewest {
			best, fewest = i, l.Listed
		}
	}
	return best, fewest
}

// NeedsRangePoints reports whether PlanPoints reads st.RangePoints for q
// given the label estimates of st.
func NeedsRangePoints(q warehouse.MetricQuery, st PointStats) bool {
	best, _ := labelChoice(st)
	_, counted := PlanCount(q)
	return best >= 0 && counted
}

// NeedsValueHours reports whether PlanPoints reads st.ValueHours for q
// and a page ending at rank, given st's label estimates and RangePoints.
func NeedsValueHours(q warehouse.MetricQuery, rank int64, st PointStats) bool {
	col, _ := q.SortOrder()
	if col != warehouse.MetricSortNumericValue || rank > MaxMergedRank || (q.MetricName != "" && len(q.Filters) > 0) {
		return false
	}
	return planLabel(q, rank, st).Access != PointCandidates
}

// PlanPoints chooses the access of a metric read of q whose page ends at
// rank (offset + limit), by st:
//
//   - a label equality or in-list whose postings name few points
//     (MaxLabelCandidates) reads those, unless point_counts gives the
//     total and a page read in order costs less: it stops after about
//     rank / s points, s = n / the range's points, the label's share,
//     each an index entry and a row, about twice a candidate's cost
//     (measured: 1 000 000 points, a 10 % label over a day, first page
//     33 ms in value order against 60 ms from its 14 300 candidates; at
//     offset 1 000, 104 against 67), so the candidates win when
//     n² < 2 · rank · points;
//   - a page sorted by numeric value, not too deep, over three hours at
//     least, merges the hours (not with a name and filters: the name's
//     own index then reads fewer points);
//   - a page sorted by metric name without filters or source reads the
//     names' indexes;
//   - any other reads in SQLite's own order.
func PlanPoints(q warehouse.MetricQuery, rank int64, st PointStats) PointPlan {
	p := planLabel(q, rank, st)
	if p.Access == PointCandidates {
		return p
	}
	col, _ := q.SortOrder()
	switch {
	case NeedsValueHours(q, rank, st) && st.ValueHours >= 3:
		p.Access, p.Why = PointValueMerge, fmt.Sprintf("sorted by value, %d hours merged", st.ValueHours)
	case col == warehouse.MetricSortMetricName && len(q.Filters) == 0 && q.MetricSource == "":
		p.Access, p.Why = PointNameIndex, "sorted by name: each name's index"
	case p.Why == "":
		p.Why = "SQLite's order"
	}
	return p
}

// planLabel is PlanPoints' choice of label candidates.
func planLabel(q warehouse.MetricQuery, rank int64, st PointStats) PointPlan {
	p := PointPlan{Label: -1}
	p.Count, p.Counted = PlanCount(q)
	best, fewest := labelChoice(st)
	switch {
	case len(st.Labels) == 0:
		return p
	case best < 0:
		p.Why = fmt.Sprintf("label postings name over %d points", MaxLabelCandidates)
		return p
	case p.Counted && float64(fewest)*float64(fewest) >= 2*float64(rank)*float64(st.RangePoints):
		p.Why = fmt.Sprintf("reading in order costs less than %d candidates", fewest)
		return p
	}
	p.Access, p.Label, p.LabelName, p.Candidates = PointCandidates, best, st.Labels[best].Name, fewest
	p.Why = "few label candidates"
	return p
}
