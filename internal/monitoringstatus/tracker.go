// Package monitoringstatus answers "is evaluation keeping up?" for an
// environment (GET /v2/monitoring/status) from counters kept as spans
// flow, never from a scan: a Tracker per collector follows the spans the
// evaluator processor matched until the warehouse exporter stored them, a
// Reporter writes each collector's counters to the warehouse every poll
// interval, and Compute folds the rows of every collector sharing the
// warehouse (this one's live counters in place of its own row) into the
// answer.
package monitoringstatus

import (
	"encoding/hex"
	"sync"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Defaults of a Tracker.
const (
	// DefaultMaxPending bounds the matched spans followed at once (about
	// 100 bytes each); beyond it new ones are counted as untracked.
	DefaultMaxPending = 1 << 20
	// DefaultLostAfter is how long a matched span may wait to be stored
	// before it is counted as lost (the exporter gave up on it).
	DefaultLostAfter = 15 * time.Minute
)

// spanKey identifies a span across the processor and the exporter.
type spanKey [24]byte

// pending is a matched span not yet stored; seq tells its queue entry
// from those of earlier matches of the same span.
type pending struct {
	env string
	at  time.Time
	seq uint64
}

// queued is an entry of an environment's arrival queue.
type queued struct {
	key spanKey
	at  time.Time
	seq uint64
}

// envState is one environment's counters in one collector.
type envState struct {
	latestStored        time.Time
	lastEvaluatedStored time.Time
	pending             int64
	queue               []queued // arrival order; entries stored since are skipped lazily
	lost                int64
	lastLost            time.Time
	lastEvalOK          time.Time
	lastEvalFailed      time.Time
	lastEvalError       string
	lastWriteOK         time.Time
	lastWriteFailed     time.Time
	lastWriteError      string
}

// Tracker keeps one collector's counters per environment. Its methods are
// cheap and safe for concurrent use.
type Tracker struct {
	maxPending int
	lostAfter  time.Duration

	mu        sync.Mutex
	envs      map[string]*envState
	pending   map[spanKey]pending
	seq       uint64
	untracked int64
}

// NewTracker returns a tracker with the defaults.
func NewTracker() *Tracker {
	return &Tracker{maxPending: DefaultMaxPending, lostAfter: DefaultLostAfter, envs: map[string]*envState{}, pending: map[spanKey]pending{}}
}

func (t *Tracker) env(name string) *envState {
	e, ok := t.envs[name]
	if !ok {
		e = &envState{}
		t.envs[name] = e
	}
	return e
}

// MatchedSpan is a span the evaluator processor evaluated: its
// environment, identity and the outcomes of its evaluations.
type MatchedSpan struct {
	Environment string
	TraceID     [16]byte
	SpanID      [8]byte
	OK, Failed  int
	// Error is the error type of a failed evaluation ("timeout", ...).
	Error string
}

func keyOf(traceID [16]byte, spanID [8]byte) spanKey {
	var k spanKey
	copy(k[:16], traceID[:])
	copy(k[16:], spanID[:])
	return k
}

// Matched records spans the processor matched and evaluated at time at;
// each waits until Stored (or is counted as lost).
func (t *Tracker) Matched(at time.Time, spans []MatchedSpan) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range spans {
		e := t.env(s.Environment)
		if s.OK > 0 {
			e.lastEvalOK = at
		}
		if s.Failed > 0 && s.OK == 0 {
			e.lastEvalFailed, e.lastEvalError = at, s.Error
		}
		k := keyOf(s.TraceID, s.SpanID)
		if _, dup := t.pending[k]; dup {
			continue
		}
		if len(t.pending) >= t.maxPending {
			t.untracked++
			continue
		}
		t.seq++
		t.pending[k] = pending{env: s.Environment, at: at, seq: t.seq}
		e.pending++
		if len(e.queue) >= 2*int(e.pending)+1024 {
			e.queue = t.compact(e.queue)
		}
		e.queue = append(e.queue, queued{key: k, at: at, seq: t.seq})
	}
}

// compact drops the queue entries of spans no longer pending, so that the
// queue stays within twice the pending spans between snapshots.
func (t *Tracker) compact(q []queued) []queued {
	kept := q[:0]
	for _, e := range q {
		if p, ok := t.pending[e.key]; ok && p.seq == e.seq {
			kept = append(kept, e)
		}
	}
	clear(q[len(kept):])
	return kept
}

// settle removes a stored or dropped span from the pending ones.
func (t *Tracker) settle(traceID, spanID string) bool {
	var k spanKey
	if len(traceID) != 32 || len(spanID) != 16 {
		return false
	}
	if _, err := hex.Decode(k[:16], []byte(traceID)); err != nil {
		return false
	}
	if _, err := hex.Decode(k[16:], []byte(spanID)); err != nil {
		return false
	}
	p, ok := t.pending[k]
	if !ok {
		return false
	}
	delete(t.pending, k)
	t.env(p.env).pending--
	return true
}

// Stored records spans the exporter committed to the warehouse at time
// at.
func (t *Tracker) Stored(at time.Time, spans []warehouse.Span) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range spans {
		s := &spans[i]
		e := t.env(s.Environment)
		e.latestStored = at
		e.lastWriteOK = at
		if len(s.Evaluations) > 0 {
			e.lastEvaluatedStored = at
		}
		if len(t.pending) > 0 {
			t.settle(s.TraceID, s.SpanID)
		}
	}
}

// NotStored records spans the warehouse refused at time at with err;
// final means they are dropped (a retryable error leaves them pending, to
// be stored by a retry).
func (t *Tracker) NotStored(at time.Time, spans []warehouse.Span, err error, final bool) {
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range spans {
		s := &spans[i]
		e := t.env(s.Environment)
		e.lastWriteFailed, e.lastWriteError = at, msg
		if final && t.settle(s.TraceID, s.SpanID) {
			e.lost++
			e.lastLost = at
		}
	}
}

// Snapshot returns this collector's row of every environment it has seen,
// at time now. Matched spans that waited longer than the lost-after limit
// are counted as lost.
func (t *Tracker) Snapshot(collectorID string, now time.Time) []warehouse.PipelineStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]warehouse.PipelineStatus, 0, len(t.envs))
	for name, e := range t.envs {
		// Drop the front entries stored since, and count as lost those
		// waiting too long.
		q := e.queue
		for len(q) > 0 {
			p, ok := t.pending[q[0].key]
			if ok && p.seq == q[0].seq {
				if now.Sub(p.at) < t.lostAfter {
					break
				}
				delete(t.pending, q[0].key)
				e.pending--
				e.lost++
				e.lastLost = now
			}
			q = q[1:]
		}
		if len(q) == 0 {
			q = nil // let the array go
		}
		e.queue = q
		row := warehouse.PipelineStatus{
			CollectorID: collectorID, Environment: name, ReportedAt: now,
			LatestStored: e.latestStored, LastEvaluatedStored: e.lastEvaluatedStored,
			Pending: e.pending, Lost: e.lost, LastLost: e.lastLost,
			LastEvalOK: e.lastEvalOK, LastEvalFailed: e.lastEvalFailed, LastEvalError: e.lastEvalError,
			LastWriteOK: e.lastWriteOK, LastWriteFailed: e.lastWriteFailed, LastWriteError: e.lastWriteError,
		}
		if len(q) > 0 {
			row.OldestPending = q[0].at
		}
		out = append(out, row)
	}
	return out
}
