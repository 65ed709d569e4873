package sqlite

import (
	"context"
	"fmt"
	"math"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// bucketSide is one side of a comparison's value in a bucketed sort index:
// the buckets from the value's own outwards, in one direction.
type bucketSide struct {
	cond sqlfilter.Where // the spans of this side (the filter, or its negation)
	desc bool            // walks to lower buckets
	b    int64           // the next bucket to count
	ok   bool            // b is valid: buckets remain
	n    int64           // the spans counted so far
}

// countByBucket counts the matches of a query whose one filter compares a
// numeric column that has a bucketed sort index (duration, total tokens)
// with a number, from the index alone: bucket by bucket, the entries of
// the range's hours. The matching side and the other side (the negated
// filter: the columns are NOT NULL, so every span of the range is on
// exactly one side) are counted in turns, always the side with fewer
// spans so far, until one side is done: the count reads about twice the
// smaller side's entries, whatever the filter's selectivity. ok is false
// when the filter is of another kind.
func countByBucket(ctx context.Context, tx querier, q warehouse.SpanQuery, base sqlfilter.Where, rangeSpans int64) (int64, bool, error) {
	if len(q.Filters) != 1 {
		return 0, false, nil
	}
	f := q.Filters[0]
	ref := warehouse.ResolveSpanField(f.Field)
	if ref.Kind != warehouse.KindColumn {
		return 0, false, nil
	}
	idx, ok := index.NumberIndex(ref.Column)
	if !ok {
		return 0, false, nil
	}
	var up bool // the matches are at the value and above
	switch f.Operator {
	case warehouse.OpGreaterThan, warehouse.OpGreaterThanOrEqual:
		up = true
	case warehouse.OpLessThan, warehouse.OpLessThanOrEqual:
	default:
		return 0, false, nil
	}
	v, parsed := warehouse.ParseNumber(f.Value)
	// An integer column's matches of v are those of ceil(v) (above) or
	// floor(v) (below): the bucket of that integer bounds them.
	if up {
		v = math.Ceil(v)
	} else {
		v = math.Floor(v)
	}
	if !parsed || math.IsNaN(v) || v < math.MinInt64/2 || v > math.MaxInt64/2 {
		return 0, false, nil
	}
	own, err := bucketOf(ctx, tx, idx, ref.Column, int64(v))
	if err != nil {
		return 0, false, err
	}
	cond := spanFilters(q.Filters)[0]
	hours := rangeHours(q)
	match := &bucketSide{desc: !up, b: own, ok: true}
	match.cond.AddExpr(cond)
	other := &bucketSide{desc: up, b: own, ok: true}
	other.cond.Add(dialect.Negate(cond.SQL), cond.Args...)
	for match.ok && other.ok {
		s := match
		if other.n < match.n {
			s = other
		}
		where, args := joinWhere(base, hours, s.cond)
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM spans INDEXED BY "+idx.Name+" WHERE "+idx.Bucket+" = ? AND "+where,
			append([]any{s.b}, args...)...).Scan(&n); err != nil {
			return 0, false, fmt.Errorf("count by bucket: %w", mapErr(err))
		}
		s.n += n
		if s.b, s.ok, err = nextBucket(ctx, tx, idx, q.Environments, s.b, true, s.desc); err != nil {
			return 0, false, err
		}
	}
	if !match.ok {
		return match.n, true, nil
	}
	return rangeSpans - other.n, true, nil
}
