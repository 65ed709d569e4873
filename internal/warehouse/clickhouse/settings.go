package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.SettingStore = (*Store)(nil)

// InitSetting stores value under key unless key holds one, and returns
// the values key holds, the earliest first (see warehouse.SettingStore):
// ClickHouse has no insert-if-absent, so collectors racing on an empty key
// may each store theirs.
func (s *Store) InitSetting(ctx context.Context, key string, value []byte) ([][]byte, error) {
	if err := s.ready(ctx, "init setting"); err != nil {
		return nil, err
	}
	stored, err := s.settingValues(ctx, key)
	if err != nil || len(stored) > 0 {
		return stored, err
	}
	batch, err := s.conn.PrepareBatch(s.writeCtx(ctx), "INSERT INTO "+s.schema.table("settings")+" (key, value, created)")
	if err != nil {
		return nil, fmt.Errorf("init setting %s: %w", key, mapErr(err))
	}
	if err := batch.Append(key, string(value), time.Now().UnixNano()); err != nil {
		return nil, fmt.Errorf("init setting %s: %w", key, mapErr(err))
	}
	if err := batch.Send(); err != nil {
		return nil, fmt.Errorf("init setting %s: %w", key, mapErr(err))
	}
	return s.settingValues(ctx, key)
}

// settingValues reads the values of key, the earliest first.
func (s *Store) settingValues(ctx context.Context, key string) ([][]byte, error) {
	rows, err := s.conn.Query(ctx, "SELECT value FROM "+s.schema.table("settings")+" FINAL WHERE key = ? ORDER BY created, value", key)
	if err != nil {
		return nil, fmt.Errorf("read setting %s: %w", key, mapErr(err))
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read setting %s: %w", key, mapErr(err))
		}
		out = append(out, []byte(v))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read setting %s: %w", key, mapErr(err))
	}
	return out, nil
}
