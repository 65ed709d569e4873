package clickhouse

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// WritePipelineStatus inserts the collectors' rows (one insert).
func (s *Store) WritePipelineStatus(ctx context.Context, rows []warehouse.PipelineStatus) error {
	if err := s.ready(ctx, "write pipeline status"); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("pipeline_status")+" ("+warehouse.PipelineStatusColumns+")")
	if err != nil {
		return fmt.Errorf("write pipeline status: %w", mapErr(err))
	}
	for _, r := range rows {
		if err := batch.Append(r.Values()...); err != nil {
			batch.Abort()
			return fmt.Errorf("write pipeline status: %w", mapErr(err))
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("write pipeline status: %w", mapErr(err))
	}
	return nil
}

// PipelineStatus returns the latest row of every collector of env.
func (s *Store) PipelineStatus(ctx context.Context, env string) ([]warehouse.PipelineStatus, error) {
	if err := s.ready(ctx, "read pipeline status"); err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(ctx, "SELECT "+warehouse.PipelineStatusColumns+" FROM "+s.schema.table("pipeline_status")+
		" WHERE environment = ? ORDER BY collector_id, reported_at DESC LIMIT 1 BY collector_id", env)
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
