package warehouse

import "context"

// Backend is what a storage engine answers on the query path: "this
// normalised query, this position, this many rows". Everything else of a
// query — normalising and validating it, decoding and holding the cursor,
// deciding when total_results is needed, building the next cursor and the
// page — is done once, by QueryPath, for every backend.
//
// A backend is safe for concurrent use. Its errors follow the Store's:
// wrapping ErrUnavailable when the backend is down, busy or closed.
//
// Further capabilities (aggregates for the console, ...) are separate
// interfaces that a backend may also implement; the query path checks for
// them with a type assertion, as callers check a Store for
// EvaluationAppender.
type Backend interface {
	// ReadSpans answers one page of a span query.
	ReadSpans(ctx context.Context, r SpanRead) (SpanRows, error)
	// ReadMetricPoints answers one page of a metric query.
	ReadMetricPoints(ctx context.Context, r MetricRead) (MetricRows, error)
	// TraceStatReader reads the trace stats (sorted trace lists, counts).
	TraceStatReader
}

// SpanRead asks a backend for spans: those matching Query with a sequence
// number up to the pagination's snapshot, in Query's order (sort value,
// then sequence number; both reversed for DESC), after After, at most
// Limit of them.
type SpanRead struct {
	// Query is normalised (see SpanQuery.Normalize) and has at least one
	// environment; its Cursor and Limit are the query path's business.
	Query SpanQuery
	// First marks the first page of a pagination: the backend takes the
	// snapshot — the highest sequence number a matching span can have now
	// — reads within it and returns it (SpanRows.Snapshot). Later pages
	// give Snapshot and After.
	First    bool
	Snapshot int64
	After    SpanKey
	Limit    int
	// MaxBytes bounds the page by size: the backend stops adding spans
	// once the spans it has read hold MaxBytes or more (RowBytes), always
	// returning one at least, and then sets SpanRows.Cut when a further
	// span matches. 0: no bound but Limit.
	MaxBytes int64
	// Count asks for the number of all matches within the snapshot
	// (SpanRows.Total) when the read returns Limit spans or is cut by
	// MaxBytes (NeedsCount).
	Count bool
}

// SpanKey is a span's position in a sort order: its sort value (Num for
// the numeric sort keys, Str for the text ones; see SortKey.Column) and
// its sequence number.
type SpanKey struct {
	Num int64
	Str string
	Seq int64
}

// AfterValue is the sort value of After as the sort column's type: an
// int64 for the numeric sort keys, a string for the text ones.
func (r SpanRead) AfterValue() any {
	if _, numeric := r.Query.SortBy.Column(); numeric {
		return r.After.Num
	}
	return r.After.Str
}

// NeedsCount reports whether a backend that read n spans for r, cut by
// MaxBytes or not, must count all matches.
func (r SpanRead) NeedsCount(n int, cut bool) bool { return r.Count && (n >= r.Limit || cut) }

// SpanRows is a backend's answer to a SpanRead.
type SpanRows struct {
	Spans []Span
	// Seqs are the spans' sequence numbers (Seqs[i] is Spans[i]'s).
	Seqs []int64
	// Snapshot is the snapshot taken for a first page.
	Snapshot int64
	// Total counts every match within the snapshot, when NeedsCount.
	Total int64
	// Cut reports that the read stopped before Limit spans because they
	// held SpanRead.MaxBytes, and that more spans match after the last one.
	Cut bool
}

// MetricRead asks a backend for metric points: those matching Query with
// a sequence number within the pagination's snapshot, in Query's order
// (sort key, then sequence number), from Offset on, at most Limit of them.
type MetricRead struct {
	// Query is normalised (see MetricQuery.Normalize) and has at least one
	// environment; its Cursor and Limit are the query path's business.
	Query MetricQuery
	// First marks the first page: the backend takes the snapshot and
	// returns it (MetricRows.Snapshot); later pages give Snapshot. The
	// snapshot is the backend's own number (a sequence number, or a time
	// within one), below 2^41 so that a metric cursor can carry it.
	First    bool
	Snapshot int64
	Offset   int64
	Limit    int
	// MaxBytes bounds the page by size as SpanRead.MaxBytes does: the
	// backend stops adding points once they hold MaxBytes or more
	// (RowBytes), one at least, and sets MetricRows.Cut when a further
	// point matches. 0: no bound but Limit.
	MaxBytes int64
	// Count asks for the number of all matches within the snapshot
	// (MetricRows.Total) unless the page is the whole result
	// (NeedsCount).
	Count bool
}

// NeedsCount reports whether a backend that read n points for r, cut by
// MaxBytes or not, must count all matches.
func (r MetricRead) NeedsCount(n int, cut bool) bool {
	return r.Count && (r.Offset > 0 || n >= r.Limit || cut)
}

// MetricRows is a backend's answer to a MetricRead.
type MetricRows struct {
	Points []MetricPoint
	// Snapshot is the snapshot taken for a first page.
	Snapshot int64
	// Total counts every match within the snapshot, when NeedsCount.
	Total int64
	// Cut reports that the read stopped before Limit points because they
	// held MetricRead.MaxBytes, and that more points match after the last.
	Cut bool
}

// DefaultPageBytes is the size bound of one page of spans or metric
// points (SpanRead.MaxBytes, MetricRead.MaxBytes) that QueryPath asks
// for: a page holds at most this many bytes of stored attributes and
// content, plus the one row that passed it. A client paging with the
// cursor still sees every row exactly once; only the pages are shorter
// than limit. Memory per request is bounded by it (BENCHMARKS.md, "Page
// size by bytes").
const DefaultPageBytes = 4 << 20

// PageBudget counts the bytes of the rows a backend adds to a page
// against MaxBytes (0: no bound).
type PageBudget struct {
	max, used int64
}

// NewPageBudget returns a budget of maxBytes (0: unbounded).
func NewPageBudget(maxBytes int64) PageBudget { return PageBudget{max: maxBytes} }

// Full reports whether the page is full by bytes: a row may still be
// added while it is not (so a page always holds one row at least).
func (b *PageBudget) Full() bool { return b.max > 0 && b.used >= b.max }

// Unbounded reports whether the budget bounds nothing (MaxBytes 0).
func (b *PageBudget) Unbounded() bool { return b.max <= 0 }

// Add counts a row of n bytes (RowBytes) added to the page.
func (b *PageBudget) Add(n int) { b.used += int64(n) }

// RowBytes is the size estimate of a stored row that a PageBudget
// counts: the sum of the lengths of its stored texts (attribute,
// label and content encodings), before decoding. It is what grows with
// what a tenant sends; the fixed-size columns are left out.
func RowBytes(texts ...string) int {
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	return n
}
