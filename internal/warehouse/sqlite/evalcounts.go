package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Evaluation counts (warehouse.EvaluationCounter):
// evaluation_counts holds one row per environment, width (minute or hour),
// row start, evaluator, verdict, workflow, monitor and score bin with the
// number of results and the sum of their scores; monitor_last_evaluations
// the latest end time of a span each monitor evaluated. Both change in the
// transaction of every span write, evaluation append and retention delete.

// Statements of writeEvaluationCounts.
const (
	upsertEvalCountSQL = `INSERT INTO evaluation_counts
		(environment, width, bucket, evaluator, verdict, workflow, monitor_id, bin, n, total)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (environment, width, bucket, evaluator, verdict, workflow, monitor_id, bin)
		DO UPDATE SET n = n + excluded.n, total = total + excluded.total`
	dropEmptyEvalCountSQL = `DELETE FROM evaluation_counts WHERE environment = ? AND width = ? AND bucket = ?
		AND evaluator = ? AND verdict = ? AND workflow = ? AND monitor_id = ? AND bin = ? AND n <= 0`
	upsertLastEvalSQL = `INSERT INTO monitor_last_evaluations (environment, monitor_id, last_ms) VALUES (?, ?, ?)
		ON CONFLICT (environment, monitor_id) DO UPDATE SET last_ms = max(last_ms, excluded.last_ms)`
)

// writeEvaluationCounts applies c within tx, rows in key order (a commit
// touches the few pages of its minutes and hours).
func writeEvaluationCounts(ctx context.Context, tx *sql.Tx, stmts *stmtCache, c *warehouse.EvaluationCountChanges) error {
	if c.Empty() {
		return nil
	}
	rows := make([]warehouse.EvaluationCountRow, 0, len(c.Rows))
	for r, d := range c.Rows {
		if d.N != 0 || d.Sum != 0 {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b warehouse.EvaluationCountRow) int {
		return cmp.Or(cmp.Compare(a.Environment, b.Environment), cmp.Compare(a.Width, b.Width), cmp.Compare(a.Bucket, b.Bucket),
			cmp.Compare(a.Evaluator, b.Evaluator), cmp.Compare(a.Verdict, b.Verdict), cmp.Compare(a.Workflow, b.Workflow),
			cmp.Compare(a.MonitorID, b.MonitorID), cmp.Compare(a.Bin, b.Bin))
	})
	if len(rows) > 0 {
		upsert, err := stmts.in(ctx, tx, upsertEvalCountSQL)
		if err != nil {
			return fmt.Errorf("evaluation counts: %w", err)
		}
		var drop *sql.Stmt
		for _, r := range rows {
			d := c.Rows[r]
			args := []any{r.Environment, r.Width, r.Bucket, r.Evaluator, r.Verdict, r.Workflow, r.MonitorID, r.Bin}
			if _, err := upsert.ExecContext(ctx, append(args, d.N, d.Sum)...); err != nil {
				return fmt.Errorf("evaluation counts: %w", err)
			}
			if d.N >= 0 {
				continue
			}
			if drop == nil {
				if drop, err = stmts.in(ctx, tx, dropEmptyEvalCountSQL); err != nil {
					return fmt.Errorf("evaluation counts: %w", err)
				}
			}
			if _, err := drop.ExecContext(ctx, args...); err != nil {
				return fmt.Errorf("evaluation counts: %w", err)
			}
		}
	}
	if len(c.Last) > 0 {
		upsert, err := stmts.in(ctx, tx, upsertLastEvalSQL)
		if err != nil {
			return fmt.Errorf("last evaluations: %w", err)
		}
		for id, ms := range c.Last {
			if _, err := upsert.ExecContext(ctx, id[0], id[1], ms); err != nil {
				return fmt.Errorf("last evaluations: %w", err)
			}
		}
	}
	return nil
}

// decodeEvaluations reads a stored evaluations column.
func decodeEvaluations(s string) ([]warehouse.Evaluation, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var out []warehouse.Evaluation
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("stored evaluations: %w", err)
	}
	return out, nil
}

// takeOffEvaluationCounts takes the results of the spans seqs (about to be
// deleted by retention) off the counts, within tx.
func takeOffEvaluationCounts(ctx context.Context, tx *sql.Tx, env string, seqs []int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT timestamp, duration, workflow_name, evaluations FROM spans
		WHERE seq IN (`+placeholders(len(seqs))+`) AND evaluations <> '[]' AND evaluations <> ''`, asArgs(seqs)...)
	if err != nil {
		return fmt.Errorf("evaluation counts: %w", mapErr(err))
	}
	var c warehouse.EvaluationCountChanges
	if err := addStoredEvaluations(rows, env, &c, -1); err != nil {
		return err
	}
	return writeEvaluationCounts(ctx, tx, nil, &c)
}

// addStoredEvaluations adds the results of rows (timestamp, duration,
// workflow_name, evaluations) of env to c with sign, and closes rows.
func addStoredEvaluations(rows *sql.Rows, env string, c *warehouse.EvaluationCountChanges, sign int64) error {
	defer rows.Close()
	for rows.Next() {
		sp := warehouse.Span{Environment: env}
		var evals string
		if err := rows.Scan(&sp.Timestamp, &sp.Duration, &sp.WorkflowName, &evals); err != nil {
			return fmt.Errorf("evaluation counts: %w", mapErr(err))
		}
		stored, err := decodeEvaluations(evals)
		if err != nil {
			return fmt.Errorf("evaluation counts: %w", err)
		}
		c.AddSpan(&sp, stored, sign)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("evaluation counts: %w", mapErr(err))
	}
	return nil
}

// fillFromRows adds the results of rows (environment, timestamp,
// duration, workflow_name, evaluations) to c, and closes rows.
func fillFromRows(rows *sql.Rows, c *warehouse.EvaluationCountChanges) error {
	defer rows.Close()
	for rows.Next() {
		var sp warehouse.Span
		var evals string
		if err := rows.Scan(&sp.Environment, &sp.Timestamp, &sp.Duration, &sp.WorkflowName, &evals); err != nil {
			return err
		}
		stored, err := decodeEvaluations(evals)
		if err != nil {
			return err
		}
		c.AddSpan(&sp, stored, 1)
	}
	return rows.Err()
}

var _ warehouse.EvaluationCounter = (*Store)(nil)

// CountEvaluations answers q from evaluation_counts (hour rows when q's
// buckets and start are whole hours, else minute rows).
func (s *Store) CountEvaluations(ctx context.Context, q warehouse.EvaluationCountQuery) ([]warehouse.EvaluationCount, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if err := s.checkOpen("count evaluations"); err != nil {
		return nil, err
	}
	w := warehouse.CountWidth(q.FromMs, q.BucketMs)
	bucket := "?"
	args := []any{q.FromMs}
	if q.BucketMs > 0 {
		bucket = "max(?, ? + ((bucket - ?) / ?) * ?)"
		args = []any{q.FromMs, q.FromMs, q.FromMs, q.BucketMs, q.BucketMs}
	}
	where := "environment = ? AND width = ? AND bucket >= ? AND bucket <= ?"
	args = append(args, q.Environment, w, q.FromMs-q.FromMs%w, q.ToMs)
	if q.Workflow != "" {
		where += " AND workflow = ?"
		args = append(args, q.Workflow)
	}
	if len(q.Evaluators) > 0 {
		where += " AND evaluator IN (" + placeholders(len(q.Evaluators)) + ")"
		for _, e := range q.Evaluators {
			args = append(args, e)
		}
	}
	rows, err := s.reader.QueryContext(ctx, "SELECT "+bucket+" AS b, evaluator, verdict, workflow, monitor_id, bin, sum(n), sum(total)"+
		" FROM evaluation_counts WHERE "+where+" GROUP BY b, evaluator, verdict, workflow, monitor_id, bin", args...)
	if err != nil {
		return nil, fmt.Errorf("count evaluations: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.EvaluationCount
	for rows.Next() {
		var c warehouse.EvaluationCount
		if err := rows.Scan(&c.Bucket, &c.Evaluator, &c.Verdict, &c.Workflow, &c.MonitorID, &c.Bin, &c.N, &c.Sum); err != nil {
			return nil, fmt.Errorf("count evaluations: %w", mapErr(err))
		}
		if c.N == 0 {
			continue
		}
		c.Environment = q.Environment
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count evaluations: %w", mapErr(err))
	}
	return out, nil
}

// LastEvaluations reads monitor_last_evaluations.
func (s *Store) LastEvaluations(ctx context.Context, env string, monitorIDs []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(monitorIDs) == 0 {
		return out, nil
	}
	if err := s.checkOpen("last evaluations"); err != nil {
		return nil, err
	}
	args := []any{env}
	for _, id := range monitorIDs {
		args = append(args, id)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT monitor_id, last_ms FROM monitor_last_evaluations
		WHERE environment = ? AND monitor_id IN (`+placeholders(len(monitorIDs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("last evaluations: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var ms int64
		if err := rows.Scan(&id, &ms); err != nil {
			return nil, fmt.Errorf("last evaluations: %w", mapErr(err))
		}
		out[id] = ms
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("last evaluations: %w", mapErr(err))
	}
	return out, nil
}
