package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Trace stats (warehouse.TraceStatReader), migration 00032: trace_stats
// holds one row per environment and trace with its earliest start, latest
// end, spans, error spans, tokens and cost, changed in the transaction of
// every span write and retention delete. A row whose spans all left is
// deleted.

// Statements of writeTraceStats.
const (
	upsertTraceStatSQL = `INSERT INTO trace_stats
		(environment, trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (environment, trace_id) DO UPDATE SET start_ms = min(start_ms, excluded.start_ms),
		end_ms = max(end_ms, excluded.end_ms), spans = spans + excluded.spans, errors = errors + excluded.errors,
		tokens = tokens + excluded.tokens, cost_usd = cost_usd + excluded.cost_usd`
	dropEmptyTraceStatSQL = `DELETE FROM trace_stats WHERE environment = ? AND trace_id = ? AND spans <= 0`
)

// writeTraceStats applies c within tx, rows in key order.
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
	upsert, err := stmts.in(ctx, tx, upsertTraceStatSQL)
	if err != nil {
		return fmt.Errorf("trace stats: %w", err)
	}
	var drop *sql.Stmt
	for _, k := range keys {
		v := c.Rows[k]
		if _, err := upsert.ExecContext(ctx, k.Environment, k.TraceID, v.StartMs, v.EndMs, v.Spans, v.Errors, v.Tokens,
			v.CostUSD); err != nil {
			return fmt.Errorf("trace stats: %w", err)
		}
		if v.Spans >= 0 {
			continue
		}
		if drop == nil {
			if drop, err = stmts.in(ctx, tx, dropEmptyTraceStatSQL); err != nil {
				return fmt.Errorf("trace stats: %w", err)
			}
		}
		if _, err := drop.ExecContext(ctx, k.Environment, k.TraceID); err != nil {
			return fmt.Errorf("trace stats: %w", err)
		}
	}
	return nil
}

// takeOffTraceStats takes the spans seqs (about to be deleted by
// retention) off the trace stats, within tx.
func (s *Store) takeOffTraceStats(ctx context.Context, tx *sql.Tx, seqs []int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT environment, trace_id, timestamp, duration, status_code, total_tokens,
		request_model, response_model,
		(SELECT json_group_object(key, value) FROM json_each(spans.span_attributes) WHERE key LIKE '%token%')
		FROM spans WHERE seq IN (`+placeholders(len(seqs))+`)`, asArgs(seqs)...)
	if err != nil {
		return fmt.Errorf("trace stats: %w", mapErr(err))
	}
	defer rows.Close()
	c := warehouse.TraceStatChanges{Prices: s.prices}
	for rows.Next() {
		var sp warehouse.Span
		var attrs sql.NullString
		if err := rows.Scan(&sp.Environment, &sp.TraceID, &sp.Timestamp, &sp.Duration, &sp.StatusCode, &sp.TotalTokens,
			&sp.RequestModel, &sp.ResponseModel, &attrs); err != nil {
			return fmt.Errorf("trace stats: %w", mapErr(err))
		}
		if sp.SpanAttributes, err = decodeMap(attrs.String); err != nil {
			return fmt.Errorf("trace stats: stored attributes: %w", err)
		}
		c.AddSpan(&sp, -1)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("trace stats: %w", mapErr(err))
	}
	return writeTraceStats(ctx, tx, nil, &c)
}

// traceSortExpr is the SQL of each sort key's value.
var traceSortExpr = map[warehouse.TraceSortKey]string{
	warehouse.TraceSortStart:   "start_ms",
	warehouse.TraceSortLatency: "(end_ms - start_ms)",
	warehouse.TraceSortTokens:  "tokens",
	warehouse.TraceSortCost:    "cost_usd",
}

// traceRange is the WHERE clause of r's environments and range.
func traceRange(envs []string, from, to int64) (string, []any) {
	where := "environment IN (" + placeholders(len(envs)) + ") AND start_ms >= ?"
	args := append(asArgs(envs), from)
	if to != 0 {
		where += " AND start_ms <= ?"
		args = append(args, to)
	}
	return where, args
}

// ReadTraceStats implements warehouse.Backend.
func (s *Store) ReadTraceStats(ctx context.Context, r warehouse.TraceStatRead) ([]warehouse.TraceStat, error) {
	if err := s.checkOpen("read trace stats"); err != nil {
		return nil, err
	}
	expr, ok := traceSortExpr[r.SortBy]
	if !ok || len(r.Environments) == 0 {
		return nil, fmt.Errorf("read trace stats: sort key %q, %d environments", r.SortBy, len(r.Environments))
	}
	where, args := traceRange(r.Environments, r.FromMs, r.ToMs)
	dir, cmpOp := "ASC", ">"
	if r.Desc {
		dir, cmpOp = "DESC", "<"
	}
	if r.After != nil {
		where += fmt.Sprintf(" AND (%s %s ? OR %s = ? AND trace_id %s ?)", expr, cmpOp, expr, cmpOp)
		args = append(args, r.After.Value, r.After.Value, r.After.TraceID)
	}
	q := `SELECT environment, trace_id, start_ms, end_ms, spans, errors, tokens, cost_usd FROM trace_stats WHERE ` +
		where + fmt.Sprintf(" ORDER BY %s %s, trace_id %s LIMIT ?", expr, dir, dir)
	rows, err := s.reader.QueryContext(ctx, q, append(args, r.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("read trace stats: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.TraceStat
	for rows.Next() {
		var t warehouse.TraceStat
		if err := rows.Scan(&t.Environment, &t.TraceID, &t.StartMs, &t.EndMs, &t.Spans, &t.Errors, &t.Tokens,
			&t.CostUSD); err != nil {
			return nil, fmt.Errorf("read trace stats: %w", mapErr(err))
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read trace stats: %w", mapErr(err))
	}
	return out, nil
}

// CountTraces implements warehouse.Backend.
func (s *Store) CountTraces(ctx context.Context, envs []string, from, to int64) (int64, error) {
	if err := s.checkOpen("count traces"); err != nil {
		return 0, err
	}
	if len(envs) == 0 {
		return 0, nil
	}
	where, args := traceRange(envs, from, to)
	var n int64
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM trace_stats WHERE `+where, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count traces: %w", mapErr(err))
	}
	return n, nil
}
