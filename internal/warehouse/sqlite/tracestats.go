package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/bits"
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
// another hour moves it, and the upsert returns the hour it left
// (moved_from, set by the update only), so that one statement both
// writes the stats and tells the counts what changed.
const (
	upsertTraceStatPrefix = `INSERT INTO trace_stats
		(environment, trace_id, start_ms, end_ms, latency_ms, spans, errors, tokens, cost_usd, count_hour) VALUES `
	upsertTraceStatSuffix = ` ON CONFLICT (environment, trace_id) DO UPDATE SET start_ms = min(start_ms, excluded.start_ms),
		end_ms = max(end_ms, excluded.end_ms),
		latency_ms = max(end_ms, excluded.end_ms) - min(start_ms, excluded.start_ms),
		spans = spans + excluded.spans, errors = errors + excluded.errors,
		tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd,
		count_hour = min(count_hour, excluded.count_hour),
		moved_from = CASE WHEN excluded.count_hour < count_hour THEN count_hour END
		RETURNING environment, trace_id, spans, count_hour, moved_from`
	traceStatColumnsWritten = 10
	// traceStatsPerUpsert is the most rows of one upsert statement.
	traceStatsPerUpsert   = 64
	dropEmptyTraceStatSQL = `DELETE FROM trace_stats WHERE environment = ? AND trace_id = ? AND spans <= 0 RETURNING count_hour`
	upsertTraceCountSQL   = `INSERT INTO trace_counts (environment, hour, n) VALUES (?, ?, ?)
		ON CONFLICT (environment, hour) DO UPDATE SET n = n + excluded.n`
	dropEmptyTraceCountSQL = `DELETE FROM trace_counts WHERE environment = ? AND hour = ? AND n <= 0`
)

// upsertTraceStatSQL are the upserts of 1, 2, 4, ... traceStatsPerUpsert
// rows (index: log2 of the rows), built once: a write picks its parts'
// statements without building their text.
var upsertTraceStatSQL = func() []string {
	var out []string
	for n := 1; n <= traceStatsPerUpsert; n *= 2 {
		out = append(out, insertStatement(upsertTraceStatPrefix, traceStatColumnsWritten, n)+upsertTraceStatSuffix)
	}
	return out
}()

// traceCountKey is a trace_counts row.
type traceCountKey struct {
	env  string
	hour int64
}

// writeTraceStats applies c within tx, rows in key order, up to
// traceStatsPerUpsert a statement (in parts of a power of two rows, so
// that a few compiled statements serve every count), then the trace
// counts.
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
	counts := map[traceCountKey]int64{}
	args := make([]any, 0, traceStatsPerUpsert*traceStatColumnsWritten)
	for rest := keys; len(rest) > 0; {
		part := min(len(rest), traceStatsPerUpsert)
		part = 1 << (bits.Len(uint(part)) - 1) // the largest power of two ≤ part
		args = args[:0]
		for _, k := range rest[:part] {
			v := c.Rows[k]
			args = append(args, k.Environment, k.TraceID, v.StartMs, v.EndMs, v.LatencyMs(), v.Spans, v.Errors, v.Tokens,
				v.CostUSD, index.HourOf(v.StartMs))
		}
		rest = rest[part:]
		upsert, err := stmts.in(ctx, tx, upsertTraceStatSQL[bits.Len(uint(part))-1])
		if err != nil {
			return fmt.Errorf("trace stats: %w", err)
		}
		rows, err := upsert.QueryContext(ctx, args...)
		if err != nil {
			return fmt.Errorf("trace stats: %w", err)
		}
		if err := countTraceChanges(rows, c, counts); err != nil {
			return err
		}
	}
	var drop *sql.Stmt
	for _, k := range keys {
		if c.Rows[k].Spans >= 0 {
			continue
		}
		if drop == nil {
			var err error
			if drop, err = stmts.in(ctx, tx, dropEmptyTraceStatSQL); err != nil {
				return fmt.Errorf("trace stats: %w", err)
			}
		}
		var hour int64
		switch err := drop.QueryRowContext(ctx, k.Environment, k.TraceID).Scan(&hour); {
		case errors.Is(err, sql.ErrNoRows): // spans of the trace remain
		case err != nil:
			return fmt.Errorf("trace stats: %w", err)
		default:
			counts[traceCountKey{k.Environment, hour}]--
		}
	}
	return writeTraceCounts(ctx, tx, stmts, counts)
}

// countTraceChanges reads the rows an upsert of c's changes returned
// into counts, and closes them: a row whose spans are the change's own is
// a new trace, counted in its hour; a moved one leaves its old hour.
func countTraceChanges(rows *sql.Rows, c *warehouse.TraceStatChanges, counts map[traceCountKey]int64) error {
	defer rows.Close()
	for rows.Next() {
		var k warehouse.TraceStatKey
		var spans, hour int64
		var from sql.NullInt64
		if err := rows.Scan(&k.Environment, &k.TraceID, &spans, &hour, &from); err != nil {
			return fmt.Errorf("trace stats: %w", err)
		}
		switch v := c.Rows[k]; {
		case v.Spans > 0 && spans == v.Spans:
			counts[traceCountKey{k.Environment, hour}]++
		case from.Valid:
			counts[traceCountKey{k.Environment, from.Int64}]--
			counts[traceCountKey{k.Environment, hour}]++
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("trace stats: %w", err)
	}
	return nil
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
		if _, err := tx.ExecContext(ctx, dropEmptyTraceCountSQL, k.env, k.hour); err != nil {
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
