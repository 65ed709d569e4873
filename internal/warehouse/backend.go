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
	// Count asks for the number of all matches within the snapshot
	// (SpanRows.Total) when the read returns Limit spans (NeedsCount).
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

// NeedsCount reports whether a backend that read n spans for r must count
// all matches.
func (r SpanRead) NeedsCount(n int) bool { return r.Count && n >= r.Limit }

// SpanRows is a backend's answer to a SpanRead.
type SpanRows struct {
	Spans []Span
	// Seqs are the spans' sequence numbers (Seqs[i] is Spans[i]'s).
	Seqs []int64
	// Snapshot is the snapshot taken for a first page.
	Snapshot int64
	// Total counts every match within the snapshot, when NeedsCount.
	Total int64
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
	// Count asks for the number of all matches within the snapshot
	// (MetricRows.Total) unless the page is the whole result
	// (NeedsCount).
	Count bool
}

// NeedsCount reports whether a backend that read n points for r must
// count all matches.
func (r MetricRead) NeedsCount(n int) bool { return r.Count && (r.Offset > 0 || n >= r.Limit) }

// MetricRows is a backend's answer to a MetricRead.
type MetricRows struct {
	Points []MetricPoint
	// Snapshot is the snapshot taken for a first page.
	Snapshot int64
	// Total counts every match within the snapshot, when NeedsCount.
	Total int64
}
