package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.EvaluationAppender = (*Store)(nil)

// AppendEvaluations adds evaluations to stored spans of env in one
// transaction (see warehouse.EvaluationAppender). A span is found through
// the (environment, timestamp) index when the entry has its Timestamp,
// else by a scan of the environment's spans.
func (s *Store) AppendEvaluations(ctx context.Context, env string, spans []warehouse.SpanEvaluations) (err error) {
	defer s.writes.note(&err)
	if err := s.checkOpen("append evaluations"); err != nil {
		return err
	}
	if len(spans) == 0 {
		return nil
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("append evaluations: begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	byTime, err := tx.PrepareContext(ctx, `SELECT seq, evaluations, timestamp, duration, workflow_name FROM spans
		WHERE environment = ? AND timestamp = ? AND trace_id = ? AND span_id = ?`)
	if err != nil {
		return fmt.Errorf("append evaluations: prepare: %w", mapErr(err))
	}
	defer byTime.Close()
	update, err := tx.PrepareContext(ctx, `UPDATE spans SET evaluations = ?, verdicts = ? WHERE seq = ?`)
	if err != nil {
		return fmt.Errorf("append evaluations: prepare: %w", mapErr(err))
	}
	defer update.Close()
	var counts warehouse.EvaluationCountChanges
	for i, e := range spans {
		if len(e.Evaluations) == 0 {
			continue
		}
		var row *sql.Row
		if e.Timestamp != 0 {
			row = byTime.QueryRowContext(ctx, env, e.Timestamp, e.TraceID, e.SpanID)
		} else {
			row = tx.QueryRowContext(ctx, `SELECT seq, evaluations, timestamp, duration, workflow_name FROM spans
				WHERE environment = ? AND trace_id = ? AND span_id = ?`, env, e.TraceID, e.SpanID)
		}
		var (
			seq   int64
			evals string
			sp    = warehouse.Span{Environment: env}
		)
		if err := row.Scan(&seq, &evals, &sp.Timestamp, &sp.Duration, &sp.WorkflowName); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			return fmt.Errorf("append evaluations: span %d: read: %w", i, mapErr(err))
		}
		var stored []warehouse.Evaluation
		if evals != "" && evals != "[]" {
			if err := json.Unmarshal([]byte(evals), &stored); err != nil {
				return fmt.Errorf("append evaluations: span %d: stored evaluations: %w", i, err)
			}
		}
		merged := warehouse.MergeEvaluations(stored, e.Evaluations)
		counts.AddMerge(&sp, stored, merged)
		if _, err := update.ExecContext(ctx, warehouse.EncodeEvaluations(merged), warehouse.VerdictIndex(merged), seq); err != nil {
			return fmt.Errorf("append evaluations: span %d: %w", i, mapErr(err))
		}
	}
	if err := writeEvaluationCounts(ctx, tx, s.stmts, &counts); err != nil {
		return fmt.Errorf("append evaluations: %w", mapErr(err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("append evaluations: commit: %w", mapErr(err))
	}
	return nil
}
