package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// The value dictionary: the distinct values of each span
// attribute key, hour by hour (span_values), and the hours in which a key
// carried a value the postings do not list (span_value_gaps). A filter
// other than text equality on an attribute (starts_with, contains, a
// comparison, a typed equality) is resolved against the values of its key
// in the range's hours: the values that match it become an in-list whose
// postings count its spans and walk them, as an equality's would, instead
// of reading every span of the range.

// attrValue is one span attribute as the dictionary records it: a value
// the postings list under hash (index.PostingHash(key, value)), or, when gap is
// set, a value they cannot list, recorded as its key's gap (hash: the
// complement of index.KeyPostingHash(key), negative where value hashes are not).
type attrValue struct {
	key, value string
	hash       int64
	gap        bool
}

// dictionaryEntry returns how the dictionary records attribute key = value
// (key not reserved; stored: index.JSONKey(key)) with hash index.PostingHash(key,
// value). Values too long for the postings or not valid UTF-8 (whose
// stored JSON spells them otherwise) are gaps; so are all values of a key
// that is not valid UTF-8, under the key as the stored JSON spells it,
// which is how a filter names it.
func dictionaryEntry(key, stored, value string, hash int64) attrValue {
	if stored != key {
		return attrValue{key: stored, hash: ^index.KeyPostingHash(stored), gap: true}
	}
	if !index.Indexable(value) || !utf8.ValidString(value) {
		return attrValue{key: key, hash: ^index.KeyPostingHash(key), gap: true}
	}
	return attrValue{key: key, value: value, hash: hash}
}

// maxCachedValues bounds the writer's cache of recorded values; it starts
// over when full (values unique to a span fill it, the shared ones are
// then recorded again once).
const maxCachedValues = 1 << 16

// valueCache remembers, by environment and hash, the hour each value (and
// gap) was last recorded in, so that the writer records a value once per
// hour, not once per span.
type valueCache struct {
	mu   sync.Mutex
	seen map[string]map[int64]int64
	size int
}

// reset forgets every recorded value (retention deleted some).
func (c *valueCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen, c.size = nil, 0
}

// valueKeyHash is the key of the dictionary's rows of attribute key in
// env: 63 bits of FNV-1a over both, as index.PostingHash hashes a key and value.
func valueKeyHash(env, key string) int64 { return index.PostingHash(env, key) }

// valueRow is one row of span_values or span_value_gaps.
type valueRow struct {
	hour, keyHash, seq int64
	value              string
	gap                bool
}

// valueTx collects the dictionary rows of one write transaction; the
// cache learns them only when the transaction commits.
type valueTx struct {
	cache *valueCache
	fresh map[string]map[int64]int64
	rows  []valueRow
}

func (c *valueCache) begin() *valueTx {
	return &valueTx{cache: c, fresh: map[string]map[int64]int64{}}
}

// add records the attributes of the span seq of env, starting in hour.
func (t *valueTx) add(env string, hour, seq int64, values []attrValue) {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	seen, fresh := t.cache.seen[env], t.fresh[env]
	if fresh == nil {
		fresh = map[int64]int64{}
		t.fresh[env] = fresh
	}
	for _, v := range values {
		if h, ok := seen[v.hash]; ok && h == hour { // most values: recorded by an earlier write
			continue
		}
		if h, ok := fresh[v.hash]; ok && h == hour {
			continue
		}
		fresh[v.hash] = hour
		t.rows = append(t.rows, valueRow{hour: hour, keyHash: valueKeyHash(env, v.key), seq: seq, value: v.value, gap: v.gap})
	}
}

// Inserts of dictionary rows: values OR FAIL (a span's sequence number is
// new, and no statement journal is kept, as insertPointSQL), gaps OR
// IGNORE (one row per key and hour).
const (
	insertValueSQL  = "INSERT OR FAIL INTO span_values (hour, key_hash, seq, value) VALUES "
	insertGapSQL    = "INSERT OR IGNORE INTO span_value_gaps (hour, key_hash) VALUES "
	valuesPerInsert = 128
)

// write inserts the collected rows in key order.
func (t *valueTx) write(ctx context.Context, tx *sql.Tx, stmts *stmtCache) error {
	if len(t.rows) == 0 {
		return nil
	}
	slices.SortFunc(t.rows, func(a, b valueRow) int {
		return cmp.Or(cmp.Compare(a.hour, b.hour), cmp.Compare(a.keyHash, b.keyHash), cmp.Compare(a.seq, b.seq))
	})
	values := newRowInserter(tx, stmts, insertValueSQL, 4, valuesPerInsert)
	gaps := newRowInserter(tx, stmts, insertGapSQL, 2, valuesPerInsert)
	for _, r := range t.rows {
		var err error
		if r.gap {
			err = gaps.add(ctx, r.hour, r.keyHash)
		} else {
			err = values.add(ctx, r.hour, r.keyHash, r.seq, r.value)
		}
		if err != nil {
			return fmt.Errorf("attribute values: %w", err)
		}
	}
	if err := values.flush(ctx); err != nil {
		return fmt.Errorf("attribute values: %w", err)
	}
	if err := gaps.flush(ctx); err != nil {
		return fmt.Errorf("attribute values: %w", err)
	}
	return nil
}

// commit publishes the rows of a committed transaction to the cache.
func (t *valueTx) commit() {
	t.cache.mu.Lock()
	defer t.cache.mu.Unlock()
	n := 0
	for _, fresh := range t.fresh {
		n += len(fresh)
	}
	if t.cache.seen == nil || t.cache.size+n > maxCachedValues {
		t.cache.seen, t.cache.size = map[string]map[int64]int64{}, 0
	}
	for env, fresh := range t.fresh {
		seen := t.cache.seen[env]
		if seen == nil {
			seen = make(map[int64]int64, len(fresh))
			t.cache.seen[env] = seen
		}
		for h, hour := range fresh {
			if _, ok := seen[h]; !ok {
				t.cache.size++
			}
			seen[h] = hour
		}
	}
}

// valuesDialect renders a filter on the dictionary's value (as v.value)
// instead of a span's attribute: the same SQL, so the same semantics.
var valuesDialect = dialectOf(func(string) (value, exists sqlfilter.Expr) {
	return sqlfilter.Expr{SQL: "v.value"}, sqlfilter.Expr{SQL: "1"}
})

// resolveFilters returns posting filters for the filters of q the
// dictionary resolves within r: each the in-list of the values of its key,
// in the range's hours, that match it. A filter whose key has a gap in
// those hours, or that matches more than index.MaxResolvedValues values, is left
// out (its spans are read).
func resolveFilters(ctx context.Context, tx querier, q warehouse.SpanQuery, r index.PostingRange) ([]index.PostingFilter, error) {
	var out []index.PostingFilter
	for i, f := range q.Filters {
		ref := warehouse.ResolveSpanField(f.Field)
		if !index.Resolvable(f, ref) {
			continue
		}
		if !r.DictionaryHolds() {
			return nil, nil
		}
		lo, hi := r.Bounds()
		if hi < lo || index.HourOf(hi)-index.HourOf(lo) >= index.MaxResolvedHours {
			return nil, nil
		}
		values, hours, ok, err := resolveValues(ctx, tx, f, ref, r.Envs, index.HourOf(lo), index.HourOf(hi))
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, index.PostingFilter{Index: i, Key: ref.Key, Values: values, Hours: hours, Resolved: true})
		}
	}
	return out, nil
}

// resolveValues returns the values of ref's key in envs and the hours
// [from, to] that f matches, with the first and last of those hours each
// value was recorded in (ok false: the key has a gap there, or f matches
// more than index.MaxResolvedValues values).
func resolveValues(ctx context.Context, tx querier, f warehouse.Filter, ref warehouse.FieldRef, envs []string,
	from, to int64) (values []string, hours []index.HourSpan, ok bool, err error) {
	keys := make([]any, len(envs))
	for i, env := range envs {
		keys[i] = valueKeyHash(env, ref.Key)
	}
	keyIn := placeholders(len(keys))
	var gap int
	err = tx.QueryRowContext(ctx, hoursCTE+`SELECT count(*) FROM (SELECT 1 FROM hours CROSS JOIN span_value_gaps AS g
		ON g.hour = hours.h AND g.key_hash IN (`+keyIn+`) LIMIT 1)`, append([]any{from, to}, keys...)...).Scan(&gap)
	if err != nil {
		return nil, nil, false, fmt.Errorf("attribute value gaps: %w", mapErr(err))
	}
	if gap > 0 {
		return nil, nil, false, nil
	}
	cond := valuesDialect.Cond(f, ref)
	query := hoursCTE + `SELECT v.value, min(v.hour), max(v.hour) FROM hours CROSS JOIN span_values AS v
		ON v.hour = hours.h AND v.key_hash IN (` + keyIn + `) WHERE ` + cond.SQL + ` GROUP BY v.value LIMIT ?`
	args := append(append(append([]any{from, to}, keys...), cond.Args...), index.MaxResolvedValues+1)
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, false, fmt.Errorf("attribute values: %w", mapErr(err))
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		var h index.HourSpan
		if err := rows.Scan(&v, &h.First, &h.Last); err != nil {
			return nil, nil, false, fmt.Errorf("attribute values: %w", mapErr(err))
		}
		values, hours = append(values, v), append(hours, h)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, fmt.Errorf("attribute values: %w", mapErr(err))
	}
	if len(values) > index.MaxResolvedValues {
		return nil, nil, false, nil
	}
	return values, hours, true, nil
}
