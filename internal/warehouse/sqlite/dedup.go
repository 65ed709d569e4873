package sqlite

import (
	"context"
	"database/sql"
	"hash/fnv"
	"math"
	"sort"
	"strconv"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// dedupKey is a 64-bit FNV-1a hash of parts, each ended by a 0 byte, as a
// signed integer (an SQLite INTEGER PRIMARY KEY). Two different rows share
// a key with probability about n²/2⁶⁵ (3·10⁻⁸ for a million rows); the later
// one would then be skipped as a duplicate.
func dedupKey(parts ...string) int64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return int64(h.Sum64())
}

// pointKey is the dedup key of a metric point: everything that makes it
// what it is.
func pointKey(p *warehouse.MetricPoint) int64 {
	parts := []string{p.Environment, p.OrganizationID, p.MetricName, p.Source, strconv.FormatInt(p.EventTime, 10), p.TraceID, p.SpanID}
	switch {
	case p.BoolValue != nil:
		parts = append(parts, "b", strconv.FormatBool(*p.BoolValue))
	case p.NumericValue != nil:
		parts = append(parts, "n", strconv.FormatUint(math.Float64bits(*p.NumericValue), 16))
	case p.EnumValue != nil:
		parts = append(parts, "e", *p.EnumValue)
	}
	parts = appendSorted(append(parts, "labels"), p.Labels)
	parts = appendSorted(append(parts, "attributes"), p.Attributes)
	return dedupKey(parts...)
}

func appendSorted(parts []string, m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k, m[k])
	}
	return parts
}

// insertKey records key and reports whether it was new.
func insertKey(ctx context.Context, stmt *sql.Stmt, key int64) (bool, error) {
	res, err := stmt.ExecContext(ctx, key)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
