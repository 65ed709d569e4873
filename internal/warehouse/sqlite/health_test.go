package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// filledStore writes n spans into a new warehouse at path and closes it
// (which checkpoints the WAL into the file).
func filledStore(t *testing.T, path string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := synthspans.New("e", 1)
	for i := 0; i < n; i += 1000 {
		if err := st.WriteSpans(ctx, g.Batch(1000, int64(i)*1000, int64(i+1000)*1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// corruptPages overwrites the pages of the file after its first keep
// pages (past the root pages of the schema's tables and indexes) with a
// repeating garbage pattern.
func corruptPages(t *testing.T, path string, keep int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	const page = 16384
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef", page/4))
	for off := int64(keep * page); off+page <= info.Size(); off += 3 * page {
		if _, err := f.WriteAt(garbage, off); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenRefusesCorruptFile: a file with corrupted pages is refused at
// Open with a message that says so and what to do, instead of starting and
// failing queries and writes later.
func TestOpenRefusesCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warehouse.db")
	filledStore(t, path, 5000)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	corruptPages(t, path, 80)
	_, err = Open(context.Background(), path, Options{})
	if err == nil {
		t.Fatal("Open of a corrupt file succeeded")
	}
	for _, want := range []string{"refusing to start on " + path, "sqlite warehouse file is corrupt", "PRAGMA quick_check found: ",
		"restore the file from a backup, or move it away to start with an empty warehouse"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("error %v is not ErrCorrupt", err)
	}
	// Not a database at all.
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, before[len(before)/2:], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), junk, Options{}); err == nil || !errors.Is(err, ErrCorrupt) ||
		!strings.Contains(err.Error(), "refusing to start on "+junk) {
		t.Errorf("Open of a non-database file: %v, want a corrupt-file refusal", err)
	}
}

// TestPingReportsFailingWrites: a store whose writes fail on a corrupt
// page answers Ping with ErrWritesFailing until a write succeeds again.
func TestPingReportsFailingWrites(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warehouse.db")
	filledStore(t, path, 20000)
	corruptPages(t, path, 80)
	// Skipping the start check stands for corruption that happens while
	// the collector runs; a 1 MiB page cache keeps the pages on disk.
	st, err := Open(ctx, path, Options{SkipIntegrityCheck: true, CacheMiB: 1})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer st.Close()
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("Ping before any write: %v", err)
	}
	g := synthspans.New("e", 2)
	var werr error
	for i := 0; i < 20 && werr == nil; i++ {
		werr = st.WriteSpans(ctx, g.Batch(1000, int64(30_000+i)*1000, int64(31_000+i)*1000))
	}
	if werr == nil {
		t.Fatal("writes into a corrupt file kept succeeding")
	}
	if !isCorrupt(werr) {
		t.Fatalf("write error %v is not a corruption error", werr)
	}
	err = st.Ping(ctx)
	if !errors.Is(err, warehouse.ErrWritesFailing) || !strings.Contains(err.Error(), "the last write failed") {
		t.Fatalf("Ping after a failed write = %v, want ErrWritesFailing", err)
	}
}

// TestWriteHealth: lock contention and caller errors do not mark the store
// failing; a successful write clears a failure.
func TestWriteHealth(t *testing.T) {
	var h writeHealth
	for _, err := range []error{context.Canceled, warehouse.ErrConflict, errors.New("store closed")} {
		e := err
		h.note(&e)
		if h.failing() != nil {
			t.Errorf("%v marked the store failing", err)
		}
	}
	var ok error
	h.err = errors.New("disk I/O error")
	h.note(&ok)
	if h.failing() != nil {
		t.Error("a successful write did not clear the failure")
	}
}
