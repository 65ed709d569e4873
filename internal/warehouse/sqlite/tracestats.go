package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// Trace stats (warehouse.TraceStatReader), migration 00002: trace_stats
// holds one row per environment and trace with its earliest start, latest
// end, spans, error spans, tokens and cost, changed in the transaction of
// every span write and retention delete. A row whose spans all left is
// deleted.

// Statements of writeTraceStats. A trace counts in trace_counts in the
// hour of its start (count_hour); a write that brings an earlier span of
// another hour moves it. A write reads the rows of its traces first and
// decides in Go: new traces are plain multi-row inserts, known ones
// updates of one row each. (An upsert of many rows made SQLite keep a
// statement journal, a copy of every 16 KB page the statement touched,
// and flush the full-text index at its savepoint: ~45 % of the trace
// stats' CPU.)
const (
	selectTraceStatsSQL = `SELECT trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd, count_hour
		FROM trace_stats WHERE environment = ? AND trace_id IN (SELECT value FROM json_each(?))`
	insertTraceStatSQL = `INSERT OR FAIL INTO trace_stats
		(environment, trace_id, start_ms, end_ms, latency_ms, spans, errors, tokens, cost_usd, count_hour) VALUES `
	traceStatColumnsWritten = 10
	updateTraceStatSQL      = `UPDATE OR FAIL trace_stats SET start_ms = ?, end_ms = ?, latency_ms = ?, spans = ?,
		errors = ?, tokens = ?, cost_usd = ?, count_hour = ? WHERE environment = ? AND trace_id = ?`
	deleteTraceStatSQL  = `DELETE FROM trace_stats WHERE environment = ? AND trace_id = ?`
	upsertTraceCountSQL = `INSERT INTO trace_counts (environment, hour, n) VALUES (?, ?, ?)
		ON CONFLICT (environment, hour) DO UPDATE SET n = n + excluded.n`
	dropEmptyTraceCountSQL = `DELETE FROM trace_counts WHERE environment = ? AND hour = ? AND n <= 0`
)

// traceCountKey is a trace_counts row.
type traceCountKey struct {
	env  string
	hour int64
}

// storedTraceStat is a trace_stats row as a write found it.
type storedTraceStat struct {
	warehouse.TraceStatValues
	hour int64 // count_hour
}

// writeTraceStats applies c's changes to trace_stats and trace_counts
// within tx: a new trace is inserted and counted in its start's hour, a
// known one updated (and moved to an earlier hour when the write brings
// an earlier span), one left without spans deleted and uncounted.
func writeTraceStats(ctx context.Context, tx *sql.Tx, stmts *stmtCache, c *warehouse.TraceStatChanges) error {
	keys := make([]warehouse.TraceStatKey, 0, len(c.Rows))
	for k := range c.Rows {
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil
	}
	slices.SortFunc(keys, func(a, b warehouse.TraceStatKey) int {
		return cmp.Or(cmp.Compare(a.Environment, b.Environment), cmp.Compare(a.TraceID, b.TraceID))
	})
	stored, err := readStoredTraceStats(ctx, tx, stmts, keys)
	if err != nil {
		return fmt.Errorf("trace stats: %w", err)
	}
	counts := map[traceCountKey]int64{}
	inserts := newRowInserter(tx, stmts, insertTraceStatSQL, traceStatColumnsWritten, rowsPerInsert)
	var update *sql.Stmt // for tx, at the first known trace
	for _, k := range keys {
		v := c.Rows[k]
		old, ok := stored[k]
		if !ok {
			if v.Spans <= 0 {
				continue // no row: nothing to take spans off
			}
			hour := index.HourOf(v.StartMs)
			if err := inserts.add(ctx, k.Environment, k.TraceID, v.StartMs, v.EndMs, v.LatencyMs(), v.Spans, v.Errors,
				v.Tokens, v.CostUSD, hour); err != nil {
				return fmt.Errorf("trace stats: %w", err)
			}
			counts[traceCountKey{k.Environment, hour}]++
			continue
		}
		n := warehouse.TraceStatValues{StartMs: min(old.StartMs, v.StartMs), EndMs: max(old.EndMs, v.EndMs),
			Spans: old.Spans + v.Spans, Errors: old.Errors + v.Errors, Tokens: old.Tokens + v.Tokens, CostUSD: old.CostUSD + v.CostUSD}
		if n.Spans <= 0 {
			if err := execIn(ctx, tx, stmts, deleteTraceStatSQL, k.Environment, k.TraceID); err != nil {
				return fmt.Errorf("trace stats: %w", err)
			}
			counts[traceCountKey{k.Environment, old.hour}]--
			continue
		}
		hour := min(old.hour, index.HourOf(v.StartMs))
		if update == nil {
			if update, err = stmts.in(ctx, tx, updateTraceStatSQL); err != nil {
				return fmt.Errorf("trace stats: %w", err)
			}
		}
		if _, err := update.ExecContext(ctx, n.StartMs, n.EndMs, n.LatencyMs(), n.Spans, n.Errors, n.Tokens,
			n.CostUSD, hour, k.Environment, k.TraceID); err != nil {
			return fmt.Errorf("trace stats: %w", err)
		}
		if hour != old.hour {
			counts[traceCountKey{k.Environment, old.hour}]--
			counts[traceCountKey{k.Environment, hour}]++
		}
	}
	if err := inserts.flush(ctx); err != nil {
		return fmt.Errorf("trace stats: %w", err)
	}
	return writeTraceCounts(ctx, tx, stmts, counts)
}

// readStoredTraceStats returns the trace_stats rows of keys (sorted by
// environment) that exist.
func readStoredTraceStats(ctx context.Context, tx *sql.Tx, stmts *stmtCache, keys []warehouse.TraceStatKey) (map[warehouse.TraceStatKey]storedTraceStat, error) {
	out := make(map[warehouse.TraceStatKey]storedTraceStat, len(keys))
	for lo := 0; lo < len(keys); {
		env := keys[lo].Environment
		ids := []byte{'['}
		hi := lo
		for ; hi < len(keys) && keys[hi].Environment == env; hi++ {
			if hi > lo {
				ids = append(ids, ',')
			}
			ids = appendJSONString(ids, keys[hi].TraceID)
		}
		lo = hi
		sel, err := stmts.in(ctx, tx, selectTraceStatsSQL)
		if err != nil {
			return nil, err
		}
		rows, err := sel.QueryContext(ctx, env, string(append(ids, ']')))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r storedTraceStat
			k := warehouse.TraceStatKey{Environment: env}
			if err := rows.Scan(&k.TraceID, &r.StartMs, &r.EndMs, &r.Spans, &r.Errors, &r.Tokens, &r.CostUSD, &r.hour); err != nil {
				rows.Close()
				return nil, err
			}
			out[k] = r
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// execIn runs one of the writer's statements, compiled once, within tx.
func execIn(ctx context.Context, tx *sql.Tx, stmts *stmtCache, query string, args ...any) error {
	st, err := stmts.in(ctx, tx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// writeTraceCounts applies the trace_counts changes within tx, in key
// order; an hour left with no trace loses its row.
func writeTraceCounts(ctx context.Context, tx *sql.Tx, stmts *stmtCache, counts map[traceCountKey]int64) error {
	keys := make([]traceCountKey, 0, len(counts))
	for k, n := range counts {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b traceCountKey) int { return cmp.Or(cmp.Compare(a.env, b.env), cmp.Compare(a.hour, b.hour)) })
	for _, k := range keys {
		st, err := stmts.in(ctx, tx, upsertTraceCountSQL)
		if err != nil {
			return fmt.Errorf("trace counts: %w", err)
		}
		if _, err := st.ExecContext(ctx, k.env, k.hour, counts[k]); err != nil {
			return fmt.Errorf("trace counts: %w", err)
		}
		if counts[k] > 0 {
			continue
		}
		if err := execIn(ctx, tx, stmts, dropEmptyTraceCountSQL, k.env, k.hour); err != nil {
			return fmt.Errorf("trace counts: %w", err)
		}
	}
	return nil
}

// traceSorts are each sort key's value in SQL and the index ordered by
// it (migration 00002).
var traceSorts = map[warehouse.TraceSortKey]struct{ expr, index string }{
	warehouse.TraceSortStart:   {"start_ms", "trace_stats_by_start"},
	warehouse.TraceSortLatency: {"latency_ms", "trace_stats_by_latency"},
	warehouse.TraceSortTokens:  {"tokens", "trace_stats_by_tokens"},
	warehouse.TraceSortCost:    {"cost_usd", "trace_stats_by_cost"},
}

// defaultTraceWalk bounds the index entries a sorted page is expected to
// walk (the environment's traces over the range's, times the page): a
// range narrower than that for the environment's history is read on the
// start index and sorted instead.
const defaultTraceWalk = 20000

// traceRange is the WHERE clause of envs and the range of starts.
func traceRange(envs []string, from, to int64) (string, []any) {
	where := "environment IN (" + placeholders(len(envs)) + ") AND start_ms >= ?"
	args := append(asArgs(envs), from)
	if to != 0 {
		where += " AND start_ms <= ?"
		args = append(args, to)
	}
	return where, args
}

const traceStatColumns = `environment, trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd`

// ReadTraceStats implements warehouse.Backend. For one environment whose
// traces the range holds a fair share of, it walks the sort key's index
// from the cursor, checking the range on the index entries; for a narrow
// range (the environment's traces over the range's, times the page, more
// than Options.traceWalk) or several environments it reads the range on
// the start index and sorts it.
func (s *Store) ReadTraceStats(ctx context.Context, r warehouse.TraceStatRead) ([]warehouse.TraceStat, error) {
	if err := s.checkOpen("read trace stats"); err != nil {
		return nil, err
	}
	sort, ok := traceSorts[r.SortBy]
	if !ok || len(r.Environments) == 0 || r.Limit < 1 {
		return nil, fmt.Errorf("read trace stats: sort key %q, %d environments, limit %d", r.SortBy, len(r.Environments), r.Limit)
	}
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read trace stats: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	index := "trace_stats_by_start"
	if len(r.Environments) == 1 {
		walk, err := expectedTraceWalk(ctx, tx, r)
		if err != nil {
			return nil, err
		}
		if walk <= int64(s.traceWalk) {
			index = sort.index
		}
	}
	dir, cmpOp := "ASC", ">"
	if r.Desc {
		dir, cmpOp = "DESC", "<"
	}
	where, args := traceRange(r.Environments, r.FromMs, r.ToMs)
	if r.After != nil {
		where += fmt.Sprintf(" AND (%s, trace_id) %s (?, ?)", sort.expr, cmpOp)
		args = append(args, r.After.Value, r.After.TraceID)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+traceStatColumns+` FROM trace_stats INDEXED BY `+index+` WHERE `+where+
		fmt.Sprintf(" ORDER BY %s %s, trace_id %s LIMIT ?", sort.expr, dir, dir), append(args, r.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("read trace stats: %w", mapErr(err))
	}
	defer rows.Close()
	out, err := warehouse.ScanTraceStats(rows)
	if err != nil {
		return nil, fmt.Errorf("read trace stats: %w", mapErr(err))
	}
	return out, nil
}

// expectedTraceWalk estimates how many index entries a page of r (one
// environment) walks: the environment's traces over the range's, times
// the page, from trace_counts (the range rounded out to whole hours).
func expectedTraceWalk(ctx context.Context, q querier, r warehouse.TraceStatRead) (int64, error) {
	to := index.HourOf(r.ToMs)
	if r.ToMs == 0 {
		to = math.MaxInt64
	}
	var inRange, all sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT sum(n) FILTER (WHERE hour BETWEEN ? AND ?), sum(n) FROM trace_counts WHERE environment = ?`,
		index.HourOf(r.FromMs), to, r.Environments[0]).Scan(&inRange, &all); err != nil {
		return 0, fmt.Errorf("read trace stats: %w", mapErr(err))
	}
	if inRange.Int64 <= 0 {
		return math.MaxInt64, nil
	}
	return all.Int64 / inRange.Int64 * int64(r.Limit), nil
}

// CountTraces implements warehouse.Backend.
func (s *Store) CountTraces(ctx context.Context, envs []string, from, to int64) (int64, error) {
	if err := s.checkOpen("count traces"); err != nil {
		return 0, err
	}
	if len(envs) == 0 {
		return 0, nil
	}
	// One read transaction: trace_counts and trace_stats agree.
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("count traces: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	var total int64
	for _, env := range envs {
		n, err := countSplit(from, to, index.HourMs, func(first, last int64) (int64, error) {
			var sum sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT sum(n) FROM trace_counts WHERE environment = ? AND hour BETWEEN ? AND ?`,
				env, first, last).Scan(&sum); err != nil {
				return 0, fmt.Errorf("count traces: %w", mapErr(err))
			}
			return sum.Int64, nil
		}, func(from, to int64) (int64, error) {
			where, args := traceRange([]string{env}, from, to)
			var n int64
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM trace_stats WHERE `+where, args...).Scan(&n); err != nil {
				return 0, fmt.Errorf("count traces: %w", mapErr(err))
			}
			return n, nil
		})
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
