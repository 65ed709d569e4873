package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// gatedStore writes to a real SQLite warehouse; while its gate is closed,
// writes wait for it, so that tests can make requests pile up.
type gatedStore struct {
	st *sqlite.Store

	mu     sync.Mutex
	gate   chan struct{} // nil: open
	writes [][]string    // span names of each write, in order
}

func newGatedStore(t *testing.T) *gatedStore {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &gatedStore{st: st}
}

func (g *gatedStore) close() { g.mu.Lock(); g.gate = make(chan struct{}); g.mu.Unlock() }
func (g *gatedStore) open()  { g.mu.Lock(); close(g.gate); g.gate = nil; g.mu.Unlock() }

func (g *gatedStore) write(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) error {
	g.mu.Lock()
	gate := g.gate
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.SpanName
	}
	g.writes = append(g.writes, names)
	g.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if err := g.st.WriteSpans(ctx, spans); err != nil {
		return err
	}
	return g.st.WriteMetricPoints(ctx, points)
}

func (g *gatedStore) writeCount() int { g.mu.Lock(); defer g.mu.Unlock(); return len(g.writes) }

// stored returns the names of the stored spans.
func (g *gatedStore) stored(t *testing.T) map[string]bool {
	t.Helper()
	out, err := g.storedNames()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (g *gatedStore) storedNames() (map[string]bool, error) {
	page, err := g.st.QuerySpans(context.Background(), warehouse.SpanQuery{Environments: []string{"e"}, Limit: 1000})
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, s := range page.Spans {
		out[s.SpanName] = true
	}
	return out, nil
}

// batch is a request of n spans named <name>-<i>.
func batch(name string, n int, bytes int64) Batch {
	b := Batch{Bytes: bytes}
	for i := range n {
		b.Spans = append(b.Spans, warehouse.Span{Environment: "e", Timestamp: 1000, TraceID: name,
			SpanID: fmt.Sprint(i), SpanName: fmt.Sprintf("%s-%d", name, i)})
	}
	return b
}

func settings() Settings {
	return Settings{MaxPendingBytes: 1 << 30, MaxItemsPerCommit: 10000, WriteTimeout: 10 * time.Second, IsRetryable: warehouse.IsRetryable}
}

// queued waits until n requests wait in c's queue (not yet taken).
func queued(t *testing.T, c *Committer, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		got := len(c.queue)
		c.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("fewer than %d requests queued after 10 s", n)
}

// waitWrites waits until the store has seen n writes.
func waitWrites(t *testing.T, g *gatedStore, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for g.writeCount() < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d writes after 10 s", n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLoneRequestIsCommittedAlone(t *testing.T) {
	g := newGatedStore(t)
	c := New(g.write, settings())
	defer c.Close(context.Background())
	if err := c.Commit(context.Background(), batch("lone", 3, 100)); err != nil {
		t.Fatal(err)
	}
	if g.writeCount() != 1 || len(g.writes[0]) != 3 {
		t.Fatalf("writes %v, want one write of the 3 spans", g.writes)
	}
	if got := g.stored(t); len(got) != 3 || !got["lone-2"] {
		t.Fatalf("stored %v, want lone-0..2", got)
	}
}

// TestConcurrentRequestsShareACommit: requests that arrive while a commit
// runs are committed together in the next one, and each caller returns
// only once its spans are stored.
func TestConcurrentRequestsShareACommit(t *testing.T) {
	g := newGatedStore(t)
	c := New(g.write, settings())
	defer c.Close(context.Background())
	g.close()
	first := make(chan error, 1)
	go func() { first <- c.Commit(context.Background(), batch("first", 5, 100)) }()
	waitWrites(t, g, 1) // the first request is in its commit, held at the gate

	const senders = 20
	errs := make(chan error, senders)
	for i := range senders {
		go func() {
			err := c.Commit(context.Background(), batch(fmt.Sprint("r", i), 10, 100))
			if err == nil { // acknowledged: must be stored already
				got, qerr := g.storedNames()
				switch {
				case qerr != nil:
					err = qerr
				case !got[fmt.Sprintf("r%d-9", i)]:
					err = fmt.Errorf("request r%d acknowledged before its spans were stored", i)
				}
			}
			errs <- err
		}()
	}
	queued(t, c, senders)
	g.open()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for range senders {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := g.writeCount(); n != 2 || len(g.writes[1]) != senders*10 {
		t.Errorf("%d writes (sizes %d, ...), want 2: the first request, then the %d others in one", n, len(g.writes[0]), senders)
	}
	if got := g.stored(t); len(got) != 5+senders*10 {
		t.Errorf("%d spans stored, want %d", len(got), 5+senders*10)
	}
}

func TestMaxItemsPerCommitSplitsGroups(t *testing.T) {
	g := newGatedStore(t)
	set := settings()
	set.MaxItemsPerCommit = 25
	c := New(g.write, set)
	defer c.Close(context.Background())
	g.close()
	go c.Commit(context.Background(), batch("first", 1, 1))
	waitWrites(t, g, 1)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			if err := c.Commit(context.Background(), batch(fmt.Sprint("r", i), 10, 1)); err != nil {
				t.Error(err)
			}
		})
	}
	queued(t, c, 6)
	g.open()
	wg.Wait()
	// 6 requests of 10 spans, at most 25 per commit: 3 commits of 2.
	if n := g.writeCount(); n != 4 {
		t.Errorf("%d writes, want 4 (the first, then 3 of 20 spans)", n)
	}
	for _, w := range g.writes[1:] {
		if len(w) != 20 {
			t.Errorf("a commit of %d spans, want 20", len(w))
		}
	}
}

// TestBusyRefusesBeyondPendingBytes: while the warehouse is slow, requests
// beyond MaxPendingBytes are refused at once with a retryable error, and
// are accepted again once the backlog is committed.
func TestBusyRefusesBeyondPendingBytes(t *testing.T) {
	g := newGatedStore(t)
	set := settings()
	set.MaxPendingBytes = 100
	c := New(g.write, set)
	defer c.Close(context.Background())
	g.close()
	first := make(chan error, 1)
	go func() { first <- c.Commit(context.Background(), batch("a", 1, 60)) }()
	waitWrites(t, g, 1)
	second := make(chan error, 1)
	go func() { second <- c.Commit(context.Background(), batch("b", 1, 40)) }() // 100: fits
	queued(t, c, 1)
	err := c.Commit(context.Background(), batch("c", 1, 1))
	if !errors.Is(err, ErrBusy) || !warehouse.IsRetryable(err) {
		t.Fatalf("request beyond the bound: %v, want ErrBusy (retryable)", err)
	}
	g.open()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(context.Background(), batch("c", 1, 1)); err != nil {
		t.Fatalf("after the backlog: %v", err)
	}
	if got := g.stored(t); len(got) != 3 {
		t.Errorf("stored %v, want a-0, b-0, c-0", got)
	}
	// A request larger than the bound is stored when nothing else waits.
	if err := c.Commit(context.Background(), batch("huge", 1, 1000)); err != nil {
		t.Errorf("lone request larger than the bound: %v", err)
	}
}

// TestCanceledWhileQueued: a request whose context ends while it waits
// fails with a retryable error and is not written.
func TestCanceledWhileQueued(t *testing.T) {
	g := newGatedStore(t)
	c := New(g.write, settings())
	defer c.Close(context.Background())
	g.close()
	go c.Commit(context.Background(), batch("first", 1, 1))
	waitWrites(t, g, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Commit(ctx, batch("gone", 2, 1)) }()
	queued(t, c, 1)
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled request: %v, want context.Canceled", err)
	}
	g.open()
	if err := c.Commit(context.Background(), batch("after", 1, 1)); err != nil {
		t.Fatal(err)
	}
	if got := g.stored(t); got["gone-0"] || !got["after-0"] || !got["first-0"] {
		t.Errorf("stored %v: want first and after, not the canceled request", got)
	}
	c.mu.Lock()
	pending := c.pending
	c.mu.Unlock()
	if pending != 0 {
		t.Errorf("%d bytes still pending after everything was committed", pending)
	}
}

// TestPermanentFailureFailsOnlyItsRequest: when a shared commit fails for
// a reason that is not transient, each request is written alone, so that
// only the one the warehouse refuses fails.
func TestPermanentFailureFailsOnlyItsRequest(t *testing.T) {
	g := newGatedStore(t)
	errPoison := errors.New("cannot store poison")
	write := func(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) error {
		for _, s := range spans {
			if s.TraceID == "poison" {
				return errPoison
			}
		}
		return g.write(ctx, spans, points)
	}
	c := New(write, settings())
	defer c.Close(context.Background())
	g.close()
	go c.Commit(context.Background(), batch("first", 1, 1))
	waitWrites(t, g, 1)
	results := map[string]chan error{}
	for _, name := range []string{"good1", "poison", "good2"} {
		ch := make(chan error, 1)
		results[name] = ch
		go func() { ch <- c.Commit(context.Background(), batch(name, 2, 1)) }()
	}
	queued(t, c, 3)
	g.open()
	for name, ch := range results {
		err := <-ch
		if name == "poison" && !errors.Is(err, errPoison) {
			t.Errorf("poison: %v, want its write error", err)
		}
		if name != "poison" && err != nil {
			t.Errorf("%s: %v, want stored", name, err)
		}
	}
	if got := g.stored(t); !got["good1-1"] || !got["good2-1"] || got["poison-0"] {
		t.Errorf("stored %v: want good1 and good2 only", got)
	}
}

// TestRetryableFailureFailsTheGroup: a busy warehouse fails every request
// of the group with the retryable error (no per-request retry storm).
func TestRetryableFailureFailsTheGroup(t *testing.T) {
	var calls int
	var mu sync.Mutex
	write := func(context.Context, []warehouse.Span, []warehouse.MetricPoint) error {
		mu.Lock()
		calls++
		mu.Unlock()
		return fmt.Errorf("write spans: database is locked: %w", warehouse.ErrUnavailable)
	}
	c := New(write, settings())
	defer c.Close(context.Background())
	for range 3 {
		if err := c.Commit(context.Background(), batch("x", 1, 1)); !warehouse.IsRetryable(err) {
			t.Fatalf("got %v, want the retryable error", err)
		}
	}
	if calls != 3 {
		t.Errorf("%d writes for 3 sequential requests, want 3", calls)
	}
}

// TestCloseCommitsQueuedRequests: Close waits for the queued requests to be
// committed; later requests are refused with a retryable error.
func TestCloseCommitsQueuedRequests(t *testing.T) {
	g := newGatedStore(t)
	c := New(g.write, settings())
	g.close()
	go c.Commit(context.Background(), batch("first", 1, 1))
	waitWrites(t, g, 1)
	queuedErr := make(chan error, 1)
	go func() { queuedErr <- c.Commit(context.Background(), batch("queued", 1, 1)) }()
	queued(t, c, 1)
	closed := make(chan error, 1)
	go func() { closed <- c.Close(context.Background()) }()
	// Closing: new requests are refused.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		closing := c.closed
		c.mu.Unlock()
		if closing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not closing 10 s after Close")
		}
		time.Sleep(time.Millisecond)
	}
	if err := c.Commit(context.Background(), batch("late", 1, 1)); err == nil || !warehouse.IsRetryable(err) {
		t.Fatalf("request after Close: %v, want a retryable error", err)
	}
	g.open()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := <-queuedErr; err != nil {
		t.Fatalf("queued request: %v, want committed by Close", err)
	}
	if got := g.stored(t); !got["queued-0"] {
		t.Errorf("stored %v, want the queued request", got)
	}
}

// TestIntervalGroupsRequests: with an Interval, requests that arrive
// within it after a commit started share the next commit, even when no
// commit is running when they arrive.
func TestIntervalGroupsRequests(t *testing.T) {
	g := newGatedStore(t)
	set := settings()
	set.Interval = 2 * time.Second
	c := New(g.write, set)
	defer c.Close(context.Background())
	if err := c.Commit(context.Background(), batch("first", 1, 1)); err != nil { // idle: committed at once
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			if err := c.Commit(context.Background(), batch(fmt.Sprint("r", i), 1, 1)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := g.writeCount(); n != 2 || len(g.writes[1]) != 3 {
		t.Errorf("writes %v, want 2: the first request, then the 3 others together", g.writes)
	}
}
