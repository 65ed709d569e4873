package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// insertPointSQL starts the insert of metric points; rowInserter adds
// the VALUES rows.
const insertPointSQL = `INSERT INTO metric_points (environment, organization_id, metric_name, source, event_time,
	bool_value, numeric_value, enum_value, trace_id, span_id, labels, attributes) VALUES `

// pointColumns is the number of columns insertPointSQL names.
const pointColumns = 12

const selectPointColumns = `environment, organization_id, metric_name, source, event_time, bool_value,
	numeric_value, enum_value, trace_id, span_id, labels, attributes`

// WriteMetricPoints stores points in one transaction.
func (s *Store) WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error {
	if err := s.checkOpen("write metric points"); err != nil {
		return err
	}
	if len(pts) == 0 {
		return nil
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write metric points: begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var labelsEnc, attrsEnc lastEncoding
	rows := newRowInserter(tx, insertPointSQL, pointColumns, rowsPerInsert)
	defer rows.close()
	labels, attrs := make([]string, len(pts)), make([]string, len(pts))
	keys := make([]int64, len(pts))
	for i := range pts {
		p := &pts[i]
		l, a := labelsEnc.encode(p.Labels), attrsEnc.encode(p.Attributes)
		labels[i], attrs[i], keys[i] = l.json, a.json, pointKey(p, l, a)
	}
	fresh, err := insertKeys(ctx, tx, "point_keys", keys)
	if err != nil {
		return fmt.Errorf("write metric points: %w", mapErr(err))
	}
	for i := range pts {
		p := &pts[i]
		if !fresh[i] {
			continue
		}
		var b sql.NullBool
		if p.BoolValue != nil {
			b = sql.NullBool{Bool: *p.BoolValue, Valid: true}
		}
		var n sql.NullFloat64
		if p.NumericValue != nil {
			n = sql.NullFloat64{Float64: *p.NumericValue, Valid: true}
		}
		var e sql.NullString
		if p.EnumValue != nil {
			e = sql.NullString{String: *p.EnumValue, Valid: true}
		}
		if err := rows.add(ctx, p.Environment, p.OrganizationID, p.MetricName, p.Source, p.EventTime,
			b, n, e, p.TraceID, p.SpanID, labels[i], attrs[i]); err != nil {
			return fmt.Errorf("write metric points: points up to %d: %w", i, mapErr(err))
		}
	}
	if err := rows.flush(ctx); err != nil {
		return fmt.Errorf("write metric points: %w", mapErr(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write metric points: commit: %w", mapErr(err))
	}
	return nil
}

// metricSortColumns maps metric sort keys to columns.
var metricSortColumns = map[string]string{
	warehouse.MetricSortEventTime:    "event_time",
	warehouse.MetricSortMetricName:   "metric_name",
	warehouse.MetricSortNumericValue: "numeric_value",
}

// QueryMetrics returns one page of points grouped by metric name. Paging
// is by offset within the snapshot of the first page (see
// warehouse.EncodeMetricCursor), so it is stable while points arrive.
func (s *Store) QueryMetrics(ctx context.Context, q warehouse.MetricQuery) (warehouse.MetricPage, error) {
	page := warehouse.MetricPage{Groups: []warehouse.MetricGroup{}}
	if err := s.checkOpen("query metrics"); err != nil {
		return page, err
	}
	q, err := q.Normalize()
	if err != nil {
		return page, err
	}
	snapshot, offset, hasCursor, err := warehouse.DecodeMetricCursor(q.Cursor)
	if err != nil {
		return page, err
	}
	if len(q.Environments) == 0 {
		return page, nil
	}
	if !hasCursor {
		if err := s.reader.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM metric_points`).Scan(&snapshot); err != nil {
			return page, fmt.Errorf("query metrics: snapshot: %w", mapErr(err))
		}
	}
	var w where
	w.inList("environment", q.Environments)
	w.add("seq <= ?", snapshot)
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
			joined = ""
			for i, c := range fw.conds {
				if i > 0 {
					joined += " OR "
				}
				joined += c
			}
		}
		w.add("("+joined+")", fw.args...)
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	query := "SELECT " + selectPointColumns + " FROM metric_points WHERE " + w.sql() +
		" ORDER BY " + metricSortColumns[q.SortBy] + " " + dir + ", seq " + dir + " LIMIT ? OFFSET ?"
	rows, err := s.reader.QueryContext(ctx, query, append(append([]any{}, w.args...), q.Limit+1, offset)...)
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
	} else if err := s.reader.QueryRowContext(ctx, "SELECT count(*) FROM metric_points WHERE "+w.sql(), w.args...).Scan(&page.TotalResults); err != nil {
		return page, fmt.Errorf("query metrics: count: %w", mapErr(err))
	}
	if err := warehouse.FillMetricPage(&page, pts, more, snapshot, offset, q.Limit); err != nil {
		return page, err
	}
	return page, nil
}

func scanPoint(rows *sql.Rows) (warehouse.MetricPoint, error) {
	var (
		p             warehouse.MetricPoint
		b             sql.NullBool
		n             sql.NullFloat64
		e             sql.NullString
		labels, attrs string
	)
	if err := rows.Scan(&p.Environment, &p.OrganizationID, &p.MetricName, &p.Source, &p.EventTime, &b, &n, &e,
		&p.TraceID, &p.SpanID, &labels, &attrs); err != nil {
		return p, mapErr(err)
	}
	if b.Valid {
		p.BoolValue = &b.Bool
	}
	if n.Valid {
		p.NumericValue = &n.Float64
	}
	if e.Valid {
		p.EnumValue = &e.String
	}
	var err error
	if p.Labels, err = decodeMap(labels); err != nil {
		return p, fmt.Errorf("point labels: %w", err)
	}
	if p.Attributes, err = decodeMap(attrs); err != nil {
		return p, fmt.Errorf("point attributes: %w", err)
	}
	return p, nil
}
