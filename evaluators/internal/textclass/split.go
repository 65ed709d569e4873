package textclass

import "hash/fnv"

// InHoldout reports whether the row with key (e.g. "seed:id") falls in the
// held-out percent of a deterministic split: FNV-1a 64 of key, modulo 100,
// below percent. Training and quality suites share it so they agree on
// the split.
func InHoldout(key string, percent int) bool {
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%100) < percent
}
