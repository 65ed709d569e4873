package clickhouse

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// settledMinRangeMs is the narrowest time range read through settled
// partitions: below it FINAL reads few rows and the two system.parts
// round trips cost more than they save (a 1-hour read, a trace lookup).
const settledMinRangeMs = 6 * 3_600_000

// weekMs is the width of a partition of spans and metric_points
// (PARTITION BY intDiv(time, weekMs)).
const weekMs = 604_800_000

// settledWeeks returns the partitions (weeks, from 1 on) of table
// overlapping [from, to] (to 0: no upper bound) that consist of one
// active part made by a merge (level > 0), with that part's name. Such a
// part holds at most one row per sort key (the merge collapsed the
// copies), so reading it needs no FINAL. Only on one server: on a cluster
// system.parts shows one node's parts, and every read uses FINAL.
func (s *Store) settledWeeks(ctx context.Context, table string, from, to int64) (map[int64]string, error) {
	if s.schema.cluster != "" {
		return nil, nil
	}
	rows, err := s.conn.Query(ctx, `SELECT partition_id, any(name), count(), min(level) FROM system.parts
		WHERE database = ? AND table = ? AND active GROUP BY partition_id`, s.schema.db, table)
	if err != nil {
		return nil, fmt.Errorf("settled partitions of %s: %w", table, mapErr(err))
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id, name string
		var parts uint64
		var level uint32
		if err := rows.Scan(&id, &name, &parts, &level); err != nil {
			return nil, fmt.Errorf("settled partitions of %s: %w", table, mapErr(err))
		}
		week, err := strconv.ParseInt(id, 10, 64)
		if err != nil || week < 1 || parts != 1 || level == 0 {
			continue
		}
		if (week+1)*weekMs-1 < from || (to != 0 && week*weekMs > to) {
			continue
		}
		out[week] = name
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("settled partitions of %s: %w", table, mapErr(err))
	}
	return out, nil
}

// partsActive reports whether every named part of table is still active
// (a read that started after one of them was merged away missed rows).
func (s *Store) partsActive(ctx context.Context, table string, names []string) (bool, error) {
	args := []any{s.schema.db, table}
	for _, n := range names {
		args = append(args, n)
	}
	var n uint64
	if err := s.conn.QueryRow(ctx, "SELECT count() FROM system.parts WHERE database = ? AND table = ? AND active AND name IN ("+
		placeholders(len(names))+")", args...).Scan(&n); err != nil {
		return false, fmt.Errorf("check parts of %s: %w", table, mapErr(err))
	}
	return n == uint64(len(names)), nil
}

// splitSelect renders "SELECT cols FROM table ... WHERE cond AND filter"
// reading the settled weeks without FINAL (only from their merged part,
// so rows of a part added meanwhile are not read uncollapsed) and the rest
// of the range with FINAL, as one UNION ALL; timeCol is the partitioning
// column. It returns the statement, its arguments and the settled parts'
// names (to check with partsActive after the read).
//
// Under FINAL the filter is not evaluated on the rows being collapsed:
// FINAL merges every column the query reads, row by row, and the filters
// read wide columns (attribute arrays), which made FINAL ~10x slower than
// the same read without it. Instead the FINAL read takes the narrow
// columns and keeps the rows whose seq is in a FINAL-free subquery of the
// copies that match: the collapsed row of a key is returned exactly when
// that copy matches.
func splitSelect(table, cols, timeCol string, kr keyRead, settled map[int64]string) (string, []any, []string) {
	weeks := make([]int64, 0, len(settled))
	for w := range settled {
		weeks = append(weeks, w)
	}
	slices.Sort(weeks)
	var clean, dirty []string
	var cleanArgs, dirtyArgs, parts []any
	var names []string
	prev := int64(-1 << 62) // the end of the last settled week + 1
	for _, w := range weeks {
		lo, hi := w*weekMs, (w+1)*weekMs-1
		if lo > prev {
			dirty = append(dirty, "("+timeCol+" >= ? AND "+timeCol+" < ?)")
			dirtyArgs = append(dirtyArgs, prev, lo)
		}
		clean = append(clean, "("+timeCol+" >= ? AND "+timeCol+" <= ?)")
		cleanArgs = append(cleanArgs, lo, hi)
		parts = append(parts, settled[w])
		names = append(names, settled[w])
		prev = hi + 1
	}
	dirty = append(dirty, timeCol+" >= ?")
	dirtyArgs = append(dirtyArgs, prev)

	rangeCond := kr.cond + " AND (" + strings.Join(dirty, " OR ") + ")"
	rangeArgs := append(slices.Clone(kr.args), dirtyArgs...)
	final := "SELECT " + cols + " FROM " + table + " FINAL WHERE " + rangeCond
	finalArgs := slices.Clone(rangeArgs)
	filter := strings.Join(kr.filter, " AND ")
	switch {
	case kr.groupBy != "":
		// Every copy of a key matches alike: collapse only the matching
		// rows, the first copy (highest ver) standing for its key.
		final = "SELECT argMax(seq, ver) AS key_seq, " + kr.timeCol + " AS t, " + kr.sortExpr + " AS sort_value FROM " + table +
			" WHERE " + rangeCond
		if len(kr.filter) > 0 {
			final += " AND " + filter
			finalArgs = append(finalArgs, kr.filterArgs...)
		}
		final += " GROUP BY " + kr.groupBy
	case len(kr.filter) > 0:
		final += " AND seq IN (SELECT seq FROM " + table + " WHERE " + rangeCond + " AND " + filter + ")"
		finalArgs = append(append(finalArgs, rangeArgs...), kr.filterArgs...)
	}
	if len(weeks) == 0 {
		return final, finalArgs, nil
	}
	plain := "SELECT " + cols + " FROM " + table + " WHERE " + kr.cond + " AND (" + strings.Join(clean, " OR ") +
		") AND _part IN (" + placeholders(len(parts)) + ")"
	plainArgs := append(append(slices.Clone(kr.args), cleanArgs...), parts...)
	if len(kr.filter) > 0 {
		plain += " AND " + filter
		plainArgs = append(plainArgs, kr.filterArgs...)
	}
	return final + " UNION ALL " + plain, append(finalArgs, plainArgs...), names
}

// keyRead is the first step of a page read: the sequence numbers and
// times of the page's rows, sorted by order (over sort_value = sortExpr
// and key_seq = seq), LIMIT limit...
type keyRead struct {
	table, timeCol string // the table (unqualified) and its partitioning time column
	cond           string // on the sort key, seq and narrow columns
	args           []any
	filter         []string // conditions on wide columns, ANDed
	filterArgs     []any
	// groupBy, when set, is the table's sort key, every condition (cond
	// and filter) is true for either all copies of a key or none (seq
	// bounds aside: they only drop later copies, never the first), and
	// sortExpr is a sort key column: the unsettled weeks are then
	// collapsed by GROUP BY over the matching rows instead of FINAL over
	// the whole range.
	groupBy  string
	sortExpr string
	order    string
	limit    []any // LIMIT arguments: n, or offset, n
	from, to int64 // the time range cond restricts to (to 0: none)
}

// pageKeys is the result of a keyRead.
type pageKeys struct {
	seqs       []int64
	times      []int64 // times[i] is the time of seqs[i]
	minT, maxT int64   // of the rows read
	counter    *limitCounter
}

// readKeys runs a keyRead: settled weeks without FINAL, the rest with
// FINAL (see splitSelect). When a settled part was merged away during the
// read, it reads again with FINAL everywhere.
func (s *Store) readKeys(ctx context.Context, kr keyRead) (pageKeys, error) {
	var settled map[int64]string
	if kr.to == 0 || kr.to-kr.from >= settledMinRangeMs {
		var err error
		if settled, err = s.settledWeeks(ctx, kr.table, kr.from, kr.to); err != nil {
			return pageKeys{}, err
		}
	}
	for {
		inner, args, parts := splitSelect(s.schema.table(kr.table), "seq AS key_seq, "+kr.timeCol+" AS t, "+kr.sortExpr+" AS sort_value",
			kr.timeCol, kr, settled)
		query := "SELECT key_seq, t FROM (" + inner + ") ORDER BY " + kr.order + " LIMIT " + placeholders(len(kr.limit))
		keys, err := s.runKeyQuery(ctx, query, append(args, kr.limit...))
		if err != nil || len(parts) == 0 {
			return keys, err
		}
		ok, err := s.partsActive(ctx, kr.table, parts)
		if err != nil || ok {
			return keys, err
		}
		settled = nil
	}
}

func (s *Store) runKeyQuery(ctx context.Context, query string, args []any) (pageKeys, error) {
	qctx, counter := s.countingContext(ctx)
	if s.schema.cluster != "" {
		// The seq IN (subquery) of a Distributed read: each shard runs it
		// on its own local table (the copies of a span or point share a
		// shard), instead of the default refusal of a distributed
		// subquery inside a distributed query.
		qctx = ch.Context(qctx, ch.WithSettings(ch.Settings{"distributed_product_mode": "local"}))
	}
	keys := pageKeys{minT: math.MaxInt64, maxT: math.MinInt64, counter: counter}
	rows, err := s.conn.Query(qctx, query, args...)
	if err != nil {
		return keys, mapErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq, t int64
		if err := rows.Scan(&seq, &t); err != nil {
			return keys, mapErr(err)
		}
		keys.seqs, keys.times = append(keys.seqs, seq), append(keys.times, t)
		keys.minT, keys.maxT = min(keys.minT, t), max(keys.maxT, t)
	}
	if err := rows.Err(); err != nil {
		return keys, mapErr(err)
	}
	return keys, nil
}
