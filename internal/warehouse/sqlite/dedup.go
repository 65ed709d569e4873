package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// dedupKey is a 64-bit FNV-1a hash of parts, each ended by a 0 byte, as a
// signed integer (an SQLite INTEGER PRIMARY KEY). Two different rows share
// a key with probability about n²/2⁶⁵ (3·10⁻⁸ for a million rows); the later
// one would then be skipped as a duplicate.
func dedupKey(parts ...string) int64 {
	k := newKeyHash()
	for _, p := range parts {
		k.add(p)
	}
	return int64(k)
}

// keyHash is the running FNV-1a hash of a dedup key.
type keyHash uint64

func newKeyHash() keyHash { return 14695981039346656037 }

// add hashes s and the 0 byte that ends it.
func (k *keyHash) add(s string) {
	const prime64 = 1099511628211
	h := uint64(*k)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime64
	}
	*k = keyHash(h * prime64)
}

// pointKey is the dedup key of a metric point: everything that makes it
// what it is, the maps' keys in sorted order.
func pointKey(p *warehouse.MetricPoint, labels, attrs *encodedMap) int64 {
	k := newKeyHash()
	for _, s := range []string{p.Environment, p.OrganizationID, p.MetricName, p.Source, strconv.FormatInt(p.EventTime, 10), p.TraceID, p.SpanID} {
		k.add(s)
	}
	switch {
	case p.BoolValue != nil:
		k.add("b")
		k.add(strconv.FormatBool(*p.BoolValue))
	case p.NumericValue != nil:
		k.add("n")
		k.add(strconv.FormatUint(math.Float64bits(*p.NumericValue), 16))
	case p.EnumValue != nil:
		k.add("e")
		k.add(*p.EnumValue)
	}
	k.add("labels")
	labels.addTo(&k)
	k.add("attributes")
	attrs.addTo(&k)
	return int64(k)
}

// encodedMap is a map with its keys sorted and its encodeMap JSON.
type encodedMap struct {
	m    map[string]string
	keys []string
	json string
}

// addTo hashes the map's keys and values in key order.
func (e *encodedMap) addTo(k *keyHash) {
	for _, key := range e.keys {
		k.add(key)
		k.add(e.m[key])
	}
}

// lastEncoding encodes maps and remembers the last one, so that a map
// handed over again (the same map, not an equal copy) is not sorted and
// encoded twice: the exporter gives all points of one evaluation one
// labels map and all points of one span one attributes map.
type lastEncoding struct{ last encodedMap }

func (c *lastEncoding) encode(m map[string]string) *encodedMap {
	if c.last.m != nil && len(m) == len(c.last.m) && sameMap(m, c.last.m) {
		return &c.last
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	c.last = encodedMap{m: m, keys: keys, json: encodeSorted(m, keys)}
	return &c.last
}

// sameMap reports whether a and b are the same map value.
func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// keysPerInsert is how many keys one INSERT of insertKeys carries at most.
const keysPerInsert = 512

// insertKeys records keys in table (one INTEGER PRIMARY KEY column, key)
// and reports for each whether it was new: false when an earlier write
// stored it, or when it comes earlier in keys. The statements come
// compiled from stmts: keysPerInsert keys, and the last chunk padded with
// a repeat of its last key to a power of two (a repeat inserts nothing and
// returns nothing).
func insertKeys(ctx context.Context, tx *sql.Tx, stmts *stmtCache, table string, keys []int64) ([]bool, error) {
	fresh := make([]bool, len(keys))
	first := make(map[int64]int, len(keys)) // key -> its first index in keys
	distinct := make([]any, 0, len(keys))
	for i, k := range keys {
		if _, dup := first[k]; !dup {
			first[k] = i
			distinct = append(distinct, k)
		}
	}
	for len(distinct) > 0 {
		chunk := distinct[:min(len(distinct), keysPerInsert)]
		distinct = distinct[len(chunk):]
		if n := 1 << bits.Len(uint(len(chunk)-1)); n > len(chunk) { // pad to a power of two
			padded := make([]any, n)
			copy(padded, chunk)
			for i := len(chunk); i < n; i++ {
				padded[i] = chunk[len(chunk)-1]
			}
			chunk = padded
		}
		stmt, err := stmts.in(ctx, tx, insertKeysStatement(table, len(chunk)))
		if err != nil {
			return nil, fmt.Errorf("insert keys: %w", err)
		}
		rows, err := stmt.QueryContext(ctx, chunk...)
		if err != nil {
			return nil, fmt.Errorf("insert keys: %w", err)
		}
		for rows.Next() {
			var k int64
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, fmt.Errorf("insert keys: %w", err)
			}
			fresh[first[k]] = true
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("insert keys: %w", err)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("insert keys: %w", err)
		}
	}
	return fresh, nil
}

// insertKeysStatement is the INSERT of n keys into table of insertKeys.
func insertKeysStatement(table string, n int) string {
	return "INSERT OR IGNORE INTO " + table + " (key) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?), ", n), ", ") + " RETURNING key"
}
