package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"

	"hash/fnv"
	"math"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// maxIndexedValue is the longest attribute value the equality index holds;
// longer values (prompts, payloads) are found by scanning.
const maxIndexedValue = 256

const hourMs = 3600 * 1000

// hourOf is the index hour of a timestamp (Unix ms).
func hourOf(ms int64) int64 {
	if ms < 0 {
		return -((-ms + hourMs - 1) / hourMs)
	}
	return ms / hourMs
}

// attrHash is the 31-bit index hash of one attribute of a span in env:
// small enough for SQLite's 4-byte integers. Within one hour of one index
// the chance that an unrelated attribute shares a hash stays tiny, and
// queries re-check the attribute anyway.
func attrHash(env, key, value string) int64 {
	h := fnv.New64a()
	h.Write([]byte(env))
	h.Write([]byte{0})
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write([]byte(value))
	return int64(h.Sum64() & math.MaxInt32)
}

// indexable reports whether value is held by the equality index.
func indexable(value string) bool { return len(value) <= maxIndexedValue }

// traceIDKey is the index key of the trace_id column; the NUL keeps it
// apart from attribute keys in practice (a collision would only cost a
// re-check).
const traceIDKey = "\x00trace_id"

// postingKey identifies one posting list of a write: an hour and a hash.
type postingKey struct{ hour, hash int64 }

// postings collects the index entries of one WriteSpans call: for each
// (hour, hash) the offsets of its spans from the batch's first sequence
// number. Spans of a batch share most attribute values (models, users,
// workflows), so one row per posting list replaces many per-span rows.
type postings struct {
	first int64 // sequence number of offset 0
	lists map[postingKey][]int64
}

func newPostings(first int64) *postings {
	return &postings{first: first, lists: map[postingKey][]int64{}}
}

// add indexes one span of start time timestamp: hashes are those of its
// trace id and indexable span attributes (prepared.hashes).
func (p *postings) add(seq, timestamp int64, hashes []int64) {
	hour, off := hourOf(timestamp), seq-p.first
	for _, h := range hashes {
		k := postingKey{hour, h}
		if l := p.lists[k]; len(l) == 0 || l[len(l)-1] != off { // a hash twice in one span
			p.lists[k] = append(l, off)
		}
	}
}

// Index rows: at most maxPostingLen offsets per row (rows stay well inside
// a page), indexRowsPerInsert rows per INSERT.
const (
	maxPostingLen      = 512
	indexRowsPerInsert = 100
)

// insertIndexSQL starts the insert of index rows (hour, hash, base,
// offsets).
const insertIndexSQL = "INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES "

// write inserts the posting lists in key order (the B-tree inserts walk
// forward). Each row holds base, a sequence number, and offsets, a JSON
// array of the row's sequence numbers minus base.
func (p *postings) write(ctx context.Context, tx *sql.Tx, stmts *stmtCache) error {
	keys := make([]postingKey, 0, len(p.lists))
	for k := range p.lists {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b postingKey) int {
		return cmp.Or(cmp.Compare(a.hour, b.hour), cmp.Compare(a.hash, b.hash))
	})
	rows := newRowInserter(tx, stmts, insertIndexSQL, 4, indexRowsPerInsert)
	defer rows.close()
	var buf []byte
	for _, k := range keys {
		list := p.lists[k]
		for len(list) > 0 {
			chunk := list[:min(len(list), maxPostingLen)]
			list = list[len(chunk):]
			base := chunk[0]
			buf = append(buf[:0], '[')
			for i, off := range chunk {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendInt(buf, off-base, 10)
			}
			buf = append(buf, ']')
			if err := rows.add(ctx, k.hour, k.hash, p.first+base, string(buf)); err != nil {
				return err
			}
		}
	}
	return rows.flush(ctx)
}

// defaultMaxIndexCandidates bounds the spans a query takes from the
// attribute index; a filter matching more spans than that in the time
// range is cheaper as a time-ordered scan.
const defaultMaxIndexCandidates = 20000

// indexableFilter returns the hashes of the first span-attribute or
// trace_id equals / in filter of q whose values the index holds.
func indexableFilter(q warehouse.SpanQuery, env string) []int64 {
	for _, f := range q.Filters {
		ref := warehouse.ResolveSpanField(f.Field)
		switch {
		case ref.Kind == warehouse.KindColumn && ref.Column == "trace_id":
			ref.Key = traceIDKey
		case ref.Kind != warehouse.KindSpanAttribute:
			continue
		}
		if f.ValueType == warehouse.TypeNumber {
			continue
		}
		var values []string
		switch f.Operator {
		case warehouse.OpEquals:
			values = []string{f.Value}
		case warehouse.OpIn:
			values = f.Values
		default:
			continue
		}
		if len(values) == 0 || len(values) > 100 {
			continue
		}
		ok := true
		hashes := make([]int64, 0, len(values))
		for _, v := range values {
			ok = ok && indexable(v)
			hashes = append(hashes, attrHash(env, ref.Key, v))
		}
		if ok {
			return hashes
		}
	}
	return nil
}

// attrIndexLookup returns a subquery of candidate span seqs from the
// attribute index when q has an indexable filter that is selective enough
// (at most s.maxIndexCandidates spans in its time range), else nil.
func (s *Store) attrIndexLookup(ctx context.Context, q warehouse.SpanQuery) (*sqlfilter.Expr, error) {
	var hashes []int64
	for _, env := range q.Environments {
		h := indexableFilter(q, env)
		if h == nil {
			return nil, nil
		}
		hashes = append(hashes, h...)
	}
	var lo, hi sql.NullInt64
	if err := s.reader.QueryRowContext(ctx, `SELECT (SELECT min(hour) FROM span_attr_index), (SELECT max(hour) FROM span_attr_index)`).Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("attribute index range: %w", mapErr(err))
	}
	if !lo.Valid {
		return nil, nil
	}
	from, to := max(hourOf(q.FromMs), lo.Int64), hi.Int64
	if q.ToMs != 0 {
		to = min(hourOf(q.ToMs), hi.Int64)
	}
	args := []any{from, to}
	for _, h := range hashes {
		args = append(args, h)
	}
	lookup := &sqlfilter.Expr{
		SQL: `WITH RECURSIVE hours(h) AS (SELECT ? UNION ALL SELECT h + 1 FROM hours WHERE h < ?)
			SELECT base + o.value FROM hours CROSS JOIN span_attr_index ON hour = h CROSS JOIN json_each(offsets) AS o
			WHERE hash IN (` + placeholders(len(hashes)) + `)`,
		Args: args,
	}
	var n int
	if err := s.reader.QueryRowContext(ctx, "SELECT count(*) FROM ("+lookup.SQL+" LIMIT ?)",
		append(append([]any{}, args...), s.maxIndexCandidates+1)...).Scan(&n); err != nil {
		return nil, fmt.Errorf("attribute index probe: %w", mapErr(err))
	}
	if n > s.maxIndexCandidates {
		return nil, nil
	}
	return lookup, nil
}
