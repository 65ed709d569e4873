package clickhouse

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Retention on ClickHouse (README.md, "Retention"), chosen by the
// server's version: from 19.6 on, a table TTL (the server deletes expired
// rows during merges); before (18.16 has no TTL), the pruning job drops
// whole expired partitions — spans and metric_points are partitioned by
// week, so a week goes once its last millisecond is older than the
// retention plus the grace period. Dropping a partition is a metadata
// operation: bounded, whatever the week holds.

// ttlMinVersion is the first server version with table TTL.
var ttlMinVersion = [2]int{19, 6}

// supportsTTL reports whether a server of version (as version() prints
// it, "18.16.1") has table TTL.
func supportsTTL(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return major > ttlMinVersion[0] || major == ttlMinVersion[0] && minor >= ttlMinVersion[1]
}

// prunedTable is a table the retention applies to.
type prunedTable struct {
	name    string // spans, metric_points, span_traces
	timeCol string // the partitioning (and TTL) time column
	// lagWeeks keeps this many more weeks than the retention: span_traces
	// rows cover the spans of a write batch and may start a week earlier
	// than some of them.
	lagWeeks int64
}

// maxDropsPerRun bounds the partitions one run drops per table.
const maxDropsPerRun = 4

// Prune runs one pruning pass (warehouse.Pruner): on a server with TTL its
// first run gives the tables their TTL (once per store: on newer servers
// MODIFY TTL rewrites parts); otherwise it drops the expired weeks.
func (s *Store) Prune(ctx context.Context) (warehouse.Pruned, error) {
	var out warehouse.Pruned
	if err := s.ready(ctx, "prune"); err != nil {
		return out, err
	}
	r := s.retention
	var version string
	if err := s.conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return out, fmt.Errorf("prune: server version: %w", mapErr(err))
	}
	ttl := supportsTTL(version)
	if ttl && s.ttlSet.Load() {
		return out, nil // the server deletes; the TTL is set
	}
	for _, t := range []struct {
		keep   time.Duration
		tables []prunedTable
		count  *int64
	}{
		{r.Spans, []prunedTable{{name: "spans", timeCol: "timestamp"}, {name: "span_traces", timeCol: "min_ts", lagWeeks: 1},
			{name: "evaluation_counts", timeCol: "bucket"}, {name: "span_stats", timeCol: "bucket"},
			{name: "trace_stats", timeCol: "start_ms"}}, &out.Spans},
		{r.MetricPoints, []prunedTable{{name: "metric_points", timeCol: "event_time"}}, &out.MetricPoints},
	} {
		if t.keep <= 0 {
			continue
		}
		for i, pt := range t.tables {
			var n int64
			var err error
			if ttl {
				err = s.setTTL(ctx, pt, t.keep+r.Grace)
			} else {
				n, err = s.dropExpiredWeeks(ctx, pt, time.Now().Add(-t.keep-r.Grace).UnixMilli())
			}
			if err != nil {
				return out, fmt.Errorf("prune %s: %w", pt.name, err)
			}
			if i == 0 {
				*t.count += n
			}
		}
	}
	if ttl {
		s.ttlSet.Store(true)
	}
	return out, nil
}

// localTable is the name of a table's data on this server: the table, or
// its _local table behind the Distributed one on a cluster.
func (s *Store) localTable(name string) string {
	if s.schema.cluster != "" {
		return name + "_local"
	}
	return name
}

// ttlStatement is the DDL giving table t a TTL of keep.
func (s *Store) ttlStatement(t prunedTable, keep time.Duration) string {
	return fmt.Sprintf("ALTER TABLE %s%s MODIFY TTL toDateTime(intDiv(%s, 1000)) + INTERVAL %d SECOND",
		s.schema.table(s.localTable(t.name)), s.schema.onCluster(), t.timeCol, int64((keep + time.Duration(t.lagWeeks)*weekMs*time.Millisecond).Seconds()))
}

// setTTL gives table t a TTL of keep (idempotent).
func (s *Store) setTTL(ctx context.Context, t prunedTable, keep time.Duration) error {
	if err := s.conn.Exec(ctx, s.ttlStatement(t, keep)); err != nil {
		return fmt.Errorf("set TTL: %w", mapErr(err))
	}
	return nil
}

// expiredWeeks returns the weeks among partitions (partition id → rows)
// whose last millisecond is before bound (lag more weeks kept), oldest
// first, at most maxDropsPerRun.
func expiredWeeks(partitions map[int64]int64, bound, lag int64) []int64 {
	if bound < 0 {
		return nil
	}
	last := bound/weekMs - 1 - lag // (w+1)*weekMs-1 < bound, i.e. w+1 <= bound/weekMs
	var out []int64
	for w := range partitions {
		if w <= last {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	if len(out) > maxDropsPerRun {
		out = out[:maxDropsPerRun]
	}
	return out
}

// dropExpiredWeeks drops the partitions of t wholly before bound and
// returns how many rows they held.
func (s *Store) dropExpiredWeeks(ctx context.Context, t prunedTable, bound int64) (int64, error) {
	rows, err := s.conn.Query(ctx, `SELECT partition_id, sum(rows) FROM system.parts
		WHERE database = ? AND table = ? AND active GROUP BY partition_id`, s.schema.db, s.localTable(t.name))
	if err != nil {
		return 0, fmt.Errorf("partitions: %w", mapErr(err))
	}
	partitions := map[int64]int64{}
	for rows.Next() {
		var id string
		var n uint64
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return 0, fmt.Errorf("partitions: %w", mapErr(err))
		}
		if w, err := strconv.ParseInt(id, 10, 64); err == nil {
			partitions[w] = int64(n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("partitions: %w", mapErr(err))
	}
	var dropped int64
	for _, w := range expiredWeeks(partitions, bound, t.lagWeeks) {
		if err := s.conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s%s DROP PARTITION %d",
			s.schema.table(s.localTable(t.name)), s.schema.onCluster(), w)); err != nil {
			return dropped, fmt.Errorf("drop week %d: %w", w, mapErr(err))
		}
		dropped += partitions[w]
	}
	return dropped, nil
}
