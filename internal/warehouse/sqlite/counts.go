package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
)

const minuteMs = 60 * 1000

// minuteOf is the span_counts minute of a timestamp (Unix ms).
func minuteOf(ms int64) int64 {
	if ms < 0 {
		return -((-ms + minuteMs - 1) / minuteMs)
	}
	return ms / minuteMs
}

// minuteCount is a change of span_counts: n spans more (or fewer) in
// environment env and minute.
type minuteCount struct {
	env    string
	minute int64
	n      int64
}

// minuteCounts accumulates the span_counts changes of one transaction.
type minuteCounts struct {
	m map[minuteCountKey]int64
}

type minuteCountKey struct {
	env    string
	minute int64
}

func (c *minuteCounts) add(env string, timestamp, n int64) {
	if c.m == nil {
		c.m = map[minuteCountKey]int64{}
	}
	c.m[minuteCountKey{env, minuteOf(timestamp)}] += n
}

// Statements of minuteCounts.write, compiled once (writerStatements).
const (
	upsertCountSQL = `INSERT INTO span_counts (environment, minute, n) VALUES (?, ?, ?)
		ON CONFLICT (environment, minute) DO UPDATE SET n = n + excluded.n`
	dropEmptyCountSQL = `DELETE FROM span_counts WHERE environment = ? AND minute = ? AND n <= 0`
)

// write applies the changes within tx, in key order; a minute left with
// no span loses its row.
func (c *minuteCounts) write(ctx context.Context, tx *sql.Tx, stmts *stmtCache) error {
	if len(c.m) == 0 {
		return nil
	}
	changes := make([]minuteCount, 0, len(c.m))
	for k, n := range c.m {
		if n != 0 {
			changes = append(changes, minuteCount{k.env, k.minute, n})
		}
	}
	slices.SortFunc(changes, func(a, b minuteCount) int {
		return cmp.Or(cmp.Compare(a.env, b.env), cmp.Compare(a.minute, b.minute))
	})
	upsert, err := stmts.in(ctx, tx, upsertCountSQL)
	if err != nil {
		return fmt.Errorf("span counts: %w", err)
	}
	var drop *sql.Stmt
	for _, ch := range changes {
		if _, err := upsert.ExecContext(ctx, ch.env, ch.minute, ch.n); err != nil {
			return fmt.Errorf("span counts: %w", err)
		}
		if ch.n > 0 {
			continue
		}
		if drop == nil {
			if drop, err = stmts.in(ctx, tx, dropEmptyCountSQL); err != nil {
				return fmt.Errorf("span counts: %w", err)
			}
		}
		if _, err := drop.ExecContext(ctx, ch.env, ch.minute); err != nil {
			return fmt.Errorf("span counts: %w", err)
		}
	}
	return nil
}

// querier runs queries: the reader pool or one read transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// countRange returns the spans of envs with a start time in [from, to]
// (to 0: open) and a sequence number up to snapshot. The minutes the
// range covers whole are summed from span_counts, the part minutes at its
// ends counted on the time index, so the cost grows with the minutes of
// the range, not with its spans. q must be the read transaction that took
// the snapshot: span_counts then holds exactly the spans up to it.
func countRange(ctx context.Context, q querier, envs []string, from, to, snapshot int64) (int64, error) {
	var total int64
	for _, env := range envs {
		n, err := countSplit(from, to, minuteMs, func(first, last int64) (int64, error) {
			var sum sql.NullInt64
			if err := q.QueryRowContext(ctx, `SELECT sum(n) FROM span_counts WHERE environment = ? AND minute BETWEEN ? AND ?`,
				env, first, last).Scan(&sum); err != nil {
				return 0, fmt.Errorf("count spans: %w", mapErr(err))
			}
			return sum.Int64, nil
		}, func(from, to int64) (int64, error) {
			return countOnTimeIndex(ctx, q, env, from, to, snapshot)
		})
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// countSplit counts what lies in [from, to] (to 0: open) as the sum of
// the whole units of unitMs the range covers (whole, given the first and
// last unit number, ms/unitMs rounded down) and of what lies in the part
// units at its ends (part, given a sub-range).
func countSplit(from, to, unitMs int64, whole func(first, last int64) (int64, error), part func(from, to int64) (int64, error)) (int64, error) {
	unitOf := func(ms int64) int64 {
		if ms < 0 {
			return -((-ms + unitMs - 1) / unitMs)
		}
		return ms / unitMs
	}
	open := to == 0
	firstFull := unitOf(from)
	if firstFull*unitMs < from {
		firstFull++
	}
	lastFull := int64(math.MaxInt64)
	if !open {
		lastFull = unitOf(to+1) - 1 // the last unit that ends by to
	}
	if firstFull > lastFull {
		return part(from, to)
	}
	total, err := whole(firstFull, lastFull)
	if err != nil {
		return 0, err
	}
	if from < firstFull*unitMs {
		n, err := part(from, firstFull*unitMs-1)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if !open && to >= (lastFull+1)*unitMs {
		n, err := part((lastFull+1)*unitMs, to)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// countOnTimeIndex counts the spans of env with a start time in [from,
// to] (to 0: open) and a sequence number up to snapshot, on the time
// index.
func countOnTimeIndex(ctx context.Context, q querier, env string, from, to, snapshot int64) (int64, error) {
	query := `SELECT count(*) FROM spans INDEXED BY spans_env_time WHERE environment = ? AND timestamp >= ? AND seq <= ?`
	args := []any{env, from, snapshot}
	if to != 0 {
		query += ` AND timestamp <= ?`
		args = append(args, to)
	}
	var n int64
	if err := q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count spans: %w", mapErr(err))
	}
	return n, nil
}
