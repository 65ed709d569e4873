package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// Retention on SQLite (README.md, "Retention"): a background job deletes
// spans and metric points older than the retention in small batches, each
// its own short write transaction, pausing between batches so that writes
// never wait long. Every run first records a mark in retention_marks
// (cutoff, reserved sequence number, time): queries hide the rows older
// than the cutoff of the newest mark within their pagination's snapshot,
// and rows are deleted only below the cutoff of a mark older than the
// grace period, so a pagination shorter than the grace sees the same rows
// on every page.

// retentionTable describes one pruned table.
type retentionTable struct {
	name     string // spans or metric_points
	timeCol  string // the column ages are measured on
	keyTable string // its dedup keys by time (spanKeysTable, pointKeysTable)
}

var (
	spansRetention  = retentionTable{name: "spans", timeCol: "timestamp", keyTable: spanKeysTable}
	pointsRetention = retentionTable{name: "metric_points", timeCol: "event_time", keyTable: pointKeysTable}
)

// Pruning pace: rows per delete transaction, and the pause after each
// batch as a multiple of the batch's duration (at least minPrunePause),
// which bounds the job's share of the single writer to about 1/(1+19),
// 5 %: ingest keeps the writer nearly all the time, and the job still
// deletes a few thousand rows a second (more than a collector ingests on
// average).
const (
	pruneBatch       = 500
	prunePauseFactor = 19
	minPrunePause    = 10 * time.Millisecond
	minIdlePause     = time.Millisecond
)

// highWaterSQL returns the statement reading a table's high-water mark:
// the highest sequence number it holds or any retention mark reserved.
// New rows are numbered above it.
func highWaterSQL(table string) string {
	return `SELECT max(coalesce((SELECT max(seq) FROM ` + table + `), 0),
		coalesce((SELECT max(seq) FROM retention_marks WHERE tbl = '` + table + `'), 0))`
}

// Statements of the two tables' high-water marks.
var (
	spansHighWater  = highWaterSQL(spansRetention.name)
	pointsHighWater = highWaterSQL(pointsRetention.name)
)

// pageWindow prepares a page of table t (op names the read for errors):
// it returns the pagination's snapshot (taken now, the high-water mark,
// on a first page) and raises *from to the pagination's retention cutoff;
// ok is false when the whole range [*from, to] (to 0: open) is out of the
// retention.
func (s *Store) pageWindow(ctx context.Context, q querier, op string, t retentionTable, first bool, snapshot int64, from *int64, to int64) (snap int64, ok bool, err error) {
	if err := s.checkOpen(op); err != nil {
		return 0, false, err
	}
	if first {
		if err := q.QueryRowContext(ctx, highWaterSQL(t.name)).Scan(&snapshot); err != nil {
			return 0, false, fmt.Errorf("snapshot: %w", mapErr(err))
		}
	}
	keep := s.retention.Spans
	if t.name == pointsRetention.name {
		keep = s.retention.MetricPoints
	}
	cutoff, err := retentionCutoff(ctx, q, t.name, keep, snapshot)
	if err != nil {
		return snapshot, false, err
	}
	*from = max(*from, cutoff)
	return snapshot, to == 0 || to >= *from, nil
}

// retentionCutoff returns the cutoff (Unix ms) below which a pagination
// with snapshot snap hides rows of table, 0 when none: the cutoff of the
// newest mark at or below the snapshot. Without a retention for the table
// nothing is hidden.
func retentionCutoff(ctx context.Context, q querier, table string, keep time.Duration, snap int64) (int64, error) {
	if keep <= 0 {
		return 0, nil
	}
	var cutoff int64
	err := q.QueryRowContext(ctx, `SELECT cutoff FROM retention_marks WHERE tbl = ? AND seq <= ?
		ORDER BY seq DESC LIMIT 1`, table, snap).Scan(&cutoff)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("retention cutoff: %w", mapErr(err))
	}
	return cutoff, nil
}

// Prune runs one pruning pass over both tables (warehouse.Pruner).
func (s *Store) Prune(ctx context.Context) (warehouse.Pruned, error) {
	var out warehouse.Pruned
	if err := s.checkOpen("prune"); err != nil {
		return out, err
	}
	r := s.retention
	if r.Spans > 0 {
		n, bound, err := s.pruneTable(ctx, spansRetention, r.Spans, r.Grace)
		out.Spans = n
		if err == nil && bound != 0 {
			err = s.pruneRuns(ctx, spanPostingTables, bound)
		}
		if err == nil && bound != 0 {
			err = s.pruneValues(ctx, bound)
		}
		if err != nil {
			return out, fmt.Errorf("prune spans: %w", err)
		}
	}
	if r.MetricPoints > 0 {
		n, bound, err := s.pruneTable(ctx, pointsRetention, r.MetricPoints, r.Grace)
		out.MetricPoints = n
		if err == nil && bound != 0 {
			err = s.pruneRuns(ctx, pointPostingTables, bound)
		}
		if err != nil {
			return out, fmt.Errorf("prune metric points: %w", err)
		}
	}
	return out, nil
}

// pruneTable records this run's mark of t and deletes, batch by batch,
// the rows older than the deletion bound (the cutoff of the newest mark at
// least grace old) that were stored before this run. It returns how many
// rows it deleted and the bound (0: nothing was old enough yet).
func (s *Store) pruneTable(ctx context.Context, t retentionTable, keep, grace time.Duration) (deleted, bound int64, err error) {
	now := time.Now()
	mark, bound, err := s.recordMark(ctx, t, now.Add(-keep).UnixMilli(), now.UnixMilli(), now.Add(-grace).UnixMilli())
	if err != nil || bound == 0 {
		return 0, bound, err
	}
	envs, err := s.environments(ctx, t.name)
	if err != nil {
		return 0, bound, err
	}
	for _, env := range envs {
		for {
			n, held, err := s.deleteBatch(ctx, t, env, bound, mark)
			deleted += int64(n)
			if err != nil {
				return deleted, bound, err
			}
			if n < pruneBatch {
				break
			}
			if err := s.pausePruning(ctx, held); err != nil {
				return deleted, bound, err
			}
		}
	}
	return deleted, bound, nil
}

// writerIdle is how long after the last write the writer counts as idle.
const writerIdle = time.Second

// pausePruning waits after a batch that held the writer for held: while
// spans or points are being written, prunePauseFactor times that (at
// least minPrunePause), so that writes get the single write connection
// nearly all the time; when nothing was written for writerIdle, only
// minIdlePause, so an idle store deletes at full speed.
func (s *Store) pausePruning(ctx context.Context, held time.Duration) error {
	pause := max(minPrunePause, prunePauseFactor*held)
	if time.Since(time.Unix(0, s.lastWrite.Load())) > writerIdle {
		pause = minIdlePause
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(pause):
		return nil
	}
}

// recordMark inserts this run's mark of t (one above the high-water mark,
// cutoff, now) and drops the marks no pagination within the grace period
// can use, in one transaction. It returns the mark's sequence number and
// the deletion bound: the cutoff of the newest mark made at or before
// graceAt (0: none yet).
func (s *Store) recordMark(ctx context.Context, t retentionTable, cutoff, now, graceAt int64) (mark, bound int64, err error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if err := tx.QueryRowContext(ctx, highWaterSQL(t.name)).Scan(&mark); err != nil {
		return 0, 0, fmt.Errorf("high-water mark: %w", mapErr(err))
	}
	mark++
	if _, err := tx.ExecContext(ctx, `INSERT INTO retention_marks (tbl, seq, cutoff, at) VALUES (?, ?, ?, ?)`,
		t.name, mark, cutoff, now); err != nil {
		return 0, 0, fmt.Errorf("record mark: %w", mapErr(err))
	}
	var boundSeq int64
	err = tx.QueryRowContext(ctx, `SELECT seq, cutoff FROM retention_marks WHERE tbl = ? AND at <= ?
		ORDER BY seq DESC LIMIT 1`, t.name, graceAt).Scan(&boundSeq, &bound)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		bound = 0
	case err != nil:
		return 0, 0, fmt.Errorf("deletion bound: %w", mapErr(err))
	default:
		// Older marks serve only paginations older than the grace period.
		if _, err := tx.ExecContext(ctx, `DELETE FROM retention_marks WHERE tbl = ? AND seq < ?`, t.name, boundSeq); err != nil {
			return 0, 0, fmt.Errorf("drop old marks: %w", mapErr(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, fmt.Errorf("commit mark: %w", mapErr(err))
	}
	return mark, bound, nil
}

// environments lists the environments of table, one index seek each (a
// loose scan of the (environment, time) index).
func (s *Store) environments(ctx context.Context, table string) ([]string, error) {
	out, err := queryColumn[string](ctx, s.reader, `WITH RECURSIVE envs(env) AS (
			SELECT min(environment) FROM `+table+`
			UNION ALL
			SELECT (SELECT min(environment) FROM `+table+` WHERE environment > env) FROM envs WHERE env IS NOT NULL)
		SELECT env FROM envs WHERE env IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("environments: %w", err)
	}
	return out, nil
}

// deleteBatch deletes up to pruneBatch rows of env in t older than bound
// and numbered below mark, with their dedup keys, in one transaction; it
// returns how many it deleted and how long it held the writer.
func (s *Store) deleteBatch(ctx context.Context, t retentionTable, env string, bound, mark int64) (n int, held time.Duration, err error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("begin: %w", mapErr(err))
	}
	start := time.Now()
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	n, err = s.deleteRows(ctx, tx, t, env, bound, mark)
	if err != nil || n == 0 {
		return 0, time.Since(start), err
	}
	if err := tx.Commit(); err != nil {
		return 0, time.Since(start), fmt.Errorf("commit: %w", mapErr(err))
	}
	return n, time.Since(start), nil
}

// deleteRows deletes, within tx, up to pruneBatch rows of env in t older
// than bound and numbered below mark, with their dedup keys.
func (s *Store) deleteRows(ctx context.Context, tx *sql.Tx, t retentionTable, env string, bound, mark int64) (int, error) {
	seqs, keys, pts, err := expiredRows(ctx, tx, t, env, bound, mark)
	if err != nil || len(seqs) == 0 {
		return 0, err
	}
	if t.name == spansRetention.name {
		if err := takeOffEvaluationCounts(ctx, tx, env, seqs); err != nil {
			return 0, err
		}
		if err := s.takeOffSpans(ctx, tx, seqs); err != nil {
			return 0, err
		}
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+t.name+" WHERE seq IN ("+placeholders(len(seqs))+")", asArgs(seqs)...); err != nil {
		return 0, fmt.Errorf("delete: %w", mapErr(err))
	}
	timed := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		timed = append(timed, k.ts, k.key)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+t.keyTable+" WHERE (ts, key) IN (VALUES "+
		strings.TrimSuffix(strings.Repeat("(?, ?), ", len(keys)), ", ")+")", timed...); err != nil {
		return 0, fmt.Errorf("delete keys: %w", mapErr(err))
	}
	if t.name == spansRetention.name {
		if _, err := tx.ExecContext(ctx, "DELETE FROM span_text WHERE rowid IN ("+placeholders(len(seqs))+")", asArgs(seqs)...); err != nil {
			return 0, fmt.Errorf("delete search index: %w", mapErr(err))
		}
		var counts minuteCounts
		for _, k := range keys {
			counts.add(env, k.ts, -1)
		}
		if err := counts.write(ctx, tx, nil); err != nil {
			return 0, mapErr(err)
		}
	} else if err := countPointChanges(ctx, tx, nil, 0, pts, -1, nil, nil); err != nil { // only takes off: no key grows
		return 0, err
	}
	return len(seqs), nil
}

// expiredRows reads the oldest rows of env in t older than bound and
// numbered below mark (by the (environment, time) index): their sequence
// numbers, dedup keys and, of metric points, the points.
func expiredRows(ctx context.Context, tx *sql.Tx, t retentionTable, env string, bound, mark int64) (seqs []int64, keys []timedKey, pts []warehouse.MetricPoint, err error) {
	cols := "seq, timestamp, trace_id, span_id"
	if t.name == pointsRetention.name {
		cols = "seq, " + selectPointColumns
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+cols+" FROM "+t.name+" WHERE environment = ? AND "+t.timeCol+" < ? AND seq < ?"+
		" ORDER BY "+t.timeCol+" LIMIT ?", env, bound, mark, pruneBatch)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("expired rows: %w", mapErr(err))
	}
	defer rows.Close()
	var labelsEnc, attrsEnc lastEncoding
	for rows.Next() {
		var seq int64
		var key timedKey
		if t.name == pointsRetention.name {
			p, err := scanPoint(rows, &seq)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("expired rows: %w", err)
			}
			key = timedKey{p.EventTime, pointKey(&p, labelsEnc.encode(p.Labels), attrsEnc.encode(p.Attributes))}
			pts = append(pts, p)
		} else {
			var traceID, spanID string
			if err := rows.Scan(&seq, &key.ts, &traceID, &spanID); err != nil {
				return nil, nil, nil, fmt.Errorf("expired rows: %w", mapErr(err))
			}
			key.key = dedupKey(env, traceID, spanID)
		}
		seqs, keys = append(seqs, seq), append(keys, key)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("expired rows: %w", mapErr(err))
	}
	return seqs, keys, pts, nil
}

// deleteInBatches runs query (a DELETE whose last parameter is its batch
// size) with args and pruneBatch until a batch deletes fewer rows,
// pausing between batches (pausePruning).
func (s *Store) deleteInBatches(ctx context.Context, query string, args ...any) error {
	args = append(args, pruneBatch)
	for {
		start := time.Now()
		res, err := s.writer.ExecContext(ctx, query, args...)
		if err != nil {
			return mapErr(err)
		}
		if n, _ := res.RowsAffected(); n < pruneBatch {
			return nil
		}
		if err := s.pausePruning(ctx, time.Since(start)); err != nil {
			return err
		}
	}
}

// pruneValues deletes, in batches, the value dictionary's rows of the
// hours wholly before bound, and has the writer's cache forget what it
// recorded (a late span of such an hour records its values again).
func (s *Store) pruneValues(ctx context.Context, bound int64) error {
	defer s.values.reset()
	for _, t := range []struct{ table, key string }{{"span_values", "hour, key_hash, seq"},
		{"span_value_gaps", "hour, key_hash"}} {
		if err := s.deleteInBatches(ctx, `DELETE FROM `+t.table+` WHERE (`+t.key+`) IN
			(SELECT `+t.key+` FROM `+t.table+` WHERE hour < ? LIMIT ?)`, index.HourOf(bound)); err != nil {
			return fmt.Errorf("attribute values: %w", err)
		}
	}
	return nil
}

// pruneRuns deletes the runs of t that list only rows older than bound
// (the deletion bound just applied to their table). Every row they list
// is deleted, or hidden from every pagination and deleted by the next run.
func (s *Store) pruneRuns(ctx context.Context, t index.PostingTables, bound int64) error {
	for {
		var run int64
		err := s.writer.QueryRowContext(ctx, `SELECT run FROM `+t.Runs+` WHERE max_ts < ? ORDER BY run LIMIT 1`, bound).Scan(&run)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.Runs, mapErr(err))
		}
		if err := s.deleteRun(ctx, t, run); err != nil {
			return err
		}
	}
}

// deleteRun deletes a run of t, its rows in batches (the last batch with
// the run's own row).
func (s *Store) deleteRun(ctx context.Context, t index.PostingTables, run int64) error {
	if err := s.deleteInBatches(ctx, `DELETE FROM `+t.Lists+` WHERE (run, environment, hash, base) IN
		(SELECT run, environment, hash, base FROM `+t.Lists+` WHERE run = ? LIMIT ?)`, run); err != nil {
		return fmt.Errorf("%s run %d: %w", t.Runs, run, err)
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM `+t.Runs+` WHERE run = ?`, run); err != nil {
		return fmt.Errorf("%s run %d: %w", t.Runs, run, mapErr(err))
	}
	return nil
}
