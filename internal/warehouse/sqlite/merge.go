package sqlite

import (
	"context"
	"fmt"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
	"time"
)

// Posting runs form a log-structured merge: every write
// adds a run of level 0; the merger copies the oldest runFanout runs of a
// level into one run of the next, up to maxRunLevel, so that a query seeks
// at most about runFanout runs per level plus the top level's. A merge
// copies rows without re-encoding them (INSERT ... SELECT in key order into
// a run numbered above every other, so the copy appends), so each list row
// is written maxRunLevel + 1 times in all, each time in sequence, instead
// of once at a random place of the table.
const (
	defaultRunFanout = 64
	// maxRunLevel stops merges at runs of runFanout writes: every row is
	// copied once. A query of a range seeks the level-1 runs of its time
	// (one per runFanout writes) and the level-0 runs not merged yet; a
	// merge of level-1 runs would copy each row again and hold the
	// writer for seconds at a time.
	maxRunLevel = 1
)

// startMerger starts the merges in the background: the writer pokes the
// worker after its commits; a pass runs until no level has runFanout runs
// (a failed merge, the store busy or closing, is tried again after the
// next commit; queries read unmerged runs meanwhile).
func startMerger(s *Store) *worker {
	return startWorker(func(stop <-chan struct{}) {
		ctx, cancel := stopContext(stop)
		defer cancel()
		_, _ = s.mergeRuns(ctx)
	})
}

// mergeRuns merges the runs of spans, then of metric points, while some
// level below maxRunLevel holds runFanout of them, and returns how many
// merges it made. While spans or points are being written it pauses as
// long as each merge held the writer, so merges take at most about half
// the writer's time.
func (s *Store) mergeRuns(ctx context.Context) (int, error) {
	merges := 0
	for _, t := range []index.PostingTables{spanPostingTables, pointPostingTables} {
		for level := 0; level < maxRunLevel; {
			// A look outside a transaction first: most passes find
			// nothing to merge, and need not take the writer's lock for it.
			runs, err := s.oldestRuns(ctx, s.writer, t, level)
			if err != nil {
				return merges, err
			}
			if len(runs) < s.runFanout {
				level++
				continue
			}
			start := time.Now()
			merged, err := s.mergeOnce(ctx, t, level)
			if err != nil {
				return merges, fmt.Errorf("merge %s: %w", t.Runs, err)
			}
			if !merged {
				level++
				continue
			}
			merges++
			if time.Since(time.Unix(0, s.lastWrite.Load())) < time.Second {
				select {
				case <-ctx.Done():
					return merges, ctx.Err()
				case <-time.After(time.Since(start)):
				}
			}
		}
	}
	return merges, nil
}

// oldestRuns returns the oldest runFanout runs of level in t.
func (s *Store) oldestRuns(ctx context.Context, q querier, t index.PostingTables, level int) ([]any, error) {
	runs, err := queryColumn[int64](ctx, q, `SELECT run FROM `+t.Runs+` WHERE level = ? ORDER BY run LIMIT ?`, level, s.runFanout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Runs, err)
	}
	return asArgs(runs), nil
}

// mergeOnce copies the oldest runFanout runs of level in t into one new
// run of level + 1, in one transaction that also picks them (so that two
// merges never take the same runs); merged is false when the level has
// fewer.
func (s *Store) mergeOnce(ctx context.Context, t index.PostingTables, level int) (merged bool, err error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	runs, err := s.oldestRuns(ctx, tx, t, level)
	if err != nil || len(runs) < s.runFanout {
		return false, err
	}
	var next int64
	if err := tx.QueryRowContext(ctx, t.NextRunSQL()).Scan(&next); err != nil {
		return false, fmt.Errorf("next run: %w", mapErr(err))
	}
	in := "run IN (" + placeholders(len(runs)) + ")"
	for _, step := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO ` + t.Runs + ` (run, level, first_seq, last_seq, min_ts, max_ts)
			SELECT ?, ?, min(first_seq), max(last_seq), min(min_ts), max(max_ts) FROM ` + t.Runs + ` WHERE ` + in,
			append([]any{next, level + 1}, runs...)},
		{`INSERT OR FAIL INTO ` + t.Lists + ` (run, environment, hash, base, n, min_ts, max_ts, offsets)
			SELECT ?, environment, hash, base, n, min_ts, max_ts, offsets FROM ` + t.Lists + ` WHERE ` + in +
			` ORDER BY environment, hash, base`, append([]any{next}, runs...)},
		{`DELETE FROM ` + t.Lists + ` WHERE ` + in, runs},
		{`DELETE FROM ` + t.Runs + ` WHERE ` + in, runs},
	} {
		if _, err := tx.ExecContext(ctx, step.sql, step.args...); err != nil {
			return false, mapErr(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("commit: %w", mapErr(err))
	}
	s.checkpoints.poke()
	return true, nil
}
