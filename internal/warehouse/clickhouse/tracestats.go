package clickhouse

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// Trace stats (warehouse.TraceStatReader), migration 00002: trace_stats
// holds, per WriteSpans batch and trace, the stats of the spans the batch
// stored (a resend stores none, so counts nothing), sorted by start;
// readers sum a trace's rows. Retention drops its weeks with the spans'. As for the span stats,
// the rows are inserted after the spans: a failure between the two
// inserts leaves that write's spans out of the stats.

// writeTraceStats inserts the changes of c.
func (s *Store) writeTraceStats(ctx context.Context, c *warehouse.TraceStatChanges) error {
	var (
		envs, ids                         []string
		starts, ends, spans, errs, tokens []int64
		costs                             []float64
	)
	for k, v := range c.Rows {
		envs, ids = append(envs, k.Environment), append(ids, k.TraceID)
		starts, ends, spans, errs = append(starts, v.StartMs), append(ends, v.EndMs), append(spans, v.Spans), append(errs, v.Errors)
		tokens, costs = append(tokens, v.Tokens), append(costs, v.CostUSD)
	}
	if len(envs) == 0 {
		return nil
	}
	return s.insertColumns(ctx, "trace stats", "trace_stats",
		"environment, trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd",
		[]any{envs, ids, starts, ends, spans, errs, tokens, costs})
}

// traceSortExpr is each sort key's value over a trace's summed rows.
var traceSortExpr = map[warehouse.TraceSortKey]string{
	warehouse.TraceSortStart:   "s",
	warehouse.TraceSortLatency: "(e - s)",
	warehouse.TraceSortTokens:  "tk",
	warehouse.TraceSortCost:    "c",
}

// tracesOf is the SELECT of the summed trace stats of envs' traces whose
// start lies in [from, to] (to 0 = open), with extra HAVING conditions,
// or (count) of their number. It reads the rows that start within the
// trace window of the range (the table's sort key): a trace's later
// writes are taken to lie within an hour of its start
// (warehouse.DefaultTraceWindowMs), as its summary on the list is read.
// Rows are grouped by a hash of the trace id (a number groups faster than
// a string of 32 characters); the id is any of the group's.
func (s *Store) tracesOf(envs []string, from, to int64, count bool, having string, havingArgs ...any) (string, []any) {
	var w sqlfilter.Where
	w.In("environment", envs)
	w.Add("start_ms >= ?", from-warehouse.DefaultTraceWindowMs)
	h := "s >= ?"
	args := []any{from}
	if to != 0 {
		w.Add("start_ms <= ?", to+warehouse.DefaultTraceWindowMs)
		h += " AND s <= ?"
		args = append(args, to)
	}
	if having != "" {
		h += " AND " + having
		args = append(args, havingArgs...)
	}
	sel := "environment, any(trace_id) AS tid, min(start_ms) AS s, max(end_ms) AS e, sum(spans) AS n, sum(errors), sum(tokens) AS tk," +
		" sum(cost_usd) AS c"
	if count {
		sel = "min(start_ms) AS s, sum(spans) AS n"
	}
	q := "SELECT " + sel + " FROM " + s.schema.table("trace_stats") + " WHERE " + w.SQL() +
		" GROUP BY environment, cityHash64(trace_id) HAVING n > 0 AND " + h
	if count {
		q = "SELECT count() FROM (" + q + ")"
	}
	return q, append(append([]any{}, w.Args...), args...)
}

// ReadTraceStats implements warehouse.Backend.
func (s *Store) ReadTraceStats(ctx context.Context, r warehouse.TraceStatRead) ([]warehouse.TraceStat, error) {
	if err := s.ready(ctx, "read trace stats"); err != nil {
		return nil, err
	}
	expr, ok := traceSortExpr[r.SortBy]
	if !ok || len(r.Environments) == 0 {
		return nil, fmt.Errorf("read trace stats: sort key %q, %d environments", r.SortBy, len(r.Environments))
	}
	dir, cmpOp := "ASC", ">"
	if r.Desc {
		dir, cmpOp = "DESC", "<"
	}
	var having string
	var hargs []any
	if r.After != nil {
		having = fmt.Sprintf("(%s %s ? OR %s = ? AND tid %s ?)", expr, cmpOp, expr, cmpOp)
		hargs = []any{r.After.Value, r.After.Value, r.After.TraceID}
	}
	q, args := s.tracesOf(r.Environments, r.FromMs, r.ToMs, false, having, hargs...)
	rows, err := s.conn.Query(ctx, q+fmt.Sprintf(" ORDER BY %s %s, tid %s LIMIT %d", expr, dir, dir, r.Limit), args...)
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

// CountTraces implements warehouse.Backend.
func (s *Store) CountTraces(ctx context.Context, envs []string, from, to int64) (int64, error) {
	if len(envs) == 0 {
		return 0, nil
	}
	if err := s.ready(ctx, "count traces"); err != nil {
		return 0, err
	}
	q, args := s.tracesOf(envs, from, to, true, "")
	var n uint64
	if err := s.conn.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count traces: %w", mapErr(err))
	}
	return int64(n), nil
}
