package clickhouse

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/evalcol/evalcol/internal/warehouse"
)

const pointColumns = `environment, organization_id, metric_name, source, event_time, seq, ver,
	bool_value, numeric_value, enum_value, trace_id, span_id, label_keys, label_values, attr_keys, attr_values, identity`

// WriteMetricPoints stores points in one insert. Writes are idempotent: a
// point with the same environment, name, source, time, trace and span id,
// labels and attributes has the same sort key and queries read FINAL.
func (s *Store) WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error {
	if err := s.ready(ctx, "write metric points"); err != nil {
		return err
	}
	if len(pts) == 0 {
		return nil
	}
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("metric_points")+" ("+pointColumns+")")
	if err != nil {
		return fmt.Errorf("write metric points: prepare: %w", mapErr(err))
	}
	seqs := s.clock.next(len(pts))
	for i := range pts {
		p := &pts[i]
		var b *uint8
		if p.BoolValue != nil {
			v := uint8(0)
			if *p.BoolValue {
				v = 1
			}
			b = &v
		}
		lk, lv := mapArrays(p.Labels)
		ak, av := mapArrays(p.Attributes)
		if err := batch.Append(p.Environment, p.OrganizationID, p.MetricName, p.Source, p.EventTime, seqs[i],
			version(seqs[i]), b, p.NumericValue, p.EnumValue, p.TraceID, p.SpanID, lk, lv, ak, av,
			identity(lk, lv, ak, av)); err != nil {
			batch.Abort()
			return fmt.Errorf("write metric points: point %d: %w", i, mapErr(err))
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("write metric points: send: %w", mapErr(err))
	}
	return nil
}

// identity hashes sorted labels and attributes (FNV-1a, length-prefixed
// so that no two different maps share an encoding).
func identity(parts ...[]string) uint64 {
	h := fnv.New64a()
	var n [8]byte
	for _, part := range parts {
		for _, s := range part {
			l := len(s)
			for i := range n {
				n[i] = byte(l >> (8 * i))
			}
			h.Write(n[:])
			h.Write([]byte(s))
		}
		h.Write([]byte{0xff})
	}
	return h.Sum64()
}

// metricSortColumns maps metric sort keys to columns (the ORDER BY
// whitelist).
var metricSortColumns = map[string]string{
	warehouse.MetricSortEventTime:    "event_time",
	warehouse.MetricSortMetricName:   "metric_name",
	warehouse.MetricSortNumericValue: "numeric_value",
}

// QueryMetrics returns one page of points grouped by metric name. Paging
// is by offset within the snapshot of the first page: the cursor's
// snapshot is the millisecond part of the highest sequence number then
// stored, and pages read only points stamped up to that millisecond.
func (s *Store) QueryMetrics(ctx context.Context, q warehouse.MetricQuery) (warehouse.MetricPage, error) {
	page := warehouse.MetricPage{Groups: []warehouse.MetricGroup{}}
	if s.closed.Load() {
		return page, fmt.Errorf("query metrics: store closed: %w", warehouse.ErrUnavailable)
	}
	q, err := q.Normalize()
	if err != nil {
		return page, err
	}
	snapshot, offset, hasCursor, err := warehouse.DecodeMetricCursor(q.Cursor)
	if err != nil {
		return page, err
	}
	if err := s.ready(ctx, "query metrics"); err != nil {
		return page, err
	}
	if len(q.Environments) == 0 {
		return page, nil
	}
	table := s.schema.table("metric_points")
	if !hasCursor {
		var w where
		w.inList("environment", q.Environments)
		var maxSeq int64
		if err := s.conn.QueryRow(ctx, "SELECT max(seq) FROM "+table+" WHERE "+w.sql(), w.args...).Scan(&maxSeq); err != nil {
			return page, fmt.Errorf("query metrics: snapshot: %w", mapErr(err))
		}
		snapshot = maxSeq >> seqMsShift
		// Whatever this store writes from now on is stamped after the
		// snapshot's millisecond.
		s.clock.observe((snapshot + 1) << seqMsShift)
	}
	var w where
	w.inList("environment", q.Environments)
	w.add("seq < ?", (snapshot+1)<<seqMsShift)
	w.add("event_time >= ?", q.FromMs)
	if q.ToMs != 0 {
		w.add("event_time <= ?", q.ToMs)
	}
	if q.MetricName != "" {
		w.add("metric_name = ?", q.MetricName)
	}
	if q.MetricSource != "" {
		w.add("source = ?", q.MetricSource)
	}
	if len(q.Filters) > 0 {
		var fw where
		for _, f := range q.Filters {
			c := filterCond(f, warehouse.ResolveMetricField(f.Field))
			fw.add("("+c.sql+")", c.args...)
		}
		joined := fw.sql()
		if q.Or {
			joined = strings.Join(fw.conds, " OR ")
		}
		w.add("("+joined+")", fw.args...)
	}
	col, ok := metricSortColumns[q.SortBy]
	if !ok {
		return page, fmt.Errorf("query metrics: sort column %q not allowed", q.SortBy)
	}
	order := col + " ASC NULLS FIRST, seq ASC"
	if q.Desc {
		order = col + " DESC NULLS LAST, seq DESC"
	}
	query := "SELECT " + pointColumns + " FROM " + table + " FINAL WHERE " + w.sql() +
		" ORDER BY " + order + " LIMIT ?, ?"
	rows, err := s.conn.Query(ctx, query, append(append([]any{}, w.args...), offset, q.Limit+1)...)
	if err != nil {
		return page, fmt.Errorf("query metrics: %w", mapErr(err))
	}
	var pts []warehouse.MetricPoint
	for rows.Next() {
		p, err := scanPoint(rows)
		if err != nil {
			rows.Close()
			return page, fmt.Errorf("query metrics: %w", err)
		}
		pts = append(pts, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("query metrics: %w", mapErr(err))
	}
	more := len(pts) > q.Limit
	if more {
		pts = pts[:q.Limit]
	}
	if !hasCursor && !more {
		page.TotalResults = int64(len(pts))
	} else {
		var n uint64
		if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+table+" FINAL WHERE "+w.sql(), w.args...).Scan(&n); err != nil {
			return page, fmt.Errorf("query metrics: count: %w", mapErr(err))
		}
		page.TotalResults = int64(n)
	}
	if err := warehouse.FillMetricPage(&page, pts, more, snapshot, offset, q.Limit); err != nil {
		return page, err
	}
	return page, nil
}

func scanPoint(rows driver.Rows) (warehouse.MetricPoint, error) {
	var (
		p              warehouse.MetricPoint
		seq            int64
		ver, ident     uint64
		b              *uint8
		lk, lv, ak, av []string
	)
	if err := rows.Scan(&p.Environment, &p.OrganizationID, &p.MetricName, &p.Source, &p.EventTime, &seq, &ver,
		&b, &p.NumericValue, &p.EnumValue, &p.TraceID, &p.SpanID, &lk, &lv, &ak, &av, &ident); err != nil {
		return p, mapErr(err)
	}
	if b != nil {
		v := *b != 0
		p.BoolValue = &v
	}
	p.Labels = arraysMap(lk, lv)
	p.Attributes = arraysMap(ak, av)
	return p, nil
}
