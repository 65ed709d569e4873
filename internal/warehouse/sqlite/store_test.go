package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
	"github.com/evalcol/evalcol/internal/warehouse/storetest"
	"github.com/evalcol/evalcol/internal/warehouse/synthspans"
)

// openWith opens a store with opts in a temporary directory, closed when
// the test ends.
func openWith(t *testing.T, opts Options) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "warehouse.db"), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "warehouse.db"), Options{Prices: storetest.Prices(t)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return st
}

func TestConformance(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	storetest.Run(t, func(t *testing.T) warehouse.Store { return openTemp(t) })
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warehouse.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp := warehouse.Span{Environment: "e", SpanID: "s1", Timestamp: 5000, SpanAttributes: map[string]string{"k": "v"}}
	if err := st.WriteSpans(ctx, []warehouse.Span{sp}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // migrations run again on every open and change nothing
		st, err = Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		v, err := st.SchemaVersion(ctx)
		if want := latestVersion(t); err != nil || v != want {
			t.Errorf("reopen %d: schema version %d, %v; want %d", i, v, err, want)
		}
		page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"},
			Filters: []warehouse.Filter{{Field: "k", Operator: warehouse.OpEquals, Value: "v"}}})
		if err != nil || len(page.Spans) != 1 || page.Spans[0].SpanID != "s1" {
			t.Errorf("reopen %d: got %+v, %v; want span s1", i, page.Spans, err)
		}
		st.Close()
	}
}

func TestLockedDatabaseIsRetryable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warehouse.db")
	st, err := Open(ctx, path, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err = st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", SpanID: "x"}})
	if !warehouse.IsRetryable(err) {
		t.Fatalf("write while another process holds the lock: %v, want an error wrapping ErrUnavailable", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteSpans(ctx, []warehouse.Span{{Environment: "e", SpanID: "x"}}); err != nil {
		t.Errorf("write after the lock is gone: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct {
		name, path string
	}{
		{"empty path", ""},
		{"directory", t.TempDir()},
		{"missing parent", filepath.Join(t.TempDir(), "no", "such", "dir", "w.db")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, err := Open(context.Background(), tc.path, Options{}); err == nil {
				st.Close()
				t.Fatalf("Open(%q) succeeded, want an error", tc.path)
			}
		})
	}
}

// TestIndexAndScanAgree runs the same equality filters through the
// attribute index and through the time-range scan (the index disabled by a
// candidate limit of 0) and expects the same pages.
func TestIndexAndScanAgree(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	g := synthspans.New("env", 7)
	start := int64(1_790_000_000_000)
	if err := st.WriteSpans(ctx, g.Batch(3000, start, start+6*3600*1000)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		q    warehouse.SpanQuery
	}{
		{"user equals, sort duration", warehouse.SpanQuery{SortBy: warehouse.SortDuration, Desc: true,
			Filters: []warehouse.Filter{{Field: "user.id", Operator: warehouse.OpEquals, Value: synthspans.UserID(3)}}}},
		{"model in, time window", warehouse.SpanQuery{FromMs: start + 3600*1000, ToMs: start + 2*3600*1000,
			Filters: []warehouse.Filter{{Field: "llm.request.model", Operator: warehouse.OpIn, Values: []string{"gpt-4o", "o3-mini"}}}}},
		{"every span", warehouse.SpanQuery{Filters: []warehouse.Filter{{Field: "llm.vendor", Operator: warehouse.OpEquals, Value: "openai"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Environments, q.Limit = []string{"env"}, 50
			collect := func(maxCandidates int) ([]string, int64) { return spanIDsWith(t, st, q, maxCandidates) }
			indexed, indexedTotal := collect(index.DefaultMaxCandidates)
			scanned, scannedTotal := collect(0)
			if len(indexed) == 0 || !slices.Equal(indexed, scanned) || indexedTotal != scannedTotal || indexedTotal != int64(len(indexed)) {
				t.Errorf("index path: %d spans (total %d); scan path: %d spans (total %d); want the same, non-empty",
					len(indexed), indexedTotal, len(scanned), scannedTotal)
			}
		})
	}
}

func TestRetentionConformance(t *testing.T) {
	storetest.RunRetention(t, func(t *testing.T, r warehouse.Retention) warehouse.Store {
		st, err := Open(context.Background(), filepath.Join(t.TempDir(), "warehouse.db"), Options{Retention: r})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return st
	})
}

// TestBusyOrSlowWriteIsRetryable: a write that cannot get the write lock
// in time (another process holds it) or whose context ends first fails
// with an error the exporter retries, and stores nothing.
func TestBusyOrSlowWriteIsRetryable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "warehouse.db")
	st, err := Open(ctx, path, Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	span := warehouse.Span{Environment: "e", TraceID: "t1", SpanID: "s1", Timestamp: 5000}

	// Another connection (as another process would) holds the write lock.
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	err = st.WriteSpans(ctx, []warehouse.Span{span})
	if err == nil || !warehouse.IsRetryable(err) {
		t.Errorf("write while another connection holds the lock: %v, want a retryable error", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	// A context that has ended: "begin: context deadline exceeded".
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	err = st.WriteSpans(expired, []warehouse.Span{span})
	if err == nil || !warehouse.IsRetryable(err) {
		t.Errorf("write with an expired context: %v, want a retryable error", err)
	}
	err = st.WriteMetricPoints(expired, []warehouse.MetricPoint{{Environment: "e", MetricName: "m", EventTime: 1}})
	if err == nil || !warehouse.IsRetryable(err) {
		t.Errorf("metric write with an expired context: %v, want a retryable error", err)
	}

	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}})
	if err != nil || len(page.Spans) != 0 {
		t.Fatalf("after the failed writes: %d spans, %v; want none", len(page.Spans), err)
	}
	// The span is stored once the warehouse is free again.
	if err := st.WriteSpans(ctx, []warehouse.Span{span}); err != nil {
		t.Fatalf("write after the lock is released: %v", err)
	}
}

// preparingStore prepares every write on the caller's side first, as the
// exporter does.
type preparingStore struct{ *Store }

func (p preparingStore) WriteSpans(ctx context.Context, spans []warehouse.Span) error {
	spans = slices.Clone(spans) // the suite compares its own spans with what it reads back
	p.PrepareSpans(spans)
	return p.Store.WriteSpans(ctx, spans)
}

func (p preparingStore) WriteMetricPoints(ctx context.Context, pts []warehouse.MetricPoint) error {
	pts = slices.Clone(pts)
	p.PreparePoints(pts)
	return p.Store.WriteMetricPoints(ctx, pts)
}

// TestConformancePrepared runs the suite with every span and point
// prepared (PrepareSpans, PreparePoints) before it is written.
func TestConformancePrepared(t *testing.T) {
	t.Parallel() // a long test: it overlaps the package's others
	storetest.Run(t, func(t *testing.T) warehouse.Store { return preparingStore{openTemp(t)} })
}

// TestTraceStatsShortWalk runs the sorted trace lists with a walk of the
// sort indexes of 3 rows: pages whose range the walk does not fill read
// the range on the start index and sort it, with the same answers.
func TestTraceStatsShortWalk(t *testing.T) {
	storetest.RunTraceStats(t, func(t *testing.T) warehouse.Store {
		st, err := Open(context.Background(), filepath.Join(t.TempDir(), "warehouse.db"), Options{Prices: storetest.Prices(t), traceWalk: 3})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return st
	})
}

// spanIDsWith pages through q on st with the index candidates bounded by
// maxCandidates (0: the index never answers, a scan does) and returns the
// spans' ids in page order and the total the pages gave.
func spanIDsWith(t *testing.T, st *Store, q warehouse.SpanQuery, maxCandidates int) (ids []string, total int64) {
	t.Helper()
	st.maxIndexCandidates = maxCandidates
	defer func() { st.maxIndexCandidates = index.DefaultMaxCandidates }()
	for {
		page, err := st.QuerySpans(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		total = page.TotalResults
		for _, sp := range page.Spans {
			ids = append(ids, sp.SpanID)
		}
		if page.NextCursor == "" {
			return ids, total
		}
		q.Cursor = page.NextCursor
	}
}
