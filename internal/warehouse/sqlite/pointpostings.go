package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Label postings of metric points (00023_point_postings.sql): each write
// of points lists, per environment and label value, the points that carry
// it, in runs merged like the span postings' (merge.go). A metric query
// with a text equality or in-list on a label reads the points the
// postings of its most selective such filter name, when they are few,
// instead of every point of the range or of a metric name: a label with
// a metric name, sorted by value, read the name's points one by one.

// maxLabelCandidates bounds the points a label filter's postings may name
// for its query to read them (each a row read and checked, ~2–3 µs);
// more leave the query to the other paths.
const maxLabelCandidates = 20_000

// labelPostingFilters returns the filters of q the label postings answer:
// a text equality or in-list (at most maxResolvedValues values, each
// indexable) on a label whose key is not reserved, which every match must
// pass (not one of several filters of which any one may hold).
func labelPostingFilters(q warehouse.MetricQuery) []postingFilter {
	if q.Or && len(q.Filters) > 1 {
		return nil
	}
	var out []postingFilter
	for i, f := range q.Filters {
		ref := warehouse.ResolveMetricField(f.Field)
		if ref.Kind != warehouse.KindLabel || ref.Key == "" || reservedKey(ref.Key) {
			continue
		}
		if values, ok := textEqualityValues(f, maxResolvedValues); ok {
			out = append(out, postingFilter{index: i, key: jsonKey(ref.Key), values: values})
		}
	}
	return out
}

// labelCandidates returns the condition that narrows q to the points the
// postings of its most selective label filter name ("seq IN (...)", a
// superset of q's matches: the page and the count still check every
// filter), with its arguments, for a page that ends at rank (offset +
// limit) within snapshot; ok is false when q has no such filter, its
// postings name more than maxLabelCandidates points, q's range reaches
// the event times of points stored before the postings, or the other
// paths cost less (see cheaperInOrder).
func labelCandidates(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, rank, snapshot int64) (cond string, args []any, ok bool, err error) {
	filters := labelPostingFilters(q)
	for _, env := range q.Environments {
		uncounted, err := uncountedKeys(ctx, tx, env)
		if err != nil {
			return "", nil, false, fmt.Errorf("label postings: %w", err)
		}
		// Since its key went uncounted, a label's values are not listed.
		filters = slices.DeleteFunc(filters, func(f postingFilter) bool { return uncounted[f.key] })
	}
	if len(filters) == 0 {
		return "", nil, false, nil
	}
	r, err := readPostingRange(ctx, tx, pointPostingTables, q.Environments, q.FromMs, q.ToMs)
	if err != nil {
		return "", nil, false, fmt.Errorf("label postings: %w", err)
	}
	best, fewest := -1, int64(maxLabelCandidates)
	if len(r.runs) == 0 { // no list reaches the range: no candidate
		best, fewest = 0, 0
	}
	for i, f := range filters {
		if fewest == 0 {
			break
		}
		sums, err := r.estimate(ctx, tx, f)
		if err != nil {
			return "", nil, false, fmt.Errorf("label postings: %w", err)
		}
		if sums.reach <= fewest {
			best, fewest = i, sums.reach
		}
	}
	if best < 0 {
		return "", nil, false, nil
	}
	if cheaper, err := cheaperInOrder(ctx, tx, q, fewest, rank, snapshot); err != nil || cheaper {
		return "", nil, false, err
	}
	sub, args := r.candidatesSQL(filters[best])
	return "seq IN (" + sub + ")", args, true, nil
}

// cheaperInOrder reports whether q's page and total cost less without
// its label's candidates (about n points to read, sort and count): when
// point_counts gives the total (one label filter, no name), a
// page read in time or value order stops after about rank / s points,
// s = n / the range's points, the label's share, each an index entry and
// a row, about twice a candidate's cost (measured: 1 000 000 points, a
// 10 % label over a day, first page 33 ms in value order against 60 ms
// from its 14 300 candidates; at offset 1 000, 104 against 67). So the
// candidates win when n² < 2 · rank · points. Otherwise the total is
// counted point by point on every path, and n is at most what any other
// path reads for it.
func cheaperInOrder(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, n, rank, snapshot int64) (bool, error) {
	if _, counted := pointCountPlan(q); !counted {
		return false, nil
	}
	all := q
	all.Filters, all.Or = nil, false
	w := dialect.MetricSelection(all)
	w.Add("seq <= ?", snapshot)
	points, err := countPoints(ctx, tx, all, w, nil, snapshot)
	if err != nil {
		return false, fmt.Errorf("label postings: %w", err)
	}
	return float64(n)*float64(n) >= 2*float64(rank)*float64(points), nil
}

// labelLists picks the label postings a write of points lists: not those
// of a key point_counts leaves out in the point's environment (an id,
// with a value for every point or two, would add a list each; filters on
// such a key read the points, see labelCandidates).
type labelLists struct {
	// uncounted reads the keys point_counts leaves out in the write's
	// transaction.
	uncounted *uncountedKeySets
	// The last choice: the points of one labels map share it.
	env    string
	from   *preparedPoint
	hashes []int64
}

// of returns the posting hashes of pp's labels for a point of env.
func (l *labelLists) of(ctx context.Context, env string, pp *preparedPoint) ([]int64, error) {
	if l.from != nil && env == l.env && sameSlice(pp.labelHashes, l.from.labelHashes) {
		return l.hashes, nil
	}
	skip, err := l.uncounted.of(ctx, env)
	if err != nil {
		return nil, err
	}
	hashes := pp.labelHashes
	if slices.ContainsFunc(pp.labelKeys, func(k string) bool { return skip[k] }) {
		hashes = make([]int64, 0, len(pp.labelHashes))
		for i, k := range pp.labelKeys {
			if !skip[k] {
				hashes = append(hashes, pp.labelHashes[i])
			}
		}
	}
	l.env, l.from, l.hashes = env, pp, hashes
	return hashes, nil
}

// sameSlice reports whether a and b are the same slice (not equal copies).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
