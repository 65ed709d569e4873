package sqlite

import (
	"context"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Full-text search (SpanQuery.Text) reads span_text, the trigram FTS5
// index of migration 00027, one of two ways:
//
//   - few matches (at most maxIndexCandidates spans in the whole index up
//     to the snapshot): the matches are the candidates, read and sorted
//     like an equality filter's postings (accessText);
//   - many: the planner's access for the other conditions, each span
//     checked against the matches on the way: `seq IN (matches)`, which
//     SQLite evaluates once per statement into an ephemeral index (a
//     common word's 78 000 matches of 1M spans: ~55 ms), so that a
//     time-ordered page reads a page's worth of spans. A lookup of the
//     FTS index per span (MATCH with rowid = seq) costs ~1 ms each
//     (measured): never used. Accesses that run one statement per window
//     or bucket (the hour walk, the bucket walk, the name merge) would
//     evaluate the matches again each time: a search reads through one
//     statement instead (candidates of the postings, the time index, or
//     the sort index).

// textCandidates selects the rowids of the matching spans; `seq IN (...)`
// of it is the search's condition on both paths.
const textCandidates = "SELECT rowid FROM span_text WHERE span_text MATCH ?"

// ftsMatch renders search terms as an FTS5 query: each term a phrase
// (quoted, its quotes doubled), all required. With the trigram tokenizer
// a phrase matches where its text occurs, case-insensitively.
func ftsMatch(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " ")
}

// planText adds q's search to plan and sel: the candidates access when the
// index holds few matches up to the snapshot, else the probe condition.
func (s *Store) planText(ctx context.Context, tx querier, q warehouse.SpanQuery, snapshot int64, plan *spanPlan, sel *spanSelect) error {
	terms := q.SearchTerms()
	if terms == nil {
		return nil
	}
	plan.textMatch = ftsMatch(terms)
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM ("+textCandidates+" AND rowid <= ? LIMIT ?)",
		plan.textMatch, snapshot, s.maxIndexCandidates+1).Scan(&n); err != nil {
		return mapErr(err)
	}
	plan.textSpans = n
	if n <= int64(s.maxIndexCandidates) {
		plan.access = accessText
		plan.selectivity = min(float64(max(n, 1))/float64(max(plan.rangeSpans, 1)), plan.selectivity)
		sel.filters.Add("seq IN ("+textCandidates+")", plan.textMatch)
		return nil
	}
	plan.selectivity *= unknownSelectivity
	switch plan.access {
	case accessHourWalk:
		plan.access = accessTimeIndex
		if plan.post != nil && plan.postSpans <= int64(s.maxIndexCandidates) {
			plan.access = accessCandidates
		}
	case accessNameMerge: // the merge reads no filter
		plan.access = accessTimeIndex
	case accessSortIndex:
		// The bucket walk is several statements; the sort index read in
		// one statement (the bucketed ones sorted: the range's entries).
		plan.oneStatement = true
	}
	sel.filters.Add("seq IN ("+textCandidates+")", plan.textMatch)
	return nil
}

// countText is total_results of a search: the matches of the candidates,
// or of the range checked span by span against the index.
func (p spanPlan) countText(ctx context.Context, tx querier, sel spanSelect) (int64, error) {
	where, args := sel.match()
	query := "SELECT count(*) FROM spans INDEXED BY spans_env_time WHERE " + where
	if p.access == accessText {
		query = "SELECT count(*) FROM spans NOT INDEXED WHERE " + where
	}
	var n int64
	if err := tx.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, mapErr(err)
	}
	return n, nil
}
