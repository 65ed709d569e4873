package warehouse

import "context"

// SettingStore keeps small values shared by every collector of a
// warehouse, such as the secret that signs console sessions. It is
// optional: callers check for it with a type assertion; both backends
// implement it.
type SettingStore interface {
	// InitSetting stores value under key unless key already holds one,
	// and returns the values key holds: normally one, the first stored.
	// Collectors sharing a ClickHouse warehouse that initialise a key at
	// the same moment may both store theirs; then every value is
	// returned, the same one first for every caller (the earliest), so a
	// caller uses the first and accepts any.
	InitSetting(ctx context.Context, key string, value []byte) ([][]byte, error)
}
