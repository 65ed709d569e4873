package clickhouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.MetricAggregateBackend = (*Store)(nil)

// AggregateMetricPoints answers an aggregate query (see
// warehouse.MetricAggregateBackend) with one GROUP BY, by bucket, labels
// and histogram bin, over the points the query selects, read FINAL so
// that copies of a re-sent point count once.
func (s *Store) AggregateMetricPoints(ctx context.Context, q warehouse.MetricAggregateQuery) ([]warehouse.MetricAggregateRow, error) {
	if err := s.ready(ctx, "aggregate metric points"); err != nil {
		return nil, err
	}
	w := dialect.MetricSelection(q.Selection())
	var cols []string
	var colArgs []any
	bucket := "toInt64(0)"
	if q.BucketMs > 0 {
		bucket = "intDiv(event_time - ?, ?)"
		colArgs = append(colArgs, q.FromMs, q.BucketMs)
	}
	cols = append(cols, bucket+" AS b")
	groups := []string{"b"}
	for i, l := range q.GroupBy {
		v, _ := dialect.Attribute(warehouse.KindLabel, l)
		name := fmt.Sprintf("l%d", i)
		cols = append(cols, v.SQL+" AS "+name)
		colArgs = append(colArgs, v.Args...)
		groups = append(groups, name)
	}
	bin := "toInt64(-1)"
	if q.Bins > 0 {
		if width := q.BinWidth(); width > 0 {
			bin = "if(isNull(numeric_value), toInt64(-1), least(greatest(toInt64(floor((assumeNotNull(numeric_value) - ?) / ?)), toInt64(0)), toInt64(?)))"
			colArgs = append(colArgs, q.Lo, width, q.Bins-1)
		} else {
			bin = "if(isNull(numeric_value), toInt64(-1), toInt64(0))"
		}
	}
	cols = append(cols, bin+" AS bin")
	groups = append(groups, "bin")
	query := "SELECT " + strings.Join(cols, ", ") + `, count(), count(numeric_value), ifNull(sum(numeric_value), 0),
		ifNull(min(numeric_value), 0), ifNull(max(numeric_value), 0),
		sum(toUInt64(ifNull(bool_value = 1, 0))), sum(toUInt64(ifNull(bool_value = 0, 0)))
		FROM ` + s.schema.table("metric_points") + " FINAL WHERE " + w.SQL() + " GROUP BY " + strings.Join(groups, ", ")
	rows, err := s.conn.Query(ctx, query, append(colArgs, w.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("aggregate: %w", mapErr(err))
	}
	defer rows.Close()
	c := warehouse.NewAggregateCollector(q)
	labels := make([]string, len(q.GroupBy))
	for rows.Next() {
		var (
			b, bin                    int64
			n, numeric, trues, falses uint64
			sum, lo, hi               float64
		)
		dest := []any{&b}
		for i := range labels {
			dest = append(dest, &labels[i])
		}
		dest = append(dest, &bin, &n, &numeric, &sum, &lo, &hi, &trues, &falses)
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("aggregate: %w", mapErr(err))
		}
		c.Add(b, labels, int(bin), int64(n), int64(numeric), sum, lo, hi, int64(trues), int64(falses))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("aggregate: %w", mapErr(err))
	}
	return c.Rows(), nil
}
