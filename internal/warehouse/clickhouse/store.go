package clickhouse

import (
	"context"
	"crypto/rand"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"go.uber.org/zap"

	"github.com/evalcol/evalcol/internal/pricing"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Options configure the store. Addr is required; the zero value of every
// other field gives the default.
type Options struct {
	// Addr is the native-protocol address (host:port) of one server; more
	// than one may be given, comma-separated (the driver picks one that
	// answers).
	Addr string
	// Database holds evalcol's tables (default "evalcol"); it is created
	// when missing. Letters, digits and underscores only.
	Database string
	// Username and Password authenticate (default user "default", no
	// password).
	Username, Password string
	// Cluster, when set, creates every table ON CLUSTER with
	// Replicated*MergeTree engines and a Distributed table in front (see
	// README.md). Empty means one server.
	Cluster string
	// DialTimeout bounds connecting (default 2s), so that Open fails fast
	// when the server is down.
	DialTimeout time.Duration
	// ReadTimeout bounds one query (default 60s).
	ReadTimeout time.Duration
	// MaxOpenConns is the connection pool size (default 8).
	MaxOpenConns int
	// NodeID tells this collector's sequence numbers from other
	// collectors' (0..255); default random. Give every collector sharing
	// one database its own id to rule out equal sequence numbers.
	NodeID *uint8
	// Retention deletes old spans and points (default: keep everything):
	// a table TTL on servers that have it, else the background job drops
	// expired weeks; see README.md, "Retention".
	Retention warehouse.Retention
	// OnPruneError, when set, receives the errors of background pruning
	// runs (the next run tries again).
	OnPruneError func(error)
	// Prices prices the spans' tokens for the trace stats (nil: no cost).
	Prices *pricing.Table
	// Logger receives what the store does to the database besides
	// migrating it (adopting a pre-release database); nil: no log.
	Logger *zap.Logger
}

func (o Options) withDefaults() Options {
	if o.Database == "" {
		o.Database = "evalcol"
	}
	if o.Username == "" {
		o.Username = "default"
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 2 * time.Second
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 60 * time.Second
	}
	if o.MaxOpenConns <= 0 {
		o.MaxOpenConns = 8
	}
	return o
}

// identRe is what Database and Cluster may hold: they are written into
// SQL text (table names cannot be bound), so they are restricted.
var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (o Options) validate() error {
	if strings.TrimSpace(o.Addr) == "" {
		return errors.New("clickhouse warehouse: empty address")
	}
	if !identRe.MatchString(o.Database) {
		return fmt.Errorf("clickhouse warehouse: database name %q: use letters, digits and underscores", o.Database)
	}
	if o.Cluster != "" && !identRe.MatchString(o.Cluster) {
		return fmt.Errorf("clickhouse warehouse: cluster name %q: use letters, digits and underscores", o.Cluster)
	}
	return nil
}

// Store is the ClickHouse warehouse. It is safe for concurrent use. Its
// queries run through the warehouse's one query path (QuerySpans,
// QueryMetrics), which asks the store's ReadSpans and ReadMetricPoints
// (warehouse.Backend) for the rows.
type Store struct {
	warehouse.QueryPath
	conn   driver.Conn
	opts   Options
	schema schema
	clock  *seqClock
	closed atomic.Bool

	// migrated is set once the migrations have run; until then every call
	// first tries to run them (see OpenLazy).
	migrated  atomic.Bool
	migrateMu sync.Mutex

	// appendMu serialises AppendEvaluations (read, merge, insert).
	appendMu sync.Mutex

	// retention and its background job, stopped by Close.
	retention warehouse.Retention
	pruning   *warehouse.PruneJob
	ttlSet    atomic.Bool // the tables carry the retention's TTL
}

var (
	_ warehouse.Store   = (*Store)(nil)
	_ warehouse.Backend = (*Store)(nil)
	_ warehouse.Pruner  = (*Store)(nil)
)

// Open connects to ClickHouse, creates the database and brings the schema
// up to date. It fails (with an error wrapping warehouse.ErrUnavailable)
// within about DialTimeout when the server cannot be reached; use OpenLazy
// to start anyway.
func Open(ctx context.Context, opts Options) (*Store, error) {
	s, err := OpenLazy(opts)
	if err != nil {
		return nil, err
	}
	if err := s.ensureSchema(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open clickhouse warehouse %s: %w", opts.Addr, err)
	}
	return s, nil
}

// OpenLazy returns a store without contacting the server, so that a
// collector can start while ClickHouse is down. Until the first successful
// connection every call (Ping included) reports an error wrapping
// warehouse.ErrUnavailable; the first call that reaches the server runs
// the migrations, and from then on the store behaves as after Open.
// Only invalid options make OpenLazy fail.
func OpenLazy(opts Options) (*Store, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	conn, err := ch.Open(&ch.Options{
		Addr:             strings.Split(opts.Addr, ","),
		Auth:             ch.Auth{Username: opts.Username, Password: opts.Password},
		DialTimeout:      opts.DialTimeout,
		ReadTimeout:      opts.ReadTimeout,
		MaxOpenConns:     opts.MaxOpenConns,
		MaxIdleConns:     opts.MaxOpenConns,
		ConnMaxLifetime:  time.Hour,
		ConnOpenStrategy: ch.ConnOpenInOrder,
		Compression:      &ch.Compression{Method: ch.CompressionLZ4},
	})
	if err != nil {
		return nil, fmt.Errorf("clickhouse warehouse %s: %w", opts.Addr, err)
	}
	node := uint8(0)
	if opts.NodeID != nil {
		node = *opts.NodeID
	} else {
		var b [1]byte
		_, _ = rand.Read(b[:])
		node = b[0]
	}
	s := &Store{conn: conn, opts: opts, schema: newSchema(opts.Database, opts.Cluster), clock: newSeqClock(node),
		retention: opts.Retention.WithDefaults()}
	s.QueryPath = warehouse.NewQueryPath(s)
	s.pruning = warehouse.StartPruneJob(s, s.retention, opts.OnPruneError)
	return s, nil
}

// ensureSchema runs the migrations once per store.
func (s *Store) ensureSchema(ctx context.Context) error {
	if s.closed.Load() {
		return fmt.Errorf("store closed: %w", warehouse.ErrUnavailable)
	}
	if s.migrated.Load() {
		return nil
	}
	s.migrateMu.Lock()
	defer s.migrateMu.Unlock()
	if s.migrated.Load() {
		return nil
	}
	if err := s.conn.Ping(ctx); err != nil {
		return fmt.Errorf("connect: %w", mapErr(err))
	}
	if err := s.migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", mapErr(err))
	}
	s.migrated.Store(true)
	return nil
}

// ready fails fast on a closed store and runs pending migrations.
func (s *Store) ready(ctx context.Context, op string) error {
	if s.closed.Load() {
		return fmt.Errorf("%s: store closed: %w", op, warehouse.ErrUnavailable)
	}
	if err := s.ensureSchema(ctx); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Ping checks that the server answers (and, for a lazily opened store,
// that the schema is in place).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.ready(ctx, "ping"); err != nil {
		return err
	}
	if err := s.conn.Ping(ctx); err != nil {
		return fmt.Errorf("ping: %w", mapErr(err))
	}
	return nil
}

// Close stops the pruning job and closes the connections; later calls
// fail with ErrUnavailable.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.pruning.Stop()
	return s.conn.Close()
}

// unavailableErr wraps both the driver error and warehouse.ErrUnavailable.
type unavailableErr struct{ err error }

func (e unavailableErr) Error() string   { return e.err.Error() }
func (e unavailableErr) Unwrap() []error { return []error{e.err, warehouse.ErrUnavailable} }

// retryableCodes are server exception codes that mean "try again later".
var retryableCodes = map[int32]bool{
	159: true, // TIMEOUT_EXCEEDED
	164: true, // READONLY
	202: true, // TOO_MANY_SIMULTANEOUS_QUERIES
	203: true, // NO_FREE_CONNECTION
	209: true, // SOCKET_TIMEOUT
	210: true, // NETWORK_ERROR
	241: true, // MEMORY_LIMIT_EXCEEDED
	242: true, // TABLE_IS_READ_ONLY
	252: true, // TOO_MANY_PARTS
	285: true, // TOO_FEW_LIVE_REPLICAS
	319: true, // UNKNOWN_STATUS_OF_INSERT
	425: true, // SYSTEM_ERROR
}

// mapErr marks connection failures, timeouts and overload exceptions as
// warehouse.ErrUnavailable so that callers answer 503 or retry.
func mapErr(err error) error {
	if err == nil || errors.Is(err, warehouse.ErrUnavailable) {
		return err
	}
	var exc *ch.Exception
	if errors.As(err, &exc) {
		if retryableCodes[exc.Code] {
			return unavailableErr{err}
		}
		return err
	}
	var netErr net.Error
	switch {
	case errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, ch.ErrAcquireConnTimeout),
		errors.Is(err, net.ErrClosed), errors.Is(err, sqldriver.ErrBadConn):
		return unavailableErr{err}
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "broken pipe", "connection reset", "i/o timeout", "no such host", "clickhouse: connection is closed"} {
		if strings.Contains(msg, s) {
			return unavailableErr{err}
		}
	}
	return err
}

// seqEpochMs is the epoch of sequence numbers (2020-01-01 UTC): their
// millisecond part fits 41 bits until 2089.
const seqEpochMs = 1_577_836_800_000

// Layout of a sequence number: milliseconds since seqEpochMs << 22 |
// counter << 8 | node. The counter numbers the rows one store stamps in
// the same millisecond (16 384; more borrow the next millisecond).
const (
	seqMsShift      = 22
	seqCounterShift = 8
)

// seqClock hands out increasing sequence numbers: a hybrid logical clock
// on wall-clock milliseconds, so that numbers from several collectors
// interleave by time and one collector's numbers never go backwards.
type seqClock struct {
	mu   sync.Mutex
	last int64 // last number handed out, without the node bits
	node int64
	now  func() time.Time
}

func newSeqClock(node uint8) *seqClock {
	return &seqClock{node: int64(node), now: time.Now}
}

// next returns n increasing sequence numbers.
func (c *seqClock) next(n int) []int64 {
	out := make([]int64, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	wall := (c.now().UnixMilli() - seqEpochMs) << seqMsShift
	for i := range out {
		v := c.last + 1<<seqCounterShift
		if wall > v {
			v = wall
		}
		c.last = v
		out[i] = v | c.node
	}
	return out
}

// observe moves the clock past seq, so that every later number is larger
// (a pagination's snapshot then excludes what this store writes next).
func (c *seqClock) observe(seq int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := seq &^ (1<<seqCounterShift - 1); v > c.last {
		c.last = v
	}
}

// writeCtx returns the context for inserts: on a cluster, inserts into the
// Distributed tables wait until every shard has its rows, so that a write
// that returned is visible to every collector's next query.
func (s *Store) writeCtx(ctx context.Context) context.Context {
	if s.schema.cluster == "" {
		return ctx
	}
	return ch.Context(ctx, ch.WithSettings(ch.Settings{"insert_distributed_sync": 1}))
}

// DropDatabase drops opts.Database with everything in it (for tests and
// load runs; the collector never calls it).
func DropDatabase(ctx context.Context, opts Options) error {
	s, err := OpenLazy(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.conn.Exec(ctx, "DROP DATABASE IF EXISTS `"+s.schema.db+"`"+s.schema.onCluster()); err != nil {
		return fmt.Errorf("drop database %s: %w", s.schema.db, mapErr(err))
	}
	return nil
}
