package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Span stats (warehouse.SpanStatter): span_stats holds one row per
// environment, width (minute, hour or six hours), row start, workflow,
// model and latency bin with the number of spans, of error spans, and
// their input and output tokens. It changes in the transaction of every
// span write and retention delete, as evaluation_counts does.

// Statements of writeSpanStats.
const (
	upsertSpanStatSQL = `INSERT INTO span_stats
		(environment, width, bucket, workflow, model, bin, n, errors, input_tokens, output_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (environment, width, bucket, workflow, model, bin) DO UPDATE SET n = n + excluded.n,
		errors = errors + excluded.errors, input_tokens = input_tokens + excluded.input_tokens,
		output_tokens = output_tokens + excluded.output_tokens`
	dropEmptySpanStatSQL = `DELETE FROM span_stats WHERE environment = ? AND width = ? AND bucket = ?
		AND workflow = ? AND model = ? AND bin = ? AND n <= 0`
	// spanStatColumns are what the span and trace stats read of a stored
	// span; only the token attributes of span_attributes (the keys
	// genai.UsageStrings may read all hold "token"), so that a pass over
	// many spans does not decode their texts.
	spanStatColumns = `environment, trace_id, timestamp, duration, status_code, total_tokens, workflow_name,
		request_model, response_model,
		(SELECT json_group_object(key, value) FROM json_each(spans.span_attributes) WHERE key LIKE '%token%')`
)

// writeSpanStats applies c within tx, rows in key order.
func writeSpanStats(ctx context.Context, tx *sql.Tx, stmts *stmtCache, c *warehouse.SpanStatChanges) error {
	rows := make([]warehouse.SpanStatRow, 0, len(c.Rows))
	for r, d := range c.Rows {
		if !d.Zero() {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b warehouse.SpanStatRow) int {
		return cmp.Or(cmp.Compare(a.Environment, b.Environment), cmp.Compare(a.Width, b.Width), cmp.Compare(a.Bucket, b.Bucket),
			cmp.Compare(a.Workflow, b.Workflow), cmp.Compare(a.Model, b.Model), cmp.Compare(a.Bin, b.Bin))
	})
	upsert, err := stmts.in(ctx, tx, upsertSpanStatSQL)
	if err != nil {
		return fmt.Errorf("span stats: %w", err)
	}
	var drop *sql.Stmt
	for _, r := range rows {
		d := c.Rows[r]
		args := []any{r.Environment, r.Width, r.Bucket, r.Workflow, r.Model, r.Bin}
		if _, err := upsert.ExecContext(ctx, append(args, d.N, d.Errors, d.InputTokens, d.OutputTokens)...); err != nil {
			return fmt.Errorf("span stats: %w", err)
		}
		if d.N >= 0 {
			continue
		}
		if drop == nil {
			if drop, err = stmts.in(ctx, tx, dropEmptySpanStatSQL); err != nil {
				return fmt.Errorf("span stats: %w", err)
			}
		}
		if _, err := drop.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("span stats: %w", err)
		}
	}
	return nil
}

// takeOffSpans takes the spans seqs (about to be deleted by retention)
// off the span stats and the trace stats, within tx: one read of their
// stats columns (spanStatColumns) for both.
func (s *Store) takeOffSpans(ctx context.Context, tx *sql.Tx, seqs []int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT `+spanStatColumns+` FROM spans WHERE seq IN (`+placeholders(len(seqs))+`)`, asArgs(seqs)...)
	if err != nil {
		return fmt.Errorf("span stats: %w", mapErr(err))
	}
	defer rows.Close()
	c := warehouse.SpanChanges{Traces: warehouse.TraceStatChanges{Prices: s.prices}}
	for rows.Next() {
		var sp warehouse.Span
		var attrs sql.NullString
		if err := rows.Scan(&sp.Environment, &sp.TraceID, &sp.Timestamp, &sp.Duration, &sp.StatusCode, &sp.TotalTokens,
			&sp.WorkflowName, &sp.RequestModel, &sp.ResponseModel, &attrs); err != nil {
			return fmt.Errorf("span stats: %w", mapErr(err))
		}
		if sp.SpanAttributes, err = decodeMap(attrs.String); err != nil {
			return fmt.Errorf("span stats: stored attributes: %w", err)
		}
		c.AddSpan(&sp, -1)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("span stats: %w", mapErr(err))
	}
	if err := writeSpanStats(ctx, tx, nil, &c.Stats); err != nil {
		return err
	}
	return writeTraceStats(ctx, tx, nil, &c.Traces)
}

var _ warehouse.SpanStatter = (*Store)(nil)

// SpanStats answers q from span_stats: the widest rows that q's buckets
// and start are made of (warehouse.SpanStatWidth: six hours for the
// 7-day view, hours for the 24-hour one). When each row is a bucket of
// the answer (q.RowPerBucket) the rows are read as they are, in key
// order, without SQLite's GROUP BY (a sort of every row read: 488 ms of
// the 7-day view over 180 000 hour rows); otherwise they are summed by
// bucket, workflow, model and bin.
func (s *Store) SpanStats(ctx context.Context, q warehouse.SpanStatQuery) ([]warehouse.SpanStat, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if err := s.checkOpen("span stats"); err != nil {
		return nil, err
	}
	w := q.Width()
	var query string
	var args []any
	switch {
	case q.RowPerBucket():
		query = "SELECT bucket, workflow, model, bin, n, errors, input_tokens, output_tokens FROM span_stats WHERE "
	case q.BucketMs > 0:
		query = "SELECT max(?, ? + ((bucket - ?) / ?) * ?) AS b, workflow, model, bin, sum(n), sum(errors), sum(input_tokens), sum(output_tokens)" +
			" FROM span_stats WHERE "
		args = []any{q.FromMs, q.FromMs, q.FromMs, q.BucketMs, q.BucketMs}
	default:
		query = "SELECT ? AS b, workflow, model, bin, sum(n), sum(errors), sum(input_tokens), sum(output_tokens) FROM span_stats WHERE "
		args = []any{q.FromMs}
	}
	where := "environment = ? AND width = ? AND bucket >= ? AND bucket <= ?"
	args = append(args, q.Environment, w, q.FromMs-q.FromMs%w, q.ToMs)
	if q.Workflow != "" {
		where += " AND workflow = ?"
		args = append(args, q.Workflow)
	}
	if q.Model != "" {
		where += " AND model = ?"
		args = append(args, q.Model)
	}
	query += where
	if !q.RowPerBucket() {
		query += " GROUP BY b, workflow, model, bin"
	}
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("span stats: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.SpanStat
	for rows.Next() {
		var st warehouse.SpanStat
		if err := rows.Scan(&st.Bucket, &st.Workflow, &st.Model, &st.Bin, &st.N, &st.Errors, &st.InputTokens, &st.OutputTokens); err != nil {
			return nil, fmt.Errorf("span stats: %w", mapErr(err))
		}
		if st.N == 0 {
			continue
		}
		st.Environment = q.Environment
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("span stats: %w", mapErr(err))
	}
	return out, nil
}
