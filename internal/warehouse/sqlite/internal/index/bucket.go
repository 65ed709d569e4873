package index

import (
	"fmt"
	"maps"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// HourMs is one hour in milliseconds, the unit of the hour columns.
const HourMs = 3600 * 1000

// BucketHour is the hour of a span's start in the bucketed sort indexes
// (their third column): integer division, as in 00001_v0_1_0.sql.
const BucketHour = "timestamp / 3600000"

// SortIndex is the index of a sort key other than time. An exact index
// is in (column, seq) order; a bucketed one in (bucket, seq) order,
// Bucket an SQL expression of the column, so a read sorts each bucket it
// needs by the column.
type SortIndex struct {
	Name   string
	Bucket string // "" for an exact index
}

// sortIndexes are the sort indexes of the schema, by sort key (read only).
var sortIndexes = map[warehouse.SortKey]SortIndex{
	warehouse.SortDuration:      {"spans_env_duration", NumberBucket("duration")},
	warehouse.SortTotalTokens:   {"spans_env_tokens", NumberBucket("total_tokens")},
	warehouse.SortTraceID:       {"spans_env_trace", HexDigitBucket("trace_id")},
	warehouse.SortWorkflowName:  {"spans_env_workflow", ""},
	warehouse.SortEntityName:    {"spans_env_entity", ""},
	warehouse.SortResponseModel: {"spans_env_model", ""},
}

// SortIndexOf returns the sort index of key; ok is false when key has
// none (time and span name are read on other indexes).
func SortIndexOf(key warehouse.SortKey) (idx SortIndex, ok bool) {
	idx, ok = sortIndexes[key]
	return idx, ok
}

// SortIndexes returns every sort index by its key (a copy).
func SortIndexes() map[warehouse.SortKey]SortIndex { return maps.Clone(sortIndexes) }

// NumberIndex returns the bucketed sort index of a numeric column.
func NumberIndex(column string) (SortIndex, bool) {
	for key, idx := range sortIndexes {
		if col, numeric := key.Column(); col == column && numeric && idx.Bucket != "" {
			return idx, true
		}
	}
	return SortIndex{}, false
}

// NumberBucket is the bucket expression of a numeric column in its sort
// index (00001_v0_1_0.sql holds the same text): 16 linear buckets per
// factor of 16 from 0 on (width 16 below 256, 256 below 4 096, 4 096
// below 65 536, ...), -1 for negative values. Monotone in the value. (8
// per factor were too few: a week's top bucket of durations spread up to
// 30 s held 18 % of the week, a page sorted by duration read all of it.)
func NumberBucket(col string) string {
	var b strings.Builder
	b.WriteString("(CASE WHEN " + col + " < 0 THEN -1")
	base, limit, width := 0, 256, 16
	for range 6 {
		fmt.Fprintf(&b, " WHEN %s < %d THEN %d + %s / %d", col, limit, base, col, width)
		base, limit, width = base+16, limit*16, width*16
	}
	fmt.Fprintf(&b, " ELSE %d + %s / %d END)", base, col, width)
	return b.String()
}

// HexDigitBucket is the CASE expression of col's first hex digit (0–15),
// by comparisons (monotone in string order; a value of other characters
// falls in the bucket of its place among them): the bucket of a trace id
// in its sort index (00001_v0_1_0.sql holds the same text).
func HexDigitBucket(col string) string {
	const digits = "0123456789abcdef"
	var b strings.Builder
	b.WriteString("(CASE")
	for i := range len(digits) - 1 {
		fmt.Fprintf(&b, " WHEN %s < '%c' THEN %d", col, digits[i+1], i)
	}
	fmt.Fprintf(&b, " ELSE %d END)", len(digits)-1)
	return b.String()
}
