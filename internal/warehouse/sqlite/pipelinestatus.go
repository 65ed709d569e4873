package sqlite

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

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
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO pipeline_status (`+warehouse.PipelineStatusColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.Values()...); err != nil {
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
	rows, err := s.reader.QueryContext(ctx, `SELECT `+warehouse.PipelineStatusColumns+` FROM pipeline_status WHERE environment = ? ORDER BY collector_id`, env)
	if err != nil {
		return nil, fmt.Errorf("read pipeline status: %w", mapErr(err))
	}
	defer rows.Close()
	var out []warehouse.PipelineStatus
	for rows.Next() {
		r, err := warehouse.ScanPipelineStatus(rows.Scan)
		if err != nil {
			return nil, fmt.Errorf("read pipeline status: %w", mapErr(err))
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err())
}
