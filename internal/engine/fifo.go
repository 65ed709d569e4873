package engine

import (
	"container/heap"
	"sync"
)

// turns bounds the evaluations that run at once and hands free workers to
// the oldest request first: a request's evaluations take precedence over
// those of every request that arrived after it. With a plain semaphore
// every request in flight shares the workers, so under a burst they all
// finish late together, past their senders' timeouts; in arrival order,
// the first requests finish early and the others wait their turn.
type turns struct {
	mu      sync.Mutex
	free    int
	waiting turnHeap
}

func newTurns(n int) *turns { return &turns{free: n} }

// acquire waits for a free worker; ticket orders the waiters (lower first).
func (t *turns) acquire(ticket uint64) {
	t.mu.Lock()
	if t.free > 0 {
		t.free--
		t.mu.Unlock()
		return
	}
	w := &turn{ticket: ticket, ready: make(chan struct{})}
	heap.Push(&t.waiting, w)
	t.mu.Unlock()
	<-w.ready
}

// yield is release then acquire, for a holder with more to do: it keeps
// its worker unless an older request (a lower ticket) waits for one.
func (t *turns) yield(ticket uint64) {
	t.mu.Lock()
	if t.waiting.Len() == 0 || t.waiting.items[0].ticket >= ticket {
		t.mu.Unlock()
		return
	}
	close(heap.Pop(&t.waiting).(*turn).ready)
	w := &turn{ticket: ticket, ready: make(chan struct{})}
	heap.Push(&t.waiting, w)
	t.mu.Unlock()
	<-w.ready
}

// release frees a worker, for the waiter with the lowest ticket if any.
func (t *turns) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting.Len() == 0 {
		t.free++
		return
	}
	close(heap.Pop(&t.waiting).(*turn).ready)
}

type turn struct {
	ticket uint64
	seq    uint64 // arrival among equal tickets
	ready  chan struct{}
}

// turnHeap is a min-heap of waiters by (ticket, arrival).
type turnHeap struct {
	items []*turn
	next  uint64
}

func (h *turnHeap) Len() int { return len(h.items) }
func (h *turnHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return a.ticket < b.ticket || a.ticket == b.ticket && a.seq < b.seq
}
func (h *turnHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *turnHeap) Push(x any) {
	w := x.(*turn)
	w.seq = h.next
	h.next++
	h.items = append(h.items, w)
}
func (h *turnHeap) Pop() any {
	w := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return w
}
