package warehouse

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// MetricAggregator is implemented by stores that aggregate metric points
// (both backends, through the query path). The console's scores page
// reads it; /v2 could serve it too.
type MetricAggregator interface {
	AggregateMetrics(ctx context.Context, q MetricAggregateQuery) (MetricAggregate, error)
}

// Aggregate limits.
const (
	// MaxAggregateBuckets bounds the time buckets of one aggregate query.
	MaxAggregateBuckets = 1000
	// MaxAggregateGroupBy bounds the labels an aggregate groups by.
	MaxAggregateGroupBy = 4
	// MaxAggregateBins bounds the histogram bins.
	MaxAggregateBins = 100
	// MaxAggregateRows bounds the rows of one answer; a query that would
	// return more is a *QueryError asking to narrow it.
	MaxAggregateRows = 20000
)

// MetricAggregateQuery aggregates the metric points that a MetricQuery
// with the same selection (environments, time range, name, source,
// filters) matches into time buckets and label groups.
type MetricAggregateQuery struct {
	// Environments the caller may see; empty matches nothing.
	Environments []string
	// FromMs and ToMs bound the points' event time (inclusive); both are
	// required.
	FromMs, ToMs int64
	MetricName   string
	MetricSource string
	Filters      []Filter
	Or           bool
	// BucketMs is the width of the time buckets, which start at FromMs;
	// 0 makes one bucket of the whole range.
	BucketMs int64
	// GroupBy names labels; each row is one combination of their values
	// ("" for a point without the label).
	GroupBy []string
	// Bins > 0 asks for a histogram of the numeric values in [Lo, Hi]:
	// Bins equal bins, values outside falling into the first or last.
	Bins   int
	Lo, Hi float64
}

// MetricAggregate is the answer of an aggregate query: one row per time
// bucket and label group that has points, ordered by bucket then labels.
type MetricAggregate struct {
	Rows []MetricAggregateRow
}

// MetricAggregateRow aggregates the points of one bucket and group.
type MetricAggregateRow struct {
	// Bucket is the start of the time bucket (Unix ms).
	Bucket int64
	// Labels are the values of the query's GroupBy labels, in order.
	Labels []string
	// Count counts the points.
	Count int64
	// Numeric counts the points with a numeric value; Sum, Min and Max
	// are over those values (0 when there are none).
	Numeric       int64
	Sum, Min, Max float64
	// True and False count the boolean values.
	True, False int64
	// Bins is the histogram (nil without Bins).
	Bins []int64
}

// Normalize validates q: both time bounds, a bucket count within
// MaxAggregateBuckets, at most MaxAggregateGroupBy labels, a sane
// histogram and the filters of a metric query.
func (q MetricAggregateQuery) Normalize() (MetricAggregateQuery, error) {
	if q.FromMs <= 0 || q.ToMs <= 0 || q.ToMs < q.FromMs {
		return q, queryErrorf("to_timestamp_sec", "an aggregate needs a time range with its end after its start")
	}
	if q.BucketMs < 0 {
		return q, queryErrorf("bucket", "must not be negative")
	}
	if q.BucketMs > 0 && (q.ToMs-q.FromMs)/q.BucketMs+1 > MaxAggregateBuckets {
		return q, queryErrorf("bucket", "%d ms buckets make more than %d buckets of the range; use wider buckets", q.BucketMs, MaxAggregateBuckets)
	}
	if len(q.GroupBy) > MaxAggregateGroupBy {
		return q, queryErrorf("group_by", "at most %d labels", MaxAggregateGroupBy)
	}
	for _, l := range q.GroupBy {
		if l == "" {
			return q, queryErrorf("group_by", "empty label name")
		}
	}
	if q.Bins < 0 || q.Bins > MaxAggregateBins {
		return q, queryErrorf("bins", "must be between 0 and %d", MaxAggregateBins)
	}
	if q.Bins > 0 && (math.IsNaN(q.Lo) || math.IsNaN(q.Hi) || math.IsInf(q.Lo, 0) || math.IsInf(q.Hi, 0) || q.Hi < q.Lo) {
		return q, queryErrorf("bins", "the histogram range [%g, %g] is not a finite range", q.Lo, q.Hi)
	}
	mq, err := q.metricQuery().Normalize()
	if err != nil {
		return q, err
	}
	q.Filters = mq.Filters
	return q, nil
}

// Selection is the selection of q as a metric query (backends render its
// conditions with sqlfilter's MetricSelection).
func (q MetricAggregateQuery) Selection() MetricQuery { return q.metricQuery() }

// metricQuery is the selection of q as a metric query.
func (q MetricAggregateQuery) metricQuery() MetricQuery {
	return MetricQuery{Environments: q.Environments, FromMs: q.FromMs, ToMs: q.ToMs, MetricName: q.MetricName,
		MetricSource: q.MetricSource, Filters: q.Filters, Or: q.Or}
}

// MetricAggregateBackend is the backend capability behind
// AggregateMetrics: it answers a normalised aggregate query with its rows,
// in any order, one per (bucket, labels); the query path sorts them.
type MetricAggregateBackend interface {
	AggregateMetricPoints(ctx context.Context, q MetricAggregateQuery) ([]MetricAggregateRow, error)
}

// AggregateMetrics answers an aggregate query over the backend's metric
// points: normalise and validate it, keep it to the caller's
// environments, and order the rows by bucket then labels.
func (p QueryPath) AggregateMetrics(ctx context.Context, q MetricAggregateQuery) (MetricAggregate, error) {
	var out MetricAggregate
	q, err := q.Normalize()
	if err != nil {
		return out, err
	}
	if len(q.Environments) == 0 {
		return out, nil
	}
	b, ok := p.backend.(MetricAggregateBackend)
	if !ok {
		return out, fmt.Errorf("aggregate metrics: the %T backend cannot aggregate", p.backend)
	}
	rows, err := b.AggregateMetricPoints(ctx, q)
	if err != nil {
		return out, fmt.Errorf("aggregate metrics: %w", err)
	}
	if len(rows) > MaxAggregateRows {
		return out, queryErrorf("group_by", "more than %d buckets and groups; narrow the time range, widen the buckets or group by fewer labels", MaxAggregateRows)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Bucket != rows[j].Bucket {
			return rows[i].Bucket < rows[j].Bucket
		}
		return slices.Compare(rows[i].Labels, rows[j].Labels) < 0
	})
	out.Rows = rows
	return out, nil
}

// AggregateCollector merges the rows a backend reads grouped by (bucket
// index, labels, histogram bin) into the rows of one (bucket, labels).
type AggregateCollector struct {
	q    MetricAggregateQuery
	rows map[string]*MetricAggregateRow
	keys []string
}

// NewAggregateCollector returns a collector for q.
func NewAggregateCollector(q MetricAggregateQuery) *AggregateCollector {
	return &AggregateCollector{q: q, rows: map[string]*MetricAggregateRow{}}
}

// Add folds one group read by a backend: bucket index, labels, histogram
// bin (-1 for points without a numeric value, or without Bins), and the
// group's counts and numeric aggregates.
func (c *AggregateCollector) Add(bucket int64, labels []string, bin int, count, numeric int64, sum, lo, hi float64, trues, falses int64) {
	key := strconv.FormatInt(bucket, 10) + "\x00" + strings.Join(labels, "\x00")
	row := c.rows[key]
	if row == nil {
		row = &MetricAggregateRow{Bucket: c.q.FromMs + bucket*max(c.q.BucketMs, 0), Labels: slices.Clone(labels)}
		if c.q.Bins > 0 {
			row.Bins = make([]int64, c.q.Bins)
		}
		c.rows[key] = row
		c.keys = append(c.keys, key)
	}
	row.Count += count
	row.True += trues
	row.False += falses
	if numeric > 0 {
		if row.Numeric == 0 {
			row.Min, row.Max = lo, hi
		}
		row.Min, row.Max = math.Min(row.Min, lo), math.Max(row.Max, hi)
		row.Numeric += numeric
		row.Sum += sum
		if bin >= 0 && bin < len(row.Bins) {
			row.Bins[bin] += numeric
		}
	}
}

// Rows returns the merged rows.
func (c *AggregateCollector) Rows() []MetricAggregateRow {
	out := make([]MetricAggregateRow, 0, len(c.keys))
	for _, k := range c.keys {
		out = append(out, *c.rows[k])
	}
	return out
}

// BinWidth is the width of a histogram bin (0 when the range is a point:
// every value then falls into bin 0).
func (q MetricAggregateQuery) BinWidth() float64 {
	if q.Bins <= 0 || q.Hi <= q.Lo {
		return 0
	}
	return (q.Hi - q.Lo) / float64(q.Bins)
}
