package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
)

// addrEnv names the variable holding the test server's native address
// (scripts/clickhouse.sh start prints it).
const addrEnv = "EVALCOL_CLICKHOUSE_ADDR"

// serverAddr returns the test server's address, skipping the test when
// none is configured.
func serverAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv(addrEnv)
	if addr == "" {
		t.Skipf("%s is not set; run scripts/clickhouse.sh start and export it to test against ClickHouse", addrEnv)
	}
	return addr
}

// openTestStore opens a store on a new database with a random name and
// drops the database when the test ends.
func openTestStore(t testing.TB, addr string) *Store {
	t.Helper()
	db := fmt.Sprintf("evalcol_test_%d_%d", time.Now().UnixNano(), os.Getpid())
	st, err := Open(context.Background(), Options{Addr: addr, Database: db, Prices: storetest.Prices(t)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { dropDatabase(t, addr, db) })
	return st
}

func dropDatabase(t testing.TB, addr, db string) {
	if err := DropDatabase(context.Background(), Options{Addr: addr, Database: db}); err != nil {
		t.Errorf("drop %s: %v", db, err)
	}
}

func TestConformance(t *testing.T) {
	addr := serverAddr(t)
	storetest.Run(t, func(t *testing.T) warehouse.Store { return openTestStore(t, addr) })
}

func TestMigrationsAreIdempotent(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	st := openTestStore(t, addr)
	defer st.Close()
	sp := warehouse.Span{Environment: "e", SpanID: "s1", TraceID: "t1", Timestamp: 5000, SpanAttributes: map[string]string{"k": "v"}}
	if err := st.WriteSpans(ctx, []warehouse.Span{sp}); err != nil {
		t.Fatal(err)
	}
	want := latestVersion(t)
	files, err := fs.Glob(schemaFiles, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	steps := len(files)
	for i := range 2 { // a restarted collector runs the migrations again
		again, err := Open(ctx, Options{Addr: addr, Database: st.opts.Database})
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		if v, err := again.SchemaVersion(ctx); err != nil || v != want {
			t.Errorf("reopen %d: schema version %d, %v; want %d", i, v, err, want)
		}
		var n uint64
		if err := again.conn.QueryRow(ctx, "SELECT count() FROM "+again.schema.table("schema_migrations")).Scan(&n); err != nil || n != uint64(steps) {
			t.Errorf("reopen %d: %d schema_migrations rows, %v; want %d", i, n, err, steps)
		}
		page, err := again.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"},
			Filters: []warehouse.Filter{{Field: "k", Operator: warehouse.OpEquals, Value: "v"}}})
		if err != nil || len(page.Spans) != 1 || page.Spans[0].SpanID != "s1" {
			t.Errorf("reopen %d: got %+v, %v; want span s1", i, page.Spans, err)
		}
		again.Close()
	}
}

// deadAddr returns an address where nothing listens.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestUnreachableServer(t *testing.T) {
	ctx := context.Background()
	addr := deadAddr(t)
	t.Run("Open fails fast", func(t *testing.T) {
		start := time.Now()
		st, err := Open(ctx, Options{Addr: addr, DialTimeout: 500 * time.Millisecond})
		if err == nil {
			st.Close()
			t.Fatal("Open succeeded without a server")
		}
		if !warehouse.IsRetryable(err) {
			t.Errorf("Open error %v does not wrap ErrUnavailable", err)
		}
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("Open error %q does not name the address %s", err, addr)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Open took %v to fail", d)
		}
	})
	t.Run("OpenLazy starts and reports unavailable", func(t *testing.T) {
		st, err := OpenLazy(Options{Addr: addr, DialTimeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatalf("OpenLazy: %v", err)
		}
		defer st.Close()
		for name, call := range map[string]func() error{
			"Ping":       func() error { return st.Ping(ctx) },
			"WriteSpans": func() error { return st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", SpanID: "x"}}) },
			"QuerySpans": func() error {
				_, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}})
				return err
			},
			"WriteMetricPoints": func() error {
				return st.WriteMetricPoints(ctx, []warehouse.MetricPoint{{Environment: "e", MetricName: "m"}})
			},
			"AllSetups": func() error { _, err := st.AllSetups(ctx); return err },
		} {
			if err := call(); !warehouse.IsRetryable(err) {
				t.Errorf("%s: %v, want an error wrapping ErrUnavailable", name, err)
			}
		}
	})
	t.Run("bad queries are still QueryErrors", func(t *testing.T) {
		st, err := OpenLazy(Options{Addr: addr, DialTimeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		_, err = st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}, Limit: 5000})
		var qe *warehouse.QueryError
		if !errors.As(err, &qe) || qe.Field != "limit" {
			t.Errorf("got %v, want a *QueryError on limit", err)
		}
	})
}

// TestLazyStoreMigratesOnFirstConnection opens lazily against a live
// server: nothing exists until the first call, which creates the schema.
func TestLazyStoreMigratesOnFirstConnection(t *testing.T) {
	addr := serverAddr(t)
	ctx := context.Background()
	db := fmt.Sprintf("evalcol_lazy_%d", time.Now().UnixNano())
	t.Cleanup(func() { dropDatabase(t, addr, db) })
	st, err := OpenLazy(Options{Addr: addr, Database: db})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.migrated.Load() {
		t.Fatal("OpenLazy ran the migrations")
	}
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if v, err := st.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Errorf("schema version %d, %v after the first Ping", v, err)
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no address", Options{}, "empty address"},
		{"database with a quote", Options{Addr: "127.0.0.1:1", Database: "x`; DROP"}, "database name"},
		{"cluster with a space", Options{Addr: "127.0.0.1:1", Cluster: "a b"}, "cluster name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenLazy(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestSeqClock(t *testing.T) {
	now := time.UnixMilli(seqEpochMs + 1000)
	c := newSeqClock(7)
	c.now = func() time.Time { return now }
	a := c.next(3)
	for i, s := range a {
		if s&0xff != 7 {
			t.Errorf("seq %d has node %d, want 7", i, s&0xff)
		}
		if s>>seqMsShift != 1000 {
			t.Errorf("seq %d has ms %d, want 1000", i, s>>seqMsShift)
		}
		if i > 0 && s <= a[i-1] {
			t.Errorf("seq %d = %d not above %d", i, s, a[i-1])
		}
	}
	// The wall clock going back never makes numbers go back.
	now = now.Add(-time.Second)
	if b := c.next(1)[0]; b <= a[2] {
		t.Errorf("after the clock went back: %d, want above %d", b, a[2])
	}
	// After observing a snapshot, numbers exceed it.
	snap := int64(5000) << seqMsShift
	c.observe(snap)
	if b := c.next(1)[0]; b <= snap {
		t.Errorf("after observe(%d): %d", snap, b)
	}
}

func TestSchemaDDL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		cluster string
		want    []string // substrings, statement by statement
	}{
		{"single server", "00001_v0_1_0.sql", "", []string{"CREATE TABLE IF NOT EXISTS `db`.spans (", "ENGINE = ReplacingMergeTree(ver)",
			"ORDER BY (environment, timestamp, trace_id, span_id) SETTINGS index_granularity = 1024"}},
		{"cluster", "00001_v0_1_0.sql", "c1", []string{"CREATE TABLE IF NOT EXISTS `db`.spans_local ON CLUSTER c1 (",
			"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db/spans', '{replica}', ver)",
			"CREATE TABLE IF NOT EXISTS `db`.spans ON CLUSTER c1 AS `db`.spans_local ENGINE = Distributed(c1, db, spans_local, sipHash64(environment, trace_id))"}},
		{"trace index, single server", "00001_v0_1_0.sql", "", []string{"CREATE TABLE IF NOT EXISTS `db`.span_traces (",
			"ENGINE = ReplacingMergeTree() PARTITION BY intDiv(min_ts, 604800000) ORDER BY (environment, trace_id, min_ts, max_ts) SETTINGS index_granularity = 256"}},
		{"trace index, cluster", "00001_v0_1_0.sql", "c1", []string{"CREATE TABLE IF NOT EXISTS `db`.span_traces_local ON CLUSTER c1 (",
			"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/db/span_traces', '{replica}') PARTITION BY",
			// The same shard key as spans: a trace's index rows live beside its spans.
			"CREATE TABLE IF NOT EXISTS `db`.span_traces ON CLUSTER c1 AS `db`.span_traces_local ENGINE = Distributed(c1, db, span_traces_local, sipHash64(environment, trace_id))"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := newSchema("db", tc.cluster).migrations(schemaFiles)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fs.ReadFile(files, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			all := string(b)
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("DDL lacks %q:\n%s", w, all)
				}
			}
			// 13 tables; on a cluster each a local and a Distributed one.
			if n, want := strings.Count(all, "CREATE TABLE"), map[string]int{"": 13, "c1": 26}[tc.cluster]; n != want {
				t.Errorf("%d CREATE TABLE statements, want %d", n, want)
			}
		})
	}
	// schema_migrations: one table on one server, local + Distributed on a
	// cluster.
	for cluster, want := range map[string]int{"": 1, "c1": 2} {
		table, err := newSchema("db", cluster).versionTable()
		if err != nil || len(table.Create) != want {
			t.Errorf("cluster %q: schema_migrations DDL %q, %v; want %d statements", cluster, table.Create, err, want)
		}
	}
}

func TestRetentionConformance(t *testing.T) {
	addr := serverAddr(t)
	storetest.RunRetention(t, func(t *testing.T, r warehouse.Retention) warehouse.Store {
		db := fmt.Sprintf("evalcol_test_%d_%d", time.Now().UnixNano(), os.Getpid())
		st, err := Open(context.Background(), Options{Addr: addr, Database: db, Retention: r})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { dropDatabase(t, addr, db) })
		return st
	})
}
