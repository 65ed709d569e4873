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
	// postings caches postingHashes (resourceHashes or labelHashes);
	// postingKeys are their keys.
	postings    []int64
	postingKeys []string
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

// timedKey is a dedup key and the time (Unix ms) it is filed under.
type timedKey struct{ ts, key int64 }

// The dedup tables of spans and points, keys in (time, key) order.
const (
	spanKeysTable  = "span_keys_by_time"
	pointKeysTable = "point_keys_by_time"
)

// pairsPerInsert is how many keys one INSERT of insertKeys carries at most.
const pairsPerInsert = 256

// insertKeys records keys in table and reports for each whether it was
// new: false when an earlier write stored it, or when it comes earlier in
// keys. content, when not nil, is stored beside each key (content[i] of
// keys[i]; the span table's content column). The statements come compiled
// from stmts: pairsPerInsert keys, and the last chunk padded with a repeat
// of its last key to a power of two (a repeat inserts nothing and returns
// nothing).
func insertKeys(ctx context.Context, tx *sql.Tx, stmts *stmtCache, table string, keys []timedKey, content []int64) ([]bool, error) {
	fresh := make([]bool, len(keys))
	first := make(map[timedKey]int, len(keys)) // key -> its first index in keys
	distinct := make([]int, 0, len(keys))      // the first index of each key
	for i, k := range keys {
		if _, dup := first[k]; !dup {
			first[k] = i
			distinct = append(distinct, i)
		}
	}
	cols := 2
	if content != nil {
		cols = 3
	}
	for len(distinct) > 0 {
		chunk := distinct[:min(len(distinct), pairsPerInsert)]
		distinct = distinct[len(chunk):]
		n := 1 << bits.Len(uint(len(chunk)-1)) // padded to a power of two
		args := make([]any, 0, cols*n)
		for i := range n {
			j := chunk[min(i, len(chunk)-1)]
			args = append(args, keys[j].ts, keys[j].key)
			if content != nil {
				args = append(args, content[j])
			}
		}
		stmt, err := stmts.in(ctx, tx, insertKeysStatement(table, n, content != nil))
		if err != nil {
			return nil, fmt.Errorf("insert keys: %w", err)
		}
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return nil, fmt.Errorf("insert keys: %w", err)
		}
		for rows.Next() {
			var k timedKey
			if err := rows.Scan(&k.ts, &k.key); err != nil {
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

// insertKeysStatement is the INSERT of n keys into table of insertKeys,
// with their content hash when withContent.
func insertKeysStatement(table string, n int, withContent bool) string {
	if withContent {
		return "INSERT OR IGNORE INTO " + table + " (ts, key, content) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", n), ", ") + " RETURNING ts, key"
	}
	return "INSERT OR IGNORE INTO " + table + " (ts, key) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?, ?), ", n), ", ") + " RETURNING ts, key"
}

// conflicts returns the indexes of the keys insertKeys found not fresh
// whose content differs from the copy stored first: the one stored by an
// earlier write (its content read from table, only for these keys), or
// the first of keys with that key.
func conflicts(ctx context.Context, tx *sql.Tx, table string, keys []timedKey, content []int64, fresh []bool) ([]int, error) {
	var out []int
	first := map[timedKey]int{}
	var earlier []int // duplicates of keys stored by earlier writes
	for i, k := range keys {
		if fresh[i] {
			first[k] = i
			continue
		}
		if j, ok := first[k]; ok {
			if content[j] != content[i] {
				out = append(out, i)
			}
			continue
		}
		earlier = append(earlier, i)
	}
	if len(earlier) == 0 {
		return out, nil
	}
	stored := make(map[timedKey]int64, len(earlier))
	for rest := earlier; len(rest) > 0; {
		chunk := rest[:min(len(rest), 250)]
		rest = rest[len(chunk):]
		args := make([]any, 0, 2*len(chunk))
		for _, i := range chunk {
			args = append(args, keys[i].ts, keys[i].key)
		}
		rows, err := tx.QueryContext(ctx, "SELECT ts, key, content FROM "+table+" WHERE (ts, key) IN (VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?), ", len(chunk)), ", ")+")", args...)
		if err != nil {
			return nil, fmt.Errorf("read stored content hashes: %w", err)
		}
		for rows.Next() {
			var k timedKey
			var c int64
			if err := rows.Scan(&k.ts, &k.key, &c); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read stored content hashes: %w", err)
			}
			stored[k] = c
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("read stored content hashes: %w", err)
		}
	}
	for _, i := range earlier {
		if c, ok := stored[keys[i]]; ok && c != content[i] {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out, nil
}
