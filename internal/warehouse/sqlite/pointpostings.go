package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// Label postings of metric points (00023_point_postings.sql): each write
// of points lists, per environment and label value, the points that carry
// it, in runs merged like the span postings' (merge.go). A metric query
// with a text equality or in-list on a label reads the points the
// postings of its most selective such filter name, when they are few,
// instead of every point of the range or of a metric name: a label with
// a metric name, sorted by value, read the name's points one by one.

// labelPostingFilters returns the filters of q the label postings answer:
// a text equality or in-list (at most index.MaxResolvedValues values, each
// indexable) on a label whose key is not reserved, which every match must
// pass (not one of several filters of which any one may hold).
func labelPostingFilters(q warehouse.MetricQuery) []index.PostingFilter {
	if q.Or && len(q.Filters) > 1 {
		return nil
	}
	var out []index.PostingFilter
	for i, f := range q.Filters {
		ref := warehouse.ResolveMetricField(f.Field)
		if ref.Kind != warehouse.KindLabel || ref.Key == "" || index.ReservedKey(ref.Key) {
			continue
		}
		if values, ok := index.TextEqualityValues(f, index.MaxResolvedValues); ok {
			out = append(out, index.PostingFilter{Index: i, Key: index.JSONKey(ref.Key), Values: values})
		}
	}
	return out
}

// labelStats returns the filters of q whose label postings a read may
// take its candidates from (labelPostingFilters, less the keys
// point_counts leaves out in one of q's environments), the postings of
// q's range, and their estimates, in st (index.PointStats.Labels): they
// stop at the first filter of no point.
func labelStats(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, st *index.PointStats) ([]index.PostingFilter, index.PostingRange, error) {
	filters := labelPostingFilters(q)
	for _, env := range q.Environments {
		uncounted, err := uncountedKeys(ctx, tx, env)
		if err != nil {
			return nil, index.PostingRange{}, fmt.Errorf("label postings: %w", err)
		}
		// Since its key went uncounted, a label's values are not listed.
		filters = slices.DeleteFunc(filters, func(f index.PostingFilter) bool { return uncounted[f.Key] })
	}
	if len(filters) == 0 {
		return nil, index.PostingRange{}, nil
	}
	r, err := readPostingRange(ctx, tx, pointPostingTables, q.Environments, q.FromMs, q.ToMs)
	if err != nil {
		return nil, r, fmt.Errorf("label postings: %w", err)
	}
	st.LabelRuns = len(r.Runs) > 0
	for _, f := range filters {
		sums, err := estimatePostings(ctx, tx, r, f)
		if err != nil {
			return nil, r, fmt.Errorf("label postings: %w", err)
		}
		st.Labels = append(st.Labels, index.PostingStat{Name: f.String(), Listed: sums.reach})
		if sums.reach == 0 {
			break
		}
	}
	return filters, r, nil
}

// labelLists picks the label postings a write of points lists: not those
// of a key point_counts leaves out in the point's environment (an id,
// with a value for every point or two, would add a list each; filters on
// such a key read the points, see labelStats).
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
