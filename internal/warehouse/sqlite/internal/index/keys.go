package index

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// The posting keys and hashes: a posting list (span_postings,
// point_postings) is keyed by the hash of one value of one key.

// MaxIndexedValue is the longest attribute value the equality index holds;
// longer values (prompts, payloads) are found by scanning.
const MaxIndexedValue = 256

// Indexable reports whether value is held by the equality index.
func Indexable(value string) bool { return len(value) <= MaxIndexedValue }

// HourOf is the index hour of a timestamp (Unix ms).
func HourOf(ms int64) int64 {
	if ms < 0 {
		return -((-ms + HourMs - 1) / HourMs)
	}
	return ms / HourMs
}

// TraceIDKey is the posting key of the trace_id column; the NUL keeps it
// apart from attribute keys in practice (a collision would only cost a
// re-check).
const TraceIDKey = "\x00trace_id"

// ColumnKey is the posting key of a column's values.
func ColumnKey(column string) string { return "\x00" + column }

// KeyPostingPrefix starts the posting key of an attribute key's own list:
// the spans that carry the key, whatever its value, listed under
// KeyPostingHash(key) for exists / not_exists filters.
const KeyPostingPrefix = "\x01"

// ResourcePostingPrefix starts the posting key of a resource attribute's
// values: "\x02" + key, hashed with the value as the stored JSON spells
// both.
const ResourcePostingPrefix = "\x02"

// ReservedKey reports whether an attribute key starts like the posting
// keys of columns ("\x00"), of attribute keys ("\x01") or of resource
// attributes ("\x02"): the postings leave such keys out (their filters
// read the spans), so that no attribute can add to another list's count.
func ReservedKey(key string) bool { return key != "" && key[0] <= 2 }

// PostingHash is the hash of one value of key (an attribute key, or a
// column's key) in span_postings, whose rows also carry the environment:
// 63 bits, so that two different values of one environment share a hash
// with a chance of about 2^-63 per pair, and a list's length counts the
// spans holding its value. Another environment's spans never share a
// list. Pages re-check every row they return.
func PostingHash(key, value string) int64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * prime
	}
	h = (h ^ 0) * prime
	for i := 0; i < len(value); i++ {
		h = (h ^ uint64(value[i])) * prime
	}
	return int64(h >> 1)
}

// KeyPostingHash is PostingHash(KeyPostingPrefix+key, ""), the hash of
// key's own list, without building the string.
func KeyPostingHash(key string) int64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	h = (h ^ uint64(KeyPostingPrefix[0])) * prime
	for i := 0; i < len(key); i++ {
		h = (h ^ uint64(key[i])) * prime
	}
	h = (h ^ 0) * prime
	return int64(h >> 1)
}

// JSONKey is key as a JSON object key once encoded: each byte of invalid
// UTF-8 becomes U+FFFD, as encoding/json writes it. The exists filters
// test the encoded attributes, so key lists are by it.
func JSONKey(key string) string {
	if utf8.ValidString(key) {
		return key
	}
	var b strings.Builder
	for i := 0; i < len(key); {
		r, n := utf8.DecodeRuneInString(key[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(key[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TextEqualityValues returns the distinct values of f, a text equality or
// in-list of at most maxValues values, each indexable; ok is false for any
// other filter.
func TextEqualityValues(f warehouse.Filter, maxValues int) (values []string, ok bool) {
	if f.ValueType != "" && f.ValueType != warehouse.TypeString {
		return nil, false
	}
	switch f.Operator {
	case warehouse.OpEquals:
		values = []string{f.Value}
	case warehouse.OpIn:
		values = slices.Compact(slices.Sorted(slices.Values(f.Values)))
	default:
		return nil, false
	}
	if len(values) == 0 || len(values) > maxValues || slices.ContainsFunc(values, notIndexable) {
		return nil, false
	}
	return values, true
}

func notIndexable(value string) bool { return !Indexable(value) }

// AppendOffsets appends offs less base to b as a JSON array: a posting
// row's offsets column.
func AppendOffsets(b []byte, offs []int64, base int64) []byte {
	b = append(b, '[')
	for i, off := range offs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, off-base, 10)
	}
	return append(b, ']')
}
