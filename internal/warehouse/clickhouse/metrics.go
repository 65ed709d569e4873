package clickhouse

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
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

// maxClockSkewMs is how far ahead of this collector's clock another
// collector's may run: a metric cursor's snapshot later than now by more
// is refused.
const maxClockSkewMs = int64(time.Hour / time.Millisecond)

// ReadMetricPoints answers one page of a metric query
// (warehouse.Backend). The snapshot is the millisecond part of the
// highest sequence number among the points in the query's range, and
// pages read only points stamped up to that millisecond.
func (s *Store) ReadMetricPoints(ctx context.Context, r warehouse.MetricRead) (warehouse.MetricRows, error) {
	var out warehouse.MetricRows
	if err := s.ready(ctx, "read metric points"); err != nil {
		return out, err
	}
	q := r.Query
	table := s.schema.table("metric_points")
	var w sqlfilter.Where
	w.In("environment", q.Environments)
	w.Add("event_time >= ?", q.FromMs)
	if q.ToMs != 0 {
		w.Add("event_time <= ?", q.ToMs)
	}
	snapshot := r.Snapshot
	if !r.First && snapshot > s.clock.now().UnixMilli()-seqEpochMs+maxClockSkewMs {
		// A snapshot is a millisecond some collector's clock has passed:
		// a later one was made up (it would page through nothing).
		return out, warehouse.ForeignMetricCursor(q.Cursor)
	}
	if r.First {
		// Only points in the query's range can match: reading seq there
		// is a primary-key range (the whole environment cost ~25 ms per
		// 1 000 000 points).
		var maxSeq int64
		if err := s.conn.QueryRow(ctx, "SELECT max(seq) FROM "+table+" WHERE "+w.SQL(), w.Args...).Scan(&maxSeq); err != nil {
			return out, fmt.Errorf("snapshot: %w", mapErr(err))
		}
		snapshot = maxSeq >> seqMsShift
		// Whatever this store writes from now on is stamped after the
		// snapshot's millisecond.
		s.clock.observe((snapshot + 1) << seqMsShift)
		out.Snapshot = snapshot
	}
	w.Add("seq < ?", (snapshot+1)<<seqMsShift)
	if q.MetricName != "" {
		w.Add("metric_name = ?", q.MetricName)
	}
	if q.MetricSource != "" {
		w.Add("source = ?", q.MetricSource)
	}
	// The filters read labels and attributes (wide columns): they stay
	// out of the FINAL read (see splitSelect).
	var filter sqlfilter.Where
	if c, ok := dialect.MetricFilters(q.Filters, q.Or); ok {
		filter.AddExpr(c)
	}
	col, dir := q.SortOrder()
	order := "sort_value ASC NULLS FIRST, key_seq ASC"
	if dir == "DESC" {
		order = "sort_value DESC NULLS LAST, key_seq DESC"
	}
	// Two steps, as for spans: the page's keys from the narrow columns
	// (FINAL, so duplicates never show), then the whole points of those
	// keys; the labels and attributes are read only for the page.
	keys, err := s.readKeys(ctx, keyRead{table: "metric_points", timeCol: "event_time", cond: w.SQL(), args: w.Args,
		filter: filter.Conds, filterArgs: filter.Args, groupBy: copyInvariantGroupBy(q, col),
		sortExpr: col, order: order, limit: []any{r.Offset, r.Limit}, from: q.FromMs, to: q.ToMs})
	if err != nil {
		return out, err
	}
	page, cut, err := s.fitKeys(ctx, "metric_points", pointBytesExpr, "event_time", q.Environments, keys, r.MaxBytes)
	if err != nil {
		return out, err
	}
	out.Cut = cut
	if out.Points, err = readBySeq(ctx, s, "metric_points", pointColumns, "event_time", q.Environments, page, scanPoint); err != nil {
		return out, err
	}
	if r.NeedsCount(len(out.Points), out.Cut) {
		// The page query sorted every match before LIMIT offset, n.
		n, ok := keys.counter.count()
		if !ok || n < uint64(r.Offset)+uint64(len(out.Points)) {
			if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+table+" FINAL WHERE "+w.SQL()+" AND "+filter.SQL(),
				append(slices.Clone(w.Args), filter.Args...)...).Scan(&n); err != nil {
				return out, fmt.Errorf("count: %w", mapErr(err))
			}
		}
		out.Total = int64(n)
	}
	return out, nil
}

// pointBytesExpr is the size of a row of metric_points as a page counts
// it (warehouse.RowBytes): the lengths of its texts.
const pointBytesExpr = `length(trace_id) + length(span_id) + length(ifNull(enum_value, '')) +
	length(arrayStringConcat(label_keys)) + length(arrayStringConcat(label_values)) +
	length(arrayStringConcat(attr_keys)) + length(arrayStringConcat(attr_values))`

// pointKey is the sort key of metric_points: copies of a point share it.
const pointKey = "environment, event_time, metric_name, source, trace_id, span_id, identity"

// copyInvariantGroupBy returns pointKey when a metric query may collapse
// copies by GROUP BY over its matching rows (see keyRead.groupBy): it
// filters by metric name or source (key columns) or labels and attributes
// (hashed into identity), sorts by a key column, and has no filter on
// what copies may hold differently (values, organization). A query
// without any such filter matches most of its range; it reads FINAL ("").
func copyInvariantGroupBy(q warehouse.MetricQuery, sortCol string) string {
	if sortCol != "event_time" && sortCol != "metric_name" {
		return ""
	}
	if q.MetricName == "" && q.MetricSource == "" && len(q.Filters) == 0 {
		return ""
	}
	for _, f := range q.Filters {
		ref := warehouse.ResolveMetricField(f.Field)
		if ref.Kind == warehouse.KindColumn && !pointKeyColumns[ref.Column] {
			return ""
		}
	}
	return pointKey
}

// pointKeyColumns are the columns of pointKey.
var pointKeyColumns = map[string]bool{"environment": true, "event_time": true, "metric_name": true, "source": true,
	"trace_id": true, "span_id": true, "identity": true}

// scanPoint reads a row of pointColumns: the point, its seq and its
// version.
func scanPoint(rows driver.Rows) (warehouse.MetricPoint, int64, uint64, error) {
	var (
		p              warehouse.MetricPoint
		seq            int64
		ver, ident     uint64
		b              *uint8
		lk, lv, ak, av []string
	)
	if err := rows.Scan(&p.Environment, &p.OrganizationID, &p.MetricName, &p.Source, &p.EventTime, &seq, &ver,
		&b, &p.NumericValue, &p.EnumValue, &p.TraceID, &p.SpanID, &lk, &lv, &ak, &av, &ident); err != nil {
		return p, 0, 0, mapErr(err)
	}
	if b != nil {
		v := *b != 0
		p.BoolValue = &v
	}
	p.Labels = arraysMap(lk, lv)
	p.Attributes = arraysMap(ak, av)
	return p, seq, ver, nil
}
