package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// The full-text index (span_text, search.go) can be turned off
// (Options.NoSearchIndex): the writer then leaves it out (the collector
// spends 0.6-0.65x the CPU per stored span of 2 KB of text;
// docs/benchmarks-log.md, "The writer's CPU per stored span"), and a
// search is refused (a
// *warehouse.QueryError on q naming the setting). The spans stored while
// it is off are remembered as ranges of sequence numbers (the setting
// searchGapsKey); when the store opens with the index on again, a
// background worker (searchFiller) indexes them, fillBatch spans a
// transaction, yielding to writes as the merger of posting runs does.
// Until it is done, a search does not find the spans it has not reached.

// searchGapsKey is the settings key of the ranges of spans that are not
// in the full-text index: a JSON array of seqRange.
const searchGapsKey = "search_index_gaps"

// fillBatch is how many spans one transaction of the background fill
// indexes.
const fillBatch = 500

// seqRange is a range of span sequence numbers, both ends included; To
// 0 is a range still open (the index is off: every span from From on).
type seqRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// errSearchOff is the answer to a search while the index is off.
func errSearchOff() error {
	return &warehouse.QueryError{Field: "q", Msg: "full-text search is off in this warehouse " +
		"(the evalapi extension's warehouse.search_index is false); turn it on to search (the spans stored " +
		"meanwhile are indexed in the background), or use the ClickHouse backend"}
}

// readSearchGaps returns the ranges of spans missing from the full-text
// index.
func readSearchGaps(ctx context.Context, q querier) ([]seqRange, error) {
	var raw []byte
	err := q.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, searchGapsKey).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", searchGapsKey, mapErr(err))
	}
	var gaps []seqRange
	if err := json.Unmarshal(raw, &gaps); err != nil {
		return nil, fmt.Errorf("read %s: %w", searchGapsKey, err)
	}
	return gaps, nil
}

// writeSearchGaps stores the ranges (none: the setting goes).
func writeSearchGaps(ctx context.Context, x execer, gaps []seqRange) error {
	if len(gaps) == 0 {
		_, err := x.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, searchGapsKey)
		return mapErr(err)
	}
	raw, err := json.Marshal(gaps)
	if err != nil {
		return err
	}
	_, err = x.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, searchGapsKey, raw)
	return mapErr(err)
}

// openSearchGaps records at Open whether the index is kept from now on:
// off, it opens a range from the next span on (unless one is open); on,
// it closes an open range at the last stored span. It returns the spans
// left to index (none while the index is off: the fill waits for it).
func openSearchGaps(ctx context.Context, db *sql.DB, indexOn bool) (missing int64, err error) {
	gaps, err := readSearchGaps(ctx, db)
	if err != nil {
		return 0, err
	}
	open := len(gaps) > 0 && gaps[len(gaps)-1].To == 0
	if indexOn != open { // on with no open range, or off with one: as it was
		return missingSpans(gaps, indexOn), nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, mapErr(err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if gaps, err = readSearchGaps(ctx, tx); err != nil {
		return 0, err
	}
	var last int64
	if err := tx.QueryRowContext(ctx, spansHighWater).Scan(&last); err != nil {
		return 0, mapErr(err)
	}
	open = len(gaps) > 0 && gaps[len(gaps)-1].To == 0
	switch {
	case !indexOn && !open:
		gaps = append(gaps, seqRange{From: last + 1})
	case indexOn && open:
		if gaps[len(gaps)-1].From > last {
			gaps = gaps[:len(gaps)-1] // no span was stored while it was off
		} else {
			gaps[len(gaps)-1].To = last
		}
	}
	if err := writeSearchGaps(ctx, tx, gaps); err != nil {
		return 0, err
	}
	return missingSpans(gaps, indexOn), mapErr(tx.Commit())
}

// missingSpans is how many spans the fill has left in gaps: none while
// the index is off (the fill waits for it to be on).
func missingSpans(gaps []seqRange, indexOn bool) int64 {
	var n int64
	for _, g := range gaps {
		if indexOn && g.To != 0 {
			n += g.To - g.From + 1
		}
	}
	return n
}

// startSearchFiller starts the worker that indexes the spans stored
// while the full-text index was off.
func startSearchFiller(s *Store, log *zap.Logger) *worker {
	return startWorker(func(stop <-chan struct{}) {
		ctx, cancel := stopContext(stop)
		defer cancel()
		indexed := 0
		for {
			start := time.Now()
			n, err := s.fillSearchIndex(ctx)
			indexed += n
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("Indexing the spans stored while full-text search was off failed; the next start tries again",
						zap.Int("indexed", indexed), zap.Error(err))
				}
				return
			}
			if n == 0 {
				if indexed > 0 {
					log.Info("Indexed the spans stored while full-text search was off", zap.Int("spans", indexed))
				}
				return
			}
			if time.Since(time.Unix(0, s.lastWrite.Load())) < time.Second {
				select { // writes go on: leave them the writer as long
				case <-stop:
					return
				case <-time.After(time.Since(start)):
				}
			}
		}
	})
}

// fillSearchIndex indexes up to fillBatch spans of the first range
// missing from the full-text index, in one transaction, and returns how
// many spans it indexed (0: nothing is missing).
func (s *Store) fillSearchIndex(ctx context.Context) (int, error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("index missing spans: begin: %w", mapErr(err))
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	gaps, err := readSearchGaps(ctx, tx)
	if err != nil || len(gaps) == 0 || gaps[0].To == 0 {
		return 0, err
	}
	g := &gaps[0]
	hi := min(g.From+fillBatch-1, g.To)
	rows, err := tx.QueryContext(ctx, "SELECT "+selectSpanColumns+" FROM spans WHERE seq BETWEEN ? AND ? ORDER BY seq", g.From, hi)
	if err != nil {
		return 0, fmt.Errorf("index missing spans: %w", mapErr(err))
	}
	texts := newRowInserter(tx, s.stmts, insertSpanTextSQL, 2, rowsPerInsert)
	var args [][2]any
	for rows.Next() {
		sp, seq, _, err := scanSpan(rows)
		if err != nil {
			rows.Close()
			return 0, fmt.Errorf("index missing spans: %w", err)
		}
		if text := warehouse.SearchText(&sp); text != "" {
			args = append(args, [2]any{seq, text})
		}
	}
	if err := rows.Close(); err != nil {
		return 0, fmt.Errorf("index missing spans: %w", mapErr(err))
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("index missing spans: %w", mapErr(err))
	}
	for _, a := range args {
		if err := texts.add(ctx, a[0], a[1]); err != nil {
			return 0, fmt.Errorf("index missing spans: %w", mapErr(err))
		}
	}
	if err := texts.flush(ctx); err != nil {
		return 0, fmt.Errorf("index missing spans: %w", mapErr(err))
	}
	n := int(hi - g.From + 1)
	if g.From = hi + 1; g.From > g.To {
		gaps = gaps[1:]
	}
	if err := writeSearchGaps(ctx, tx, gaps); err != nil {
		return 0, fmt.Errorf("index missing spans: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("index missing spans: commit: %w", mapErr(err))
	}
	return n, nil
}
