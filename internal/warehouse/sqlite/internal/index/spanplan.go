package index

import (
	"fmt"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Access is how a span read finds the spans of a page. Each reads what
// the page needs, not what the query matches, where the data allows.
type Access int

const (
	// TimeIndex walks the time index in (timestamp, seq) order: a
	// time-sorted page reads its spans and those the filters reject on
	// the way. For other sort keys it reads every span of the range and
	// sorts them (small ranges).
	TimeIndex Access = iota
	// HourWalk reads one equality filter's postings hour by hour in time
	// order and stops once the page is full (time-sorted pages of a
	// selective filter).
	HourWalk
	// Candidates reads every span one equality filter's postings list in
	// the range and sorts them (other sort keys, selective filter).
	Candidates
	// SortWalk walks the sort key's index (SortIndexOf) from the cursor
	// on, range and filters checked on the way, and stops once the page
	// is full (other sort keys, large ranges).
	SortWalk
	// NameMerge reads each hour of the range in (span_name, seq) order,
	// each only as far as it can still enter the page, and merges them
	// (pages sorted by span name without filters, ranges of hours).
	NameMerge
	// Text reads the spans of a full-text search's matches (few) and
	// sorts them.
	Text
)

// String names the access.
func (a Access) String() string {
	switch a {
	case TimeIndex:
		return "time-index"
	case HourWalk:
		return "hour-walk"
	case Candidates:
		return "candidates"
	case SortWalk:
		return "sort-index"
	case NameMerge:
		return "name-merge"
	case Text:
		return "text"
	}
	return fmt.Sprintf("access(%d)", int(a))
}

// PostingStat is the estimate of one filter's posting lists in a read's
// range: the spans (or points) they list.
type PostingStat struct {
	Name   string // the filter, as printed in plans
	Listed int64
}

// SpanStats are the statistics a span plan is chosen by, read by the
// caller in the page's transaction.
type SpanStats struct {
	// RangeSpans counts the spans of the range (exactly).
	RangeSpans int64
	// Postings estimate the filters the postings answer (in the order of
	// the query's filters, then resolved ones); empty when the postings
	// hold none of the range.
	Postings []PostingStat
	// PostingFrom and PostingTo bound the start times the range's
	// postings can list (PostingTo < PostingFrom: none).
	PostingFrom, PostingTo int64
	// AllSpans counts the spans of the environments (NeedsAllSpans).
	AllSpans int64
	// Earliest and Latest are the first and last span start in the
	// range, HasSpans false when it holds none (NeedsSpanTimes).
	Earliest, Latest int64
	HasSpans         bool
	// MaxCandidates bounds the spans read as candidates.
	MaxCandidates int
}

// NeedsSpanTimes reports whether PlanSpans reads SpanStats.Earliest,
// Latest and HasSpans for q.
func NeedsSpanTimes(q warehouse.SpanQuery) bool {
	return q.SortBy == warehouse.SortSpanName && len(q.Filters) == 0
}

// NeedsAllSpans reports whether PlanSpans reads SpanStats.AllSpans for q.
func NeedsAllSpans(q warehouse.SpanQuery) bool {
	_, ok := sortIndexes[q.SortBy]
	return ok && q.SortBy != warehouse.SortTimestamp && !NeedsSpanTimes(q)
}

// SpanPlan is the planner's choice for one span read.
type SpanPlan struct {
	Access Access
	Sort   warehouse.SortKey
	// RangeSpans counts the spans of the range.
	RangeSpans int64
	// Post is the most selective filter the postings answer, an index of
	// SpanStats.Postings (-1: none); PostName names it, PostSpans
	// estimates the spans its lists hold in the range.
	Post      int
	PostName  string
	PostSpans int64
	// Selectivity estimates the share of the range's spans that match.
	Selectivity float64
	// TextSpans counts a full-text search's matches (PlanText).
	TextSpans int64
	// Cost estimates the chosen access's reads, in index entries.
	Cost float64
	// Why says why the access was chosen.
	Why string
}

// HasPost reports whether the plan estimates by a posting list.
func (p SpanPlan) HasPost() bool { return p.Post >= 0 }

// String prints the plan on one line: access, index, posting list,
// estimates and reason.
func (p SpanPlan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s sort=%s", p.Access, p.Sort)
	if p.Access == SortWalk {
		idx := sortIndexes[p.Sort]
		kind := "exact"
		if idx.Bucket != "" {
			kind = "buckets"
		}
		fmt.Fprintf(&b, " index=%s(%s)", idx.Name, kind)
	}
	fmt.Fprintf(&b, " range=%d", p.RangeSpans)
	if p.HasPost() {
		fmt.Fprintf(&b, " postings=%s(~%d)", p.PostName, p.PostSpans)
	}
	if p.TextSpans > 0 || p.Access == Text {
		fmt.Fprintf(&b, " text=%d", p.TextSpans)
	}
	fmt.Fprintf(&b, " sel=%.3g cost=%.0f: %s", p.Selectivity, p.Cost, p.Why)
	return b.String()
}

// PlanSpans chooses the access of a read of q (its range raised to the
// retention cutoff) by st, the cheapest by the cost model.
func PlanSpans(q warehouse.SpanQuery, st SpanStats) SpanPlan {
	p := SpanPlan{Sort: q.SortBy, RangeSpans: st.RangeSpans, Post: -1}
	for i, e := range st.Postings {
		if p.Post < 0 || e.Listed < p.PostSpans {
			p.Post, p.PostName, p.PostSpans = i, e.Name, e.Listed
		}
	}
	limit := float64(q.Limit + 1)
	inRange := float64(max(p.RangeSpans, 1))
	// The selectivity of the filters, as far as known.
	sel := 1.0
	switch {
	case p.HasPost():
		sel = max(float64(p.PostSpans), 1) / inRange
	case len(q.Filters) > 0:
		sel = unknownSelectivity
	}
	p.Selectivity = min(sel, 1)
	fewCandidates := p.HasPost() && p.PostSpans <= int64(st.MaxCandidates)
	if q.SortBy == warehouse.SortTimestamp {
		p.Cost = limit / sel * CostEntry
		if !p.HasPost() {
			p.Why = "time order, no posting list to walk"
			return p
		}
		// The time index reads about limit / selectivity spans; the walk
		// reads the candidates of the hours it needs, at least one.
		hours := float64(max((st.PostingTo-st.PostingFrom)/HourMs+1, 1))
		walk := max(limit, float64(p.PostSpans)/hours)
		if walk < p.Cost {
			p.Access, p.Cost = HourWalk, walk
			p.Why = fmt.Sprintf("the postings' hours read fewer entries than the time index (%.0f)", limit/sel)
		} else {
			p.Why = fmt.Sprintf("the time index reads no more than the postings' hours (%.0f)", walk)
		}
		return p
	}
	if NeedsSpanTimes(q) {
		// The time index's entries of the range, sorted, or the top of
		// each hour's entries by name, merged (a seek per hour).
		p.Cost = inRange * CostEntry
		hours := 0.0
		if st.HasSpans {
			hours = float64(st.Latest/HourMs - st.Earliest/HourMs + 1)
		}
		if st.HasSpans && hours*(limit+CostRow) < p.Cost {
			p.Access, p.Cost = NameMerge, hours*(limit+CostRow)
			p.Why = fmt.Sprintf("the tops of %.0f hours cost less than sorting the range", hours)
		} else {
			p.Why = "sorting the range costs less than the tops of its hours"
		}
		return p
	}
	idx, indexed := sortIndexes[q.SortBy]
	if !indexed {
		// No index of its own: the range on the time index.
		p.Cost = inRange * CostRow
		p.Why = "no sort index: the range sorted"
		if fewCandidates && float64(p.PostSpans)*CostSpan < p.Cost {
			p.Access, p.Cost = Candidates, float64(p.PostSpans)*CostSpan
			p.Why = "no sort index: the candidates cost less than the range"
		}
		return p
	}
	perRow := CostRow
	if len(q.Filters) > 0 {
		perRow = CostSpan
	}
	p.Cost = inRange * perRow // every span of the range, sorted
	p.Why = "the range sorted costs less than the sort index"
	// The sort index reads limit / (share of the range × selectivity)
	// entries, and the spans of those in range to check the filters.
	share := inRange / float64(max(st.AllSpans, 1))
	walk := limit / (share * sel) * CostEntry
	if idx.Bucket != "" {
		// A bucketed index is read a bucket at a time, the range's hours
		// of it: a share of the range's entries at least.
		walk = max(walk, inRange/bucketShare*CostEntry)
	} else {
		// An exact index holds each value's entries in time order: a
		// range within the time the first value spans is reached after
		// the entries before it, up to a value's share of all.
		walk = max(walk, float64(st.AllSpans)/bucketShare*(1-share)*CostEntry)
	}
	if len(q.Filters) > 0 {
		walk += limit / sel * CostSpan
	}
	if walk < p.Cost {
		p.Access, p.Cost = SortWalk, walk
		p.Why = "the sort index reaches a page sooner than sorting the range"
	}
	if fewCandidates && float64(p.PostSpans)*CostSpan < p.Cost {
		p.Access, p.Cost = Candidates, float64(p.PostSpans)*CostSpan
		p.Why = "the candidates cost less than the sort index and the range"
	}
	return p
}

// PlanText adds a full-text search of matches spans (at most
// maxCandidates read as candidates) to p: few reports that its matches
// are read as candidates (Text), else the search is a condition on the
// access p chose, which it may change (a walk of hours or names reads no
// search).
func PlanText(p SpanPlan, q warehouse.SpanQuery, matches int64, maxCandidates int) (_ SpanPlan, few bool) {
	p.TextSpans = matches
	p.Selectivity = min(float64(max(matches, 1))/float64(max(p.RangeSpans, 1)), p.Selectivity)
	// Few matches are read as candidates (a row each), unless the page is
	// time-sorted and the time index reaches a page of them sooner (its
	// entries of limit / share of the range).
	few = matches <= int64(maxCandidates)
	if few && q.SortBy == warehouse.SortTimestamp && p.Access == TimeIndex {
		walk := float64(q.Limit+1) * float64(max(p.RangeSpans, 1)) / float64(max(matches, 1)) * CostEntry
		few = float64(matches)*CostSpan < walk
	}
	if few {
		p.Access, p.Cost = Text, float64(matches)*CostSpan
		p.Why = "few search matches, read as candidates"
		return p, true
	}
	switch p.Access {
	case HourWalk: // one statement a window
		p.Access = TimeIndex
		p.Why = "search: no walk of hours"
		if p.HasPost() && p.PostSpans <= int64(maxCandidates) {
			p.Access = Candidates
			p.Why = "search: the candidates instead of a walk of hours"
		}
	case NameMerge: // reads no filter
		p.Access = TimeIndex
		p.Why = "search: no merge of names"
	}
	return p, false
}

// CountTextByMatches reports whether a search's total is counted on its
// matches rather than on the range's time index.
func (p SpanPlan) CountTextByMatches() bool {
	return p.Access == Text || p.TextSpans*CostSpan < p.RangeSpans*CostEntry
}

// CountByCandidates reports whether a total that the postings cannot
// give is counted on the post's candidates rather than the time index.
func (p SpanPlan) CountByCandidates() bool {
	return p.HasPost() && float64(p.PostSpans)*CostSpan < float64(p.RangeSpans)*CostRow
}
