package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// insertPointSQL starts the insert of metric points; rowInserter adds
// the VALUES rows. OR FAIL: a failed row fails the whole transaction
// anyway, and without ABORT's undo of the statement SQLite keeps no
// statement journal (a copy of every page a multi-row INSERT touches).
const insertPointSQL = `INSERT OR FAIL INTO metric_points (seq, environment, organization_id, metric_name, source, event_time,
	bool_value, numeric_value, enum_value, trace_id, span_id, labels, attributes) VALUES `

// pointColumns is the number of columns insertPointSQL names.
const pointColumns = 13

const selectPointColumns = `environment, organization_id, metric_name, source, event_time, bool_value,
	numeric_value, enum_value, trace_id, span_id, labels, attributes`

// WriteMetricPoints stores points in one transaction.
func (s *Store) WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) (err error) {
	defer s.writes.note(&err)
	if err := s.checkOpen("write metric points"); err != nil {
		return err
	}
	if len(pts) == 0 {
		return nil
	}
	s.lastWrite.Store(time.Now().UnixNano())
	// Encoding needs no lock: before the transaction (or already done by
	// PreparePoints on the caller's goroutine).
	var labelsEnc, attrsEnc lastEncoding
	preps := make([]*preparedPoint, len(pts))
	keys := make([]timedKey, len(pts))
	for i := range pts {
		preps[i] = preparedPointOf(&pts[i], &labelsEnc, &attrsEnc)
		keys[i] = timedKey{pts[i].EventTime, preps[i].key}
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write metric points: begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	rows := newRowInserter(tx, s.stmts, insertPointSQL, pointColumns, rowsPerInsert)
	defer rows.close()
	fresh, err := insertKeys(ctx, tx, s.stmts, pointKeysTable, keys, nil)
	if err != nil {
		return fmt.Errorf("write metric points: %w", mapErr(err))
	}
	// Numbered above the high-water mark, never reusing a number of a
	// deleted point (retention.go).
	var seq int64
	if err := tx.QueryRowContext(ctx, pointsHighWater).Scan(&seq); err != nil {
		return fmt.Errorf("write metric points: next sequence: %w", mapErr(err))
	}
	lists := newPostings(pointPostingTables, seq+1)
	// The label postings and the counts leave out the same keys.
	uncounted := &uncountedKeySets{q: tx}
	labels := labelLists{uncounted: uncounted}
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
		seq++
		if err := rows.add(ctx, seq, p.Environment, p.OrganizationID, p.MetricName, p.Source, p.EventTime,
			b, n, e, p.TraceID, p.SpanID, preps[i].labels, preps[i].attributes); err != nil {
			return fmt.Errorf("write metric points: points up to %d: %w", i, mapErr(err))
		}
		hashes, err := labels.of(ctx, p.Environment, preps[i])
		if err != nil {
			return fmt.Errorf("write metric points: %w", err)
		}
		lists.add(seq, p.Environment, p.EventTime, hashes)
	}
	if err := rows.flush(ctx); err != nil {
		return fmt.Errorf("write metric points: %w", mapErr(err))
	}
	if err := lists.write(ctx, tx, s.stmts); err != nil {
		return fmt.Errorf("write metric points: label postings: %w", mapErr(err))
	}
	if err := countPointChanges(ctx, tx, s.stmts, s.countedValues, pts, 1, fresh, uncounted); err != nil {
		return fmt.Errorf("write metric points: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write metric points: commit: %w", mapErr(err))
	}
	s.checkpoints.poke()
	s.merges.poke()
	return nil
}

// ReadMetricPoints answers one page of a metric query
// (warehouse.Backend) in one read transaction: the snapshot is the
// high-water mark of points (the highest sequence number stored or
// reserved), pages are read by offset within it, by the access paths of
// pointplan.go. With a retention, points older than the pagination's
// cutoff are hidden (retention.go), so offsets do not shift when they are
// deleted.
func (s *Store) ReadMetricPoints(ctx context.Context, r warehouse.MetricRead) (warehouse.MetricRows, error) {
	tx, err := s.readTx(ctx, "read metric points")
	if err != nil {
		return warehouse.MetricRows{}, err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	q := r.Query
	if !r.First {
		// A snapshot is a high-water mark this store had: a later one was
		// made up (it would page through nothing, an empty 200).
		var high int64
		if err := tx.QueryRowContext(ctx, pointsHighWater).Scan(&high); err != nil {
			return warehouse.MetricRows{}, fmt.Errorf("read metric points: snapshot: %w", mapErr(err))
		}
		if r.Snapshot > high {
			return warehouse.MetricRows{}, warehouse.ForeignMetricCursor(q.Cursor)
		}
	}
	snapshot, ok, err := s.pageWindow(ctx, tx, "read metric points", pointsRetention, r.First, r.Snapshot, &q.FromMs, q.ToMs)
	out := warehouse.MetricRows{Snapshot: snapshot}
	if err != nil || !ok {
		return out, err // !ok: the whole range is out of the retention
	}
	if !s.plainPointReads {
		// The same matches, as in-lists the counts and postings answer.
		if q, err = resolvePointFilters(ctx, tx, q); err != nil {
			return out, err
		}
	}
	w := dialect.MetricSelection(q)
	w.Add("seq <= ?", snapshot)
	// The plan (pointplan.go); plain reads take SQLite's order.
	plan := pointRead{PointPlan: index.PointPlan{Label: -1}}
	if !s.plainPointReads {
		if plan, err = planPoints(ctx, tx, q, r.Offset+int64(r.Limit), snapshot); err != nil {
			return out, err
		}
	}
	// candidates: q's selection narrowed to the points a label filter's
	// postings name (pointpostings.go), when they are few.
	var candidates *sqlfilter.Where
	var seqs []int64
	switch plan.Access {
	case index.PointCandidates:
		candidates = &sqlfilter.Where{Conds: append(slices.Clone(w.Conds), plan.candidates),
			Args: append(slices.Clone(w.Args), plan.candArgs...)}
		out.Points, out.Cut, err = readPointPage(ctx, tx, pointPageSQLFrom(q, candidatesTable, candidates.SQL()),
			append(slices.Clone(candidates.Args), r.Limit, r.Offset), r.MaxBytes)
	case index.PointValueMerge:
		if seqs, err = mergeByValue(ctx, tx, q, w, plan.hours, r.Offset, r.Limit); err == nil {
			out.Points, out.Cut, err = readPointsBySeq(ctx, tx, seqs, r.MaxBytes)
		}
	case index.PointNameIndex:
		if seqs, err = pageByName(ctx, tx, q, w, r.Offset, r.Limit); err == nil {
			out.Points, out.Cut, err = readPointsBySeq(ctx, tx, seqs, r.MaxBytes)
		}
	default:
		out.Points, out.Cut, err = readPointPage(ctx, tx, pointPageSQL(q, w.SQL()),
			append(slices.Clone(w.Args), r.Limit, r.Offset), r.MaxBytes)
	}
	if err != nil {
		return out, err
	}
	if r.NeedsCount(len(out.Points), out.Cut) {
		if s.plainPointReads {
			out.Total, err = countPointsWhere(ctx, tx, "metric_points", w.SQL(), w.Args)
		} else {
			out.Total, err = countPoints(ctx, tx, q, w, candidates, snapshot)
		}
		if err != nil {
			return out, fmt.Errorf("count: %w", err)
		}
	}
	return out, nil
}

// readPointPage reads the page of points whose sequence numbers query
// selects, in its order, as far as maxBytes goes (readPointsBySeq): SQLite
// sorts only (sort key, seq), never whole points (a page of large
// attributes, or the offset's points, would sit in its sorter).
func readPointPage(ctx context.Context, tx *sql.Tx, query string, args []any, maxBytes int64) (_ []warehouse.MetricPoint, cut bool, _ error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, false, mapErr(err)
	}
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return nil, false, mapErr(err)
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Close(); err != nil {
		return nil, false, mapErr(err)
	}
	if err := rows.Err(); err != nil {
		return nil, false, mapErr(err)
	}
	return readPointsBySeq(ctx, tx, seqs, maxBytes)
}

// pointBytesSQL is the size of a row of metric_points as a page counts it
// (the lengths of its stored texts), read from the record header.
const pointBytesSQL = `octet_length(labels) + octet_length(attributes) + octet_length(trace_id) + octet_length(span_id) +
	coalesce(octet_length(enum_value), 0)`

// scanPoint reads a row of selectPointColumns, after the columns of
// leading (when a query selects more before them).
func scanPoint(rows *sql.Rows, leading ...any) (warehouse.MetricPoint, error) {
	var (
		p             warehouse.MetricPoint
		b             sql.NullBool
		n             sql.NullFloat64
		e             sql.NullString
		labels, attrs string
	)
	if err := rows.Scan(append(leading, &p.Environment, &p.OrganizationID, &p.MetricName, &p.Source, &p.EventTime, &b, &n, &e,
		&p.TraceID, &p.SpanID, &labels, &attrs)...); err != nil {
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
