package sqlite

import (
	"context"
	"fmt"

	"github.com/evalcol/evalcol/internal/warehouse"
)

var _ warehouse.SettingStore = (*Store)(nil)

// InitSetting stores value under key unless key holds one, and returns
// the one value key holds (see warehouse.SettingStore).
func (s *Store) InitSetting(ctx context.Context, key string, value []byte) ([][]byte, error) {
	if err := s.checkOpen("init setting"); err != nil {
		return nil, err
	}
	if _, err := s.writer.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, value); err != nil {
		return nil, fmt.Errorf("init setting %s: %w", key, mapErr(err))
	}
	var stored []byte
	if err := s.writer.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&stored); err != nil {
		return nil, fmt.Errorf("read setting %s: %w", key, mapErr(err))
	}
	return [][]byte{stored}, nil
}
