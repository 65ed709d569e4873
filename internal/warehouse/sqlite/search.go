package sqlite

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// Full-text search (SpanQuery.Text) reads span_text, the unicode61 (word)
// FTS5 index. A read first counts the matches (their
// sequence numbers up to the snapshot, in memory: textMatches); its
// statements then check `seq IN (<the FTS query>)`, which SQLite
// evaluates once per statement into an ephemeral index (a common word's
// 78 000 matches in ~5 ms; binding so many numbers as a JSON array costs
// more, its parse), or, for few matches, `seq IN (json_each(<them>))`.
// One of two ways:
//
//   - few matches (at most maxIndexCandidates, and fewer than a
//     time-sorted page would read on the time index): the matches are the
//     candidates, read and sorted like an equality filter's postings
//     (index.Text, index.PlanText);
//   - many: the planner's access for the other conditions, each span
//     checked against the matches on the way; the bucket walk checks the
//     entries it reads in memory (sel.keepText) before it reads spans.
//
// Measured on the 1M-span fill with text (BENCHMARKS.md, "Full-text
// search"): a lookup of the FTS index per span (MATCH with rowid = seq)
// costs ~1 ms, so none is made; evaluating a common word over the whole
// index (78 000 matches) ~5 ms (~55 ms with a trigram index, which also
// wrote 10× more and made long phrases of common words slow: 300 ms).

// textCandidates selects the rowids of the matching spans up to a
// snapshot, in order.
const textCandidates = "SELECT rowid FROM span_text WHERE span_text MATCH ? AND rowid <= ? ORDER BY rowid"

// ftsMatch renders search terms as an FTS5 query: each term a phrase
// (quoted, its quotes doubled) whose last word is a prefix (`*`), all
// required: warehouse.SearchPattern's rule.
func ftsMatch(terms []string) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"*`
	}
	return strings.Join(quoted, " ")
}

// textMatches returns the sequence numbers of the spans matching an FTS5
// query, up to snapshot, ascending.
func textMatches(ctx context.Context, tx querier, match string, snapshot int64) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, textCandidates, match, snapshot)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, mapErr(err)
		}
		seqs = append(seqs, seq)
	}
	return seqs, mapErr(rows.Err())
}

// seqsJSON renders sequence numbers as a JSON array.
func seqsJSON(seqs []int64) string {
	b := make([]byte, 0, 2+8*len(seqs))
	b = append(b, '[')
	for i, s := range seqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, s, 10)
	}
	return string(append(b, ']'))
}

// planText adds q's search to plan and sel: its matches, and the access
// that reads them.
func (s *Store) planText(ctx context.Context, tx querier, q warehouse.SpanQuery, snapshot int64, plan *spanPlan, sel *spanSelect) error {
	terms := q.SearchTerms()
	if terms == nil {
		return nil
	}
	if s.noSearchIndex {
		return errSearchOff()
	}
	plan.textMatch = ftsMatch(terms)
	seqs, err := textMatches(ctx, tx, plan.textMatch, snapshot)
	if err != nil {
		return err
	}
	var few bool
	plan.SpanPlan, few = index.PlanText(plan.SpanPlan, q, int64(len(seqs)), s.maxIndexCandidates)
	sel.textSeqs = seqs
	if few {
		// The matches themselves: evaluating the search again may cost
		// more (a phrase of common words: ~50 ms).
		sel.text.Add("seq IN (SELECT value FROM json_each(?))", seqsJSON(seqs))
		return nil
	}
	sel.text.Add("seq IN ("+textCandidates+")", plan.textMatch, snapshot)
	return nil
}

// keepText returns the entries whose spans match sel's search (all when
// there is none).
func (sel spanSelect) keepText(entries []warehouse.SpanKey) []warehouse.SpanKey {
	if sel.text.Conds == nil {
		return entries
	}
	out := entries[:0:0]
	for _, e := range entries {
		if _, ok := slices.BinarySearch(sel.textSeqs, e.Seq); ok {
			out = append(out, e)
		}
	}
	return out
}

// countText is total_results of a search: the matches of the candidates,
// or of the range read on the time index.
func (p spanPlan) countText(ctx context.Context, tx querier, sel spanSelect) (int64, error) {
	if p.TextSpans == 0 {
		return 0, nil
	}
	where, args := sel.match()
	query := "SELECT count(*) FROM spans INDEXED BY spans_env_time WHERE " + where
	if p.CountTextByMatches() {
		query = "SELECT count(*) FROM spans NOT INDEXED WHERE " + where
	}
	var n int64
	if err := tx.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, mapErr(err)
	}
	return n, nil
}
