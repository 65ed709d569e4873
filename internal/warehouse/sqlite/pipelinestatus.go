package sqlite

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

const statusColumns = `environment, collector_id, reported_at, latest_stored, last_evaluated_stored, pending, oldest_pending,
	lost, last_lost, last_eval_ok, last_eval_failed, last_eval_error, last_write_ok, last_write_failed, last_write_error`

// WritePipelineStatus replaces the collectors' rows, in one transaction.
func (s *Store) WritePipelineStatus(ctx context.Context, rows []warehouse.PipelineStatus) error {
	if err := s.checkOpen("write pipeline status"); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write pipeline status: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	for _, r := range rows {
		t := r.TimesMs()
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO pipeline_status (`+statusColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.Environment, r.CollectorID, t[0], t[1], t[2], r.Pending, t[3],
			r.Lost, t[4], t[5], t[6], r.LastEvalError, t[7], t[8], r.LastWriteError,
		); err != nil {
			return fmt.Errorf("write pipeline status: %w", mapErr(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write pipeline status: %w", mapErr(err))
	}
	return nil
}

// PipelineStatus returns every collector's row of env.
func (s *Store) PipelineStatus(ctx context.Context, env string) ([]warehouse.PipelineStatus, error) {
	if err := s.checkOpen("read pipeline status"); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+statusColumns+` FROM pipeline_status WHERE environment = ? ORDER BY collector_id`, env)
	if err != nil {
		return nil, fmt.Errorf("read pipeline status: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.PipelineStatus
	for rows.Next() {
		var r warehouse.PipelineStatus
		var t [9]int64
		if err := rows.Scan(&r.Environment, &r.CollectorID, &t[0], &t[1], &t[2], &r.Pending, &t[3],
			&r.Lost, &t[4], &t[5], &t[6], &r.LastEvalError, &t[7], &t[8], &r.LastWriteError); err != nil {
			return nil, fmt.Errorf("read pipeline status: %w", mapErr(err))
		}
		r.SetTimesMs(t)
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}
