package warehouse

import (
	"context"
	"errors"
	"fmt"
)

// Store is a warehouse backend. Implementations are safe for concurrent use.
type Store interface {
	// WriteSpans stores spans in one transaction: all or none. Writes are
	// idempotent: a span whose environment, trace id and span id are
	// already stored is skipped, so a retried export stores nothing twice.
	WriteSpans(ctx context.Context, spans []Span) error
	// QuerySpans returns one page of spans. Invalid queries and cursors
	// yield a *QueryError.
	QuerySpans(ctx context.Context, q SpanQuery) (SpanPage, error)
	// WriteMetricPoints stores points in one transaction: all or none.
	// Writes are idempotent: a point equal to a stored one (environment,
	// name, source, time, trace and span id, labels and attributes) is
	// skipped.
	WriteMetricPoints(ctx context.Context, pts []MetricPoint) error
	// QueryMetrics returns one page of metric points grouped by name.
	QueryMetrics(ctx context.Context, q MetricQuery) (MetricPage, error)
	// SetupStore stores auto monitor setups.
	SetupStore
	// OrgStore stores runtime organizations and API keys.
	OrgStore
	// StatusStore keeps the collectors' pipeline status counters.
	StatusStore
	// SessionStore keeps console sessions.
	SessionStore
	// DocumentStore keeps the small JSON documents of features.
	DocumentStore
	// MetricAggregator aggregates metric points (both backends, through
	// the query path).
	MetricAggregator
	// TraceReader lists traces.
	TraceReader
	// SettingStore keeps the collectors' shared settings.
	SettingStore
	// EvaluationAppender adds evaluations to stored spans (backfill).
	EvaluationAppender
	// SpanConflictWriter reports conflicting duplicate spans.
	SpanConflictWriter
	// EvaluationCounter reads the pre-aggregated evaluation counts.
	EvaluationCounter
	// SpanStatter reads the pre-aggregated span stats.
	SpanStatter
	// Ping reports whether the backend is reachable.
	Ping(ctx context.Context) error
	// Close releases the backend's resources.
	Close() error
}

// Preparer is optionally implemented by a Store whose writes are
// serialised (SQLite has one writer): PrepareSpans and PreparePoints do the
// part of a write that needs no lock (encoding attributes and labels,
// dedup keys, index hashes) on the caller's goroutine and keep it in each
// span's or point's Prepared, so that concurrent callers share that work
// and the writer only writes.
type Preparer interface {
	PrepareSpans(spans []Span)
	PreparePoints(pts []MetricPoint)
}

// SpanConflictWriter is optionally implemented by a Store that tells a
// resent span with other content (a conflicting duplicate) from an
// identical resend. Both are skipped, the first stored copy kept; the
// conflicts are reported so that the sender can be told.
type SpanConflictWriter interface {
	// WriteSpansReport is WriteSpans, also reporting the conflicting
	// duplicates among spans.
	WriteSpansReport(ctx context.Context, spans []Span) (SpanWriteReport, error)
}

// SpanWriteReport is what a write did with spans besides storing them.
type SpanWriteReport struct {
	// Conflicts are the indexes (in the written slice, ascending) of the
	// spans skipped because a span with the same identity (environment,
	// trace id, span id, start time) but other content was stored first.
	Conflicts []int
}

// ErrUnavailable marks errors caused by the backend being down, busy or
// closed: the HTTP layer answers 503 and the exporter retries. Backends wrap
// it (fmt.Errorf("...: %w", ErrUnavailable)).
var ErrUnavailable = errors.New("warehouse unavailable")

// ErrWritesFailing marks a Ping error of a backend that is reachable but
// whose last write failed in a way that persists (a corrupt page, a full
// or read-only disk): /healthz reports it.
var ErrWritesFailing = errors.New("warehouse writes are failing")

// IsRetryable reports whether err is transient (wraps ErrUnavailable), so
// that the same request may succeed later.
func IsRetryable(err error) bool { return errors.Is(err, ErrUnavailable) }

// QueryError is a caller mistake in a query (HTTP 400). Field names the
// query parameter or filter at fault, e.g. "limit" or "filters[1]".
type QueryError struct {
	Field string
	Msg   string
}

func (e *QueryError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func queryErrorf(field, format string, args ...any) *QueryError {
	return &QueryError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// IsQueryError reports whether err is (or wraps) a *QueryError.
func IsQueryError(err error) bool {
	var qe *QueryError
	return errors.As(err, &qe)
}
