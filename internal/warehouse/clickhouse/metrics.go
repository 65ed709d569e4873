package clickhouse

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
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
		// Only points in the query's range can match: reading seq there
		// is a primary-key range (the whole environment cost ~25 ms per
		// 1 000 000 points).
		var w where
		w.inList("environment", q.Environments)
		w.add("event_time >= ?", q.FromMs)
		if q.ToMs != 0 {
			w.add("event_time <= ?", q.ToMs)
		}
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
	// The filters read labels and attributes (wide columns): they stay
	// out of the FINAL read (see splitSelect).
	var filter where
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
		filter.add("("+joined+")", fw.args...)
	}
	col, ok := metricSortColumns[q.SortBy]
	if !ok {
		return page, fmt.Errorf("query metrics: sort column %q not allowed", q.SortBy)
	}
	order := "sort_value ASC NULLS FIRST, key_seq ASC"
	if q.Desc {
		order = "sort_value DESC NULLS LAST, key_seq DESC"
	}
	// Two steps, as for spans: the page's keys from the narrow columns
	// (FINAL, so duplicates never show), then the whole points of those
	// keys; the labels and attributes are read only for the page.
	keys, err := s.readKeys(ctx, keyRead{table: "metric_points", timeCol: "event_time", cond: w.sql(), args: w.args,
		filter: filter.conds, filterArgs: filter.args, groupBy: copyInvariantGroupBy(q, col),
		sortExpr: col, order: order, limit: []any{offset, q.Limit + 1}, from: q.FromMs, to: q.ToMs})
	if err != nil {
		return page, fmt.Errorf("query metrics: %w", err)
	}
	seqs, minT, maxT, counter := keys.seqs, keys.minT, keys.maxT, keys.counter
	pts, err := s.pointsBySeq(ctx, q.Environments, minT, maxT, seqs)
	if err != nil {
		return page, fmt.Errorf("query metrics: %w", err)
	}
	more := len(pts) > q.Limit
	if more {
		pts = pts[:q.Limit]
	}
	if !hasCursor && !more {
		page.TotalResults = int64(len(pts))
	} else {
		// The page query sorted every match before LIMIT offset, n.
		n, ok := counter.count()
		if !ok || n < uint64(offset)+uint64(len(pts)) {
			if err := s.conn.QueryRow(ctx, "SELECT count() FROM "+table+" FINAL WHERE "+w.sql()+" AND "+filter.sql(),
				append(slices.Clone(w.args), filter.args...)...).Scan(&n); err != nil {
				return page, fmt.Errorf("query metrics: count: %w", mapErr(err))
			}
		}
		page.TotalResults = int64(n)
	}
	if err := warehouse.FillMetricPage(&page, pts, more, snapshot, offset, q.Limit); err != nil {
		return page, err
	}
	return page, nil
}

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

// pointsBySeq reads the points with the given sequence numbers (all with
// event times in [minT, maxT]) and returns them in the order of seqs.
func (s *Store) pointsBySeq(ctx context.Context, envs []string, minT, maxT int64, seqs []int64) ([]warehouse.MetricPoint, error) {
	out := make([]warehouse.MetricPoint, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	pos := make(map[int64]int, len(seqs))
	args := make([]any, len(seqs))
	for i, seq := range seqs {
		pos[seq] = i
		args[i] = seq
	}
	var w where
	w.inList("environment", envs)
	w.add("event_time >= ?", minT)
	w.add("event_time <= ?", maxT)
	w.add("seq IN ("+placeholders(len(seqs))+")", args...)
	rows, err := s.conn.Query(ctx, "SELECT "+pointColumns+" FROM "+s.schema.table("metric_points")+" WHERE "+w.sql(), w.args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	found, seen := 0, make([]bool, len(seqs))
	for rows.Next() {
		p, seq, err := scanPoint(rows)
		if err != nil {
			return nil, err
		}
		if i, ok := pos[seq]; ok && !seen[i] {
			out[i], seen[i] = p, true
			found++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	if found != len(seqs) {
		return nil, fmt.Errorf("read %d of %d points of the page (rows removed meanwhile?): %w", found, len(seqs), warehouse.ErrUnavailable)
	}
	return out, nil
}

func scanPoint(rows driver.Rows) (warehouse.MetricPoint, int64, error) {
	var (
		p              warehouse.MetricPoint
		seq            int64
		ver, ident     uint64
		b              *uint8
		lk, lv, ak, av []string
	)
	if err := rows.Scan(&p.Environment, &p.OrganizationID, &p.MetricName, &p.Source, &p.EventTime, &seq, &ver,
		&b, &p.NumericValue, &p.EnumValue, &p.TraceID, &p.SpanID, &lk, &lv, &ak, &av, &ident); err != nil {
		return p, 0, mapErr(err)
	}
	if b != nil {
		v := *b != 0
		p.BoolValue = &v
	}
	p.Labels = arraysMap(lk, lv)
	p.Attributes = arraysMap(ak, av)
	return p, seq, nil
}
