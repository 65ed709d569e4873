// Package groupcommit writes the data of concurrent export requests to the
// warehouse in shared transactions (group commit): each caller of Commit
// waits until its data is committed, while one writer goroutine commits
// everything that arrived during the previous commit in one go. A lone
// request is written at once; under load, many requests share a
// transaction, which is what keeps an embedded database such as SQLite
// efficient without a batch processor or an in-memory queue that would
// acknowledge data before it is stored.
//
// The data waiting for a commit is bounded: a request that would pass
// MaxPendingBytes is refused at once with a retryable error (the OTLP
// receivers answer HTTP 503 / gRPC UNAVAILABLE, which senders retry), so
// a warehouse that falls behind pushes back on the senders instead of
// growing the heap.
package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Batch is the data of one export request.
type Batch struct {
	Spans  []warehouse.Span
	Points []warehouse.MetricPoint
	// Bytes is the request's size, counted against MaxPendingBytes.
	Bytes int64
}

func (b *Batch) items() int { return len(b.Spans) + len(b.Points) }

// WriteFunc stores spans and points; it returns only once they are
// committed (or failed). Writes are idempotent: a retried span or point is
// stored once.
type WriteFunc func(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) error

// ReportingWriteFunc is a WriteFunc that also reports the conflicting
// duplicates among spans (warehouse.SpanConflictWriter).
type ReportingWriteFunc func(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) (warehouse.SpanWriteReport, error)

// Result is what a commit did with one request's data besides storing it.
type Result struct {
	// Conflicts are the indexes in the request's Batch.Spans of the spans
	// not stored because a span with the same identity but other content
	// was stored first.
	Conflicts []int
}

// Settings tune a Committer.
type Settings struct {
	// MaxPendingBytes bounds the Bytes of the requests waiting for or in
	// a commit. A request that would pass it is refused with ErrBusy,
	// unless nothing else waits (so that one request larger than the
	// bound is still stored).
	MaxPendingBytes int64
	// MaxItemsPerCommit bounds the spans and points of one transaction;
	// a request larger than it is committed alone.
	MaxItemsPerCommit int
	// WriteTimeout bounds one commit.
	WriteTimeout time.Duration
	// Interval, when positive, is the shortest time between the starts of
	// two commits: requests arriving in between wait (at most Interval)
	// and share the next commit, unless MaxItemsPerCommit are waiting
	// already. Zero starts a commit as soon as the previous one ends.
	Interval time.Duration
	// IsRetryable reports whether a write error is transient. After a
	// permanent error of a shared transaction, each request is written
	// again alone, so that only the one that cannot be stored fails.
	IsRetryable func(error) bool
}

// ErrBusy is the error of a request refused because the data waiting for a
// commit already reaches MaxPendingBytes. It wraps
// warehouse.ErrUnavailable: the request may succeed later.
var ErrBusy = fmt.Errorf("warehouse busy: too much data waiting for a commit, retry later: %w", warehouse.ErrUnavailable)

// ErrWaitEnded wraps the context error of a request whose context ended
// while it waited for its commit.
var ErrWaitEnded = errors.New("wait for the warehouse commit")

// errClosed is the error of a request that arrives after Close.
var errClosed = fmt.Errorf("exporter shut down: %w", warehouse.ErrUnavailable)

// Committer commits the batches of concurrent Commit calls in shared
// transactions. It is safe for concurrent use.
type Committer struct {
	write ReportingWriteFunc
	set   Settings

	mu      sync.Mutex
	queue   []*request
	pending int64 // Bytes of queued and committing requests
	closed  bool

	wake chan struct{} // a request was queued (capacity 1)
	done chan struct{} // closed when the writer goroutine has returned
}

type request struct {
	batch  Batch
	taken  bool         // the writer took it into a commit (under mu)
	result chan outcome // capacity 1: the writer never blocks on it
}

// outcome is the answer to one request.
type outcome struct {
	res Result
	err error
}

// New returns a Committer that writes with write and starts its writer
// goroutine; Close stops it.
func New(write WriteFunc, set Settings) *Committer {
	return NewReporting(func(ctx context.Context, spans []warehouse.Span, points []warehouse.MetricPoint) (warehouse.SpanWriteReport, error) {
		return warehouse.SpanWriteReport{}, write(ctx, spans, points)
	}, set)
}

// NewReporting is New with a write that reports conflicting duplicates;
// CommitReport hands each request its own.
func NewReporting(write ReportingWriteFunc, set Settings) *Committer {
	if set.MaxItemsPerCommit <= 0 {
		set.MaxItemsPerCommit = 1
	}
	if set.IsRetryable == nil {
		set.IsRetryable = func(error) bool { return false }
	}
	c := &Committer{write: write, set: set, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go c.run()
	return c
}

// Commit queues b for the next commit and waits until it is committed.
// It returns nil only when all of b is stored. It fails with ErrBusy when
// too much data waits already, and with ctx's error (wrapped) when ctx
// ends first; b may still be committed then, which is harmless since
// writes are idempotent and the sender was not told it succeeded.
func (c *Committer) Commit(ctx context.Context, b Batch) error {
	_, err := c.CommitReport(ctx, b)
	return err
}

// CommitReport is Commit, also returning what the commit did with b's
// data: the conflicting duplicates among b.Spans.
func (c *Committer) CommitReport(ctx context.Context, b Batch) (Result, error) {
	if b.items() == 0 {
		return Result{}, nil
	}
	r := &request{batch: b, result: make(chan outcome, 1)}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return Result{}, errClosed
	case c.pending > 0 && c.pending+b.Bytes > c.set.MaxPendingBytes:
		c.mu.Unlock()
		return Result{}, ErrBusy
	}
	c.pending += b.Bytes
	c.queue = append(c.queue, r)
	select { // under mu: Close closes wake under mu too
	case c.wake <- struct{}{}:
	default: // the writer is already woken
	}
	c.mu.Unlock()
	select {
	case out := <-r.result:
		return out.res, out.err
	case <-ctx.Done():
		c.mu.Lock()
		if !r.taken {
			c.unqueue(r)
		}
		c.mu.Unlock()
		return Result{}, fmt.Errorf("%w: %w", ErrWaitEnded, ctx.Err())
	}
}

// unqueue removes r, not yet taken, from the queue. c.mu is held.
func (c *Committer) unqueue(r *request) {
	for i, q := range c.queue {
		if q == r {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			c.pending -= r.batch.Bytes
			return
		}
	}
}

// Close refuses new requests, waits until the queued ones are committed
// and stops the writer. When ctx ends first, the requests still queued
// fail with a retryable error.
func (c *Committer) Close(ctx context.Context) error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.wake)
	}
	c.mu.Unlock()
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		for _, r := range c.queue {
			r.result <- outcome{err: errClosed}
		}
		c.pending, c.queue = 0, nil
		c.mu.Unlock()
		return fmt.Errorf("close group commit: %w", ctx.Err())
	}
}

// run is the writer goroutine: it commits the queue until Close.
func (c *Committer) run() {
	defer close(c.done)
	var lastStart time.Time
	open := true
	for open {
		if _, open = <-c.wake; !open {
			break
		}
		for {
			if c.set.Interval > 0 {
				open = c.waitInterval(lastStart)
			}
			group := c.take()
			if len(group) == 0 {
				break
			}
			lastStart = time.Now()
			c.commit(group)
		}
	}
	// Closed: commit what is still queued.
	for group := c.take(); len(group) > 0; group = c.take() {
		c.commit(group)
	}
}

// waitInterval waits until Interval has passed since lastStart, a full
// commit waits, or Close; it returns false after Close.
func (c *Committer) waitInterval(lastStart time.Time) bool {
	timer := time.NewTimer(time.Until(lastStart.Add(c.set.Interval)))
	defer timer.Stop()
	for {
		c.mu.Lock()
		items := 0
		for _, r := range c.queue {
			items += r.batch.items()
		}
		c.mu.Unlock()
		if items >= c.set.MaxItemsPerCommit {
			return true
		}
		select {
		case <-timer.C:
			return true
		case _, open := <-c.wake:
			if !open {
				return false
			}
		}
	}
}

// take removes the next group from the queue: the requests at its head up
// to MaxItemsPerCommit items (at least one request).
func (c *Committer) take() []*request {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, items := 0, 0
	for n < len(c.queue) {
		next := c.queue[n].batch.items()
		if n > 0 && items+next > c.set.MaxItemsPerCommit {
			break
		}
		items += next
		c.queue[n].taken = true
		n++
	}
	group := append([]*request(nil), c.queue[:n]...)
	c.queue = append(c.queue[:0], c.queue[n:]...)
	return group
}

// commit writes group in one transaction and answers its requests. After
// a permanent failure of a shared transaction, each request is written
// alone, so that one request that cannot be stored fails alone.
func (c *Committer) commit(group []*request) {
	var bytes int64
	for _, r := range group {
		bytes += r.batch.Bytes
	}
	outs := make([]outcome, len(group))
	results, err := c.writeGroup(group)
	if err != nil && len(group) > 1 && !c.set.IsRetryable(err) {
		for i, r := range group {
			res, err := c.writeGroup([]*request{r})
			outs[i] = outcome{res: res[0], err: err}
		}
	} else {
		for i := range outs {
			outs[i] = outcome{res: results[i], err: err}
		}
	}
	// Release the bytes before answering, so that an answered request no
	// longer counts against the bound.
	c.mu.Lock()
	c.pending -= bytes
	c.mu.Unlock()
	for i, r := range group {
		r.result <- outs[i]
	}
}

// writeGroup writes group in one transaction and returns each request's
// result (empty on error).
func (c *Committer) writeGroup(group []*request) ([]Result, error) {
	spans, points := group[0].batch.Spans, group[0].batch.Points
	if len(group) > 1 {
		var ns, np int
		for _, r := range group {
			ns += len(r.batch.Spans)
			np += len(r.batch.Points)
		}
		spans = make([]warehouse.Span, 0, ns)
		points = make([]warehouse.MetricPoint, 0, np)
		for _, r := range group {
			spans = append(spans, r.batch.Spans...)
			points = append(points, r.batch.Points...)
		}
	}
	// The commit outlives the requests' own deadlines: a request whose
	// sender gave up is stored anyway (and its retry skipped as a
	// duplicate), so that the others of the group are not failed with it.
	ctx, cancel := context.WithTimeout(context.Background(), c.set.WriteTimeout)
	defer cancel()
	rep, err := c.write(ctx, spans, points)
	results := make([]Result, len(group))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && !warehouse.IsRetryable(err) {
			// A slow warehouse: retryable.
			err = fmt.Errorf("%w (%w)", err, warehouse.ErrUnavailable)
		}
		return results, err
	}
	// Hand each request the conflicts among its own spans (rep's indexes
	// are into the concatenation, in request order, ascending).
	start, r := 0, 0
	for _, i := range rep.Conflicts {
		for r < len(group) && i >= start+len(group[r].batch.Spans) {
			start += len(group[r].batch.Spans)
			r++
		}
		if r < len(group) {
			results[r].Conflicts = append(results[r].Conflicts, i-start)
		}
	}
	return results, nil
}
