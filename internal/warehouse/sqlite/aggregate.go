package sqlite

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.MetricAggregateBackend = (*Store)(nil)

// AggregateMetricPoints answers an aggregate query (see
// warehouse.MetricAggregateBackend) with one GROUP BY over the points the
// query selects, by bucket, labels and histogram bin.
func (s *Store) AggregateMetricPoints(ctx context.Context, q warehouse.MetricAggregateQuery) ([]warehouse.MetricAggregateRow, error) {
	if err := s.checkOpen("aggregate metric points"); err != nil {
		return nil, err
	}
	// Points past the retention are hidden until pruned, as for reads.
	cutoff, err := retentionCutoff(ctx, s.reader, "metric_points", s.retention.MetricPoints, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	sel := q.Selection()
	sel.FromMs = max(sel.FromMs, cutoff)
	if sel.ToMs < sel.FromMs {
		return nil, nil
	}
	w := dialect.MetricSelection(sel)
	var cols []string
	var colArgs []any
	bucket := "0"
	if q.BucketMs > 0 {
		bucket = "(event_time - ?) / ?" // integer division of integers
		colArgs = append(colArgs, q.FromMs, q.BucketMs)
	}
	cols = append(cols, bucket)
	for _, l := range q.GroupBy {
		v, _ := attrExprs("labels", l)
		cols = append(cols, "coalesce("+v.SQL+", '')")
		colArgs = append(colArgs, v.Args...)
	}
	bin := "-1"
	if q.Bins > 0 {
		if width := q.BinWidth(); width > 0 {
			bin = "CASE WHEN numeric_value IS NULL THEN -1 ELSE min(max(CAST(floor((numeric_value - ?) / ?) AS INTEGER), 0), ?) END"
			colArgs = append(colArgs, q.Lo, width, q.Bins-1)
		} else {
			bin = "CASE WHEN numeric_value IS NULL THEN -1 ELSE 0 END"
		}
	}
	cols = append(cols, bin)
	groups := make([]string, len(cols))
	for i := range cols {
		groups[i] = strconv.Itoa(i + 1)
	}
	query := "SELECT " + strings.Join(cols, ", ") + `, count(*), count(numeric_value), coalesce(sum(numeric_value), 0),
		coalesce(min(numeric_value), 0), coalesce(max(numeric_value), 0),
		coalesce(sum(bool_value = 1), 0), coalesce(sum(bool_value = 0), 0)
		FROM metric_points WHERE ` + w.SQL() + " GROUP BY " + strings.Join(groups, ", ")
	rows, err := s.reader.QueryContext(ctx, query, append(colArgs, w.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", mapErr(err))
	}
	defer rows.Close()
	c := warehouse.NewAggregateCollector(q)
	labels := make([]string, len(q.GroupBy))
	for rows.Next() {
		var (
			b, n, numeric, trues, falses int64
			bin                          int
			sum, lo, hi                  float64
		)
		dest := []any{&b}
		for i := range labels {
			dest = append(dest, &labels[i])
		}
		dest = append(dest, &bin, &n, &numeric, &sum, &lo, &hi, &trues, &falses)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("aggregate: %w", mapErr(err))
		}
		c.Add(b, labels, bin, n, numeric, sum, lo, hi, trues, falses)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("aggregate: %w", mapErr(err))
	}
	return c.Rows(), nil
}
