package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/evalcol/evalcol/internal/pricing"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// Options tune the store; the zero value gives the defaults.
type Options struct {
	// BusyTimeout is how long a statement waits for a lock (default 5s).
	BusyTimeout time.Duration
	// Readers is the size of the read-only connection pool (default 4).
	Readers int
	// CacheMiB is the page cache of each connection (default 32).
	CacheMiB int
	// MmapMiB is the memory-mapped I/O size of the readers (default 1024,
	// 0 keeps the default; negative disables mmap).
	MmapMiB int
	// Retention deletes old spans and points in the background (default:
	// keep everything); see README.md, "Retention".
	Retention warehouse.Retention
	// OnPruneError, when set, receives the errors of background pruning
	// runs (the next run tries again).
	OnPruneError func(error)
	// Prices prices the spans' tokens for the trace stats (nil: no cost).
	Prices *pricing.Table
	// SkipIntegrityCheck skips PRAGMA quick_check at Open (it reads the
	// whole file: seconds per GB). Without it, Open refuses a corrupt file.
	SkipIntegrityCheck bool
	// Logger receives what Open does to the file besides migrating it
	// (adopting a pre-release store, indexing spans for search); nil: no
	// log.
	Logger *zap.Logger
	// NoSearchIndex leaves the full-text index out of span writes (the
	// collector then spends 0.6-0.65x the CPU per stored span of 2 KB of
	// text) and refuses searches; the spans stored meanwhile are indexed
	// in the background once a later Open has it on (searchindex.go).
	NoSearchIndex bool
	// runFanout is how many posting runs a merge takes (0:
	// defaultRunFanout); tests lower it.
	runFanout int
	// countedValues bounds the point_counts rows of a label key in
	// an hour (0: maxCountedValues); tests lower it.
	countedValues int
	// traceWalk bounds the sort index rows a sorted trace page walks (0:
	// defaultTraceWalk); tests lower it.
	traceWalk int
}

func (o Options) withDefaults() Options {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.Readers <= 0 {
		o.Readers = 4
	}
	if o.CacheMiB <= 0 {
		o.CacheMiB = 32
	}
	if o.MmapMiB == 0 {
		o.MmapMiB = 1024
	}
	if o.MmapMiB < 0 {
		o.MmapMiB = 0
	}
	return o
}

// Store is the SQLite warehouse. It is safe for concurrent use. Its
// queries run through the warehouse's one query path (QuerySpans,
// QueryMetrics), which asks the store's ReadSpans and ReadMetricPoints
// (warehouse.Backend) for the rows.
type Store struct {
	warehouse.QueryPath
	writer *sql.DB // one connection: SQLite allows one writer at a time
	reader *sql.DB // read-only pool; WAL lets readers run beside the writer
	// checkpoints copies the WAL into the file beside the writer.
	checkpoints *checkpointer
	// stmts keeps the writer's multi-row statements compiled.
	stmts  *stmtCache
	closed atomic.Bool
	// resources caches resource attribute set ids for the writer.
	resources resourceCache
	// values caches the attribute values the dictionary holds.
	values valueCache
	// maxIndexCandidates is index.DefaultMaxCandidates (tests lower it;
	// 0 keeps reads off the postings).
	maxIndexCandidates int
	// traceWalk is Options.traceWalk.
	traceWalk int
	// prices prices spans for the trace stats (Options.Prices).
	prices *pricing.Table
	// noSearchIndex is Options.NoSearchIndex.
	noSearchIndex bool
	// searchFill indexes the spans stored while the full-text index was
	// off (nil when none are missing).
	searchFill *worker
	// forceAccess, set by tests, overrides the planner's choice.
	forceAccess func(spanPlan) spanPlan
	// plainPointReads, set by tests, reads metric pages and totals
	// without the access paths of pointplan.go.
	plainPointReads bool
	// merges merges posting runs in the background; runFanout is
	// defaultRunFanout (tests lower it).
	merges    *worker
	runFanout int
	// countedValues is maxCountedValues (tests lower it).
	countedValues int

	// retention and its background job, stopped by Close.
	retention warehouse.Retention
	pruning   *warehouse.PruneJob
	// lastWrite is when a write last began (Unix ns): the pruning job
	// yields while writes go on.
	lastWrite atomic.Int64
	// writes remembers a failing last write for Ping.
	writes writeHealth
}

var (
	_ warehouse.Store   = (*Store)(nil)
	_ warehouse.Backend = (*Store)(nil)
	_ warehouse.Pruner  = (*Store)(nil)
)

// numFunc is the SQL function that reads a text value as a number (NULL
// when it is not one), for numeric filters on text columns and attributes.
const numFunc = "evalcol_num"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(numFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case int64, float64:
			return v, nil
		case string:
			if f, ok := warehouse.ParseNumber(v); ok {
				return f, nil
			}
		case []byte:
			if f, ok := warehouse.ParseNumber(string(v)); ok {
				return f, nil
			}
		}
		return nil, nil
	})
}

// Open opens (creating if needed) the warehouse file at path and brings
// its schema up to date.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite warehouse: empty path")
	}
	opts = opts.withDefaults()
	common := []string{
		"busy_timeout(" + strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10) + ")",
		"cache_size(-" + strconv.Itoa(opts.CacheMiB*1024) + ")",
		"temp_store(memory)",
	}
	writer, err := sql.Open("sqlite", dsn(path, "immediate", append(common,
		"synchronous(NORMAL)", "wal_autocheckpoint("+strconv.Itoa(writerAutocheckpoint)+")")))
	if err != nil {
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxIdleTime(0)
	// page_size only takes on a new file, and must come before WAL mode
	// (the driver would run _pragma journal_mode first); WAL mode persists
	// in the file.
	for _, pragma := range []string{"PRAGMA page_size = 16384", "PRAGMA journal_mode = WAL"} {
		if _, err := writer.ExecContext(ctx, pragma); err != nil {
			writer.Close()
			if isCorrupt(err) {
				return nil, corruptError(path, err)
			}
			return nil, fmt.Errorf("open sqlite warehouse %s: %s: %w", path, pragma, mapErr(err))
		}
	}
	if !opts.SkipIntegrityCheck {
		if err := checkIntegrity(ctx, writer); err != nil {
			writer.Close()
			if isCorrupt(err) {
				return nil, corruptError(path, err)
			}
			return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, mapErr(err))
		}
	}
	log := cmp.Or(opts.Logger, zap.NewNop())
	if err := adoptPreRelease(ctx, writer, path, log); err != nil {
		writer.Close()
		if isCorrupt(err) {
			return nil, corruptError(path, err)
		}
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, mapErr(err))
	}
	if _, err := applyMigrations(ctx, writer, migrations); err != nil {
		writer.Close()
		if isCorrupt(err) {
			return nil, corruptError(path, err)
		}
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, mapErr(err))
	}
	reader, err := sql.Open("sqlite", dsn(path, "", append(common,
		"query_only(1)", "mmap_size("+strconv.Itoa(opts.MmapMiB<<20)+")")))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, err)
	}
	reader.SetMaxOpenConns(opts.Readers)
	reader.SetMaxIdleConns(opts.Readers)
	ckpt, err := sql.Open("sqlite", dsn(path, "", append(common, "synchronous(NORMAL)")))
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, err)
	}
	ckpt.SetMaxOpenConns(1)
	stmts, err := newStmtCache(ctx, writer, writerStatements())
	if err != nil {
		writer.Close()
		reader.Close()
		ckpt.Close()
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, mapErr(err))
	}
	missing, err := openSearchGaps(ctx, writer, !opts.NoSearchIndex)
	if err != nil {
		// A damaged file opened without the integrity check: the store
		// still serves what it can (its writes fail and Ping says so).
		log.Error("Cannot read or record which spans the full-text index misses; searches may miss spans stored while it was off",
			zap.String("path", path), zap.Error(err))
	}
	s := &Store{writer: writer, reader: reader, checkpoints: startCheckpointer(ckpt), stmts: stmts, noSearchIndex: opts.NoSearchIndex,
		maxIndexCandidates: index.DefaultMaxCandidates, retention: opts.Retention.WithDefaults(), prices: opts.Prices,
		runFanout: cmp.Or(opts.runFanout, defaultRunFanout), countedValues: cmp.Or(opts.countedValues, maxCountedValues),
		traceWalk: cmp.Or(opts.traceWalk, defaultTraceWalk)}
	s.QueryPath = warehouse.NewQueryPath(s)
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite warehouse %s: %w", path, err)
	}
	s.pruning = warehouse.StartPruneJob(s, s.retention, opts.OnPruneError)
	s.merges = startMerger(s)
	s.merges.poke() // runs a crash left unmerged
	if missing > 0 {
		log.Info("Indexing the spans stored while full-text search was off, in the background", zap.Int64("spans", missing))
		s.searchFill = startSearchFiller(s, log)
		s.searchFill.poke()
	}
	return s, nil
}

func dsn(path, txlock string, pragmas []string) string {
	v := url.Values{}
	for _, p := range pragmas {
		v.Add("_pragma", p)
	}
	if txlock != "" {
		v.Set("_txlock", txlock)
	}
	return "file:" + path + "?" + v.Encode()
}

// Ping checks both connection pools, and fails while the last write
// failed in a way that persists (see writeHealth).
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return fmt.Errorf("ping: store closed: %w", warehouse.ErrUnavailable)
	}
	if err := s.writer.PingContext(ctx); err != nil {
		return fmt.Errorf("ping writer: %w", mapErr(err))
	}
	if err := s.reader.PingContext(ctx); err != nil {
		return fmt.Errorf("ping reader: %w", mapErr(err))
	}
	if err := s.writes.failing(); err != nil {
		return fmt.Errorf("%w: the last write failed: %w", warehouse.ErrWritesFailing, err)
	}
	return nil
}

// Close stops the pruning job and closes the store; later calls fail
// with ErrUnavailable.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.pruning.Stop()
	if s.merges != nil {
		s.merges.close()
	}
	if s.searchFill != nil {
		s.searchFill.close()
	}
	return errors.Join(s.checkpoints.close(), s.stmts.close(), s.reader.Close(), s.writer.Close())
}

// SchemaVersion returns the highest applied schema migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	return schemaVersion(ctx, s.writer)
}

// checkOpen fails fast on a closed store.
func (s *Store) checkOpen(op string) error {
	if s.closed.Load() {
		return fmt.Errorf("%s: store closed: %w", op, warehouse.ErrUnavailable)
	}
	return nil
}

// unavailableErr is a backend error that marks the store as temporarily
// unusable: it wraps both the driver error and warehouse.ErrUnavailable.
type unavailableErr struct{ err error }

func (e unavailableErr) Error() string   { return e.err.Error() }
func (e unavailableErr) Unwrap() []error { return []error{e.err, warehouse.ErrUnavailable} }

// mapErr marks lock, I/O, disk-full and closed-database errors, and a
// statement or transaction that ran out of time (a busy or slow warehouse:
// "begin: context deadline exceeded" while another write holds the one
// writer connection), as warehouse.ErrUnavailable so that callers answer
// 503 or retry.
func mapErr(err error) error {
	if err == nil || errors.Is(err, warehouse.ErrUnavailable) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return unavailableErr{err}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
			sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_PROTOCOL, sqlite3.SQLITE_INTERRUPT:
			return unavailableErr{err}
		}
	}
	if errors.Is(err, sql.ErrConnDone) || strings.Contains(err.Error(), "database is closed") {
		return unavailableErr{err}
	}
	return err
}
