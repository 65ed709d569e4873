package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrCorrupt marks a warehouse file that fails its integrity check or
// that SQLite reports as malformed or not a database.
var ErrCorrupt = errors.New("sqlite warehouse file is corrupt")

// quickCheckErrors caps the problems PRAGMA quick_check reports.
const quickCheckErrors = 5

// checkIntegrity runs PRAGMA quick_check, which reads every page and checks
// the b-trees' structure, without the index/table cross-check of
// integrity_check (measured in the warehouse README: seconds per GB).
func checkIntegrity(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", quickCheckErrors))
	if err != nil {
		return fmt.Errorf("PRAGMA quick_check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("PRAGMA quick_check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, strings.Join(strings.Fields(strings.ReplaceAll(line, "***", "")), " "))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("PRAGMA quick_check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: PRAGMA quick_check found: %s", ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}

// isCorrupt reports whether err is SQLite's malformed-file or
// not-a-database error.
func isCorrupt(err error) bool {
	if errors.Is(err, ErrCorrupt) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	return false
}

// corruptError is the error Open returns for a corrupt file: what is wrong
// and what to do.
func corruptError(path string, err error) error {
	if !errors.Is(err, ErrCorrupt) {
		err = fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return fmt.Errorf("refusing to start on %s: %w; restore the file from a backup, or move it away to start with an empty warehouse", path, err)
}

// writeHealth remembers whether the last write failed in a way that
// persists (a corrupt page, a read-only or full disk, an I/O error), so
// that Ping reports a store that accepts connections but not data. Lock
// contention (busy, locked) is not a failure of the store. A successful
// write clears it.
type writeHealth struct {
	mu  sync.Mutex
	err error
}

// note records the outcome of a write; call it deferred with the write's
// named error result.
func (h *writeHealth) note(err *error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if *err == nil {
		h.err = nil
		return
	}
	var se *sqlite.Error
	if !errors.As(*err, &se) {
		return // not the store's fault: a cancelled context, a closed store, a conflict
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return
	}
	h.err = *err
}

// failing returns the last persistent write failure, nil when the last
// write succeeded.
func (h *writeHealth) failing() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}
