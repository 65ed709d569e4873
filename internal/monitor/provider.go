package monitor

import (
	"encoding/binary"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Provider supplies monitors that change at run time (the evalapi
// extension's auto monitor setups).
type Provider interface {
	// Index returns the current monitors, indexed for matching (nil when
	// there are none). It is called for every batch, so it must be cheap
	// (an atomic load); callers must not modify the index or its monitors.
	Index() *Index
	// Evaluated tells the provider that the monitor evaluated a span, so
	// that it can move the setup from waiting_for_spans to in_progress. It
	// must not block.
	Evaluated(monitorID string)
}

// Set is a snapshot of monitors that can be replaced atomically; each
// snapshot is indexed once, when it is installed. Provider implementations
// embed it. The zero Set is empty and ready to use.
type Set struct {
	p atomic.Pointer[Index]
}

// Monitors returns the current snapshot; it must not be modified.
func (s *Set) Monitors() []*Monitor { return s.p.Load().Monitors() }

// Index returns the current snapshot, indexed (nil when none was
// installed).
func (s *Set) Index() *Index { return s.p.Load() }

// Replace installs ms as the new snapshot. ms must not be modified
// afterwards.
func (s *Set) Replace(ms []*Monitor) {
	s.p.Store(NewIndex(ms))
}

// Sampled reports whether a trace falls into a sample of the given rate. It
// hashes the trace id, so every span of a trace gets the same answer and the
// sample of a lower rate is contained in the sample of a higher one.
func Sampled(traceID pcommon.TraceID, rate float64) bool {
	if rate >= 1 {
		return true
	}
	if !(rate > 0) {
		return false
	}
	h := mix64(binary.BigEndian.Uint64(traceID[:8]) ^ mix64(binary.BigEndian.Uint64(traceID[8:])))
	// The top 53 bits as a uniform number in [0, 1).
	return float64(h>>11)/(1<<53) < rate
}

// mix64 is the SplitMix64 finaliser: it spreads every input bit over the
// output, so trace ids with structure (counters, zero halves) still sample
// evenly.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// StaticRegistry is implemented by a Provider that also wants to know the
// static monitors of the evaluator processors that use it (the evalapi
// extension shows them in its console). Processors call it once at start.
type StaticRegistry interface {
	// SetStaticMonitors records the static monitors of the processor
	// source (its component id), replacing any it recorded before.
	SetStaticMonitors(source string, monitors []*Monitor)
}
