package warehouse

import (
	"context"
	"fmt"
)

// QueryPath is the one query sequence of every Store, over a Backend:
// QuerySpans and QueryMetrics normalise the query, decode the cursor,
// ask the backend for the page (taking the snapshot on a first page),
// fill total_results and encode the next cursor. A backend embeds it so
// that it implements Store:
//
//	type Store struct {
//		warehouse.QueryPath
//		...
//	}
//	s.QueryPath = warehouse.NewQueryPath(s) // s implements Backend
//
// Readers that are not a Store (the console) use the Store's methods the
// same way; nothing queries a backend another way.
type QueryPath struct {
	backend Backend
	// pageBytes bounds each page by size (SpanRead.MaxBytes).
	pageBytes int64
}

// NewQueryPath returns the query path over b; its pages are bounded by
// DefaultPageBytes.
func NewQueryPath(b Backend) QueryPath { return QueryPath{backend: b, pageBytes: DefaultPageBytes} }

// WithPageBytes returns p bounding each page by n bytes (see
// DefaultPageBytes); n <= 0 bounds pages by their limit alone.
func (p QueryPath) WithPageBytes(n int64) QueryPath {
	p.pageBytes = max(n, 0)
	return p
}

// QuerySpans returns one page of spans: keyset pagination on (sort value,
// sequence number) within the snapshot the first page took; see
// SpanCursor. A page holds at most q.Limit spans, and fewer when they hold
// the query path's page bytes (then page.CutByBytes): the cursor
// continues right after its last span either way. Invalid queries and
// cursors yield a *QueryError.
func (p QueryPath) QuerySpans(ctx context.Context, q SpanQuery) (SpanPage, error) {
	var page SpanPage
	q, err := q.Normalize()
	if err != nil {
		return page, err
	}
	cur, hasCursor, err := DecodeSpanCursor(q)
	if err != nil {
		return page, err
	}
	page.Spans = []Span{}
	if len(q.Environments) == 0 {
		return page, nil
	}
	rows, err := p.backend.ReadSpans(ctx, SpanRead{Query: q, First: !hasCursor, Snapshot: cur.Snapshot,
		After: SpanKey{Num: cur.Num, Str: cur.Str, Seq: cur.Seq}, Limit: q.Limit + 1, MaxBytes: p.pageBytes, Count: !hasCursor})
	if err != nil {
		return page, fmt.Errorf("query spans: %w", err)
	}
	if !hasCursor {
		cur.Snapshot = rows.Snapshot
	}
	page.Spans = rows.Spans
	if page.Spans == nil {
		page.Spans = []Span{}
	}
	// Cut by bytes before Limit+1 spans: more follow, and the page is
	// short of q.Limit unless only the extra span was left out.
	more := len(page.Spans) > q.Limit || rows.Cut
	page.CutByBytes = rows.Cut && len(page.Spans) < q.Limit
	if len(page.Spans) > q.Limit {
		page.Spans = page.Spans[:q.Limit]
	}
	switch {
	case hasCursor:
		page.TotalResults = cur.Total
	case !more:
		page.TotalResults = int64(len(page.Spans))
	default:
		page.TotalResults = rows.Total
	}
	if n := len(page.Spans); more && n > 0 {
		last := page.Spans[n-1]
		next := SpanCursor{Snapshot: cur.Snapshot, Total: page.TotalResults, Seq: rows.Seqs[n-1]}
		if col, numeric := q.SortBy.Column(); numeric {
			next.Num = SortNumber(last, col)
		} else {
			next.Str = SortText(last, col)
		}
		page.NextCursor = EncodeSpanCursor(q, next)
	}
	return page, nil
}

// QueryMetrics returns one page of metric points grouped by name: offset
// paging within the snapshot the first page took (see
// EncodeMetricCursor), so it is stable while points arrive. A page is
// bounded by bytes as QuerySpans' is (page.CutByBytes); the next offset
// follows its last point.
func (p QueryPath) QueryMetrics(ctx context.Context, q MetricQuery) (MetricPage, error) {
	page := MetricPage{Groups: []MetricGroup{}}
	q, err := q.Normalize()
	if err != nil {
		return page, err
	}
	snapshot, offset, hasCursor, err := DecodeMetricCursor(q.Cursor)
	if err != nil {
		return page, err
	}
	if len(q.Environments) == 0 {
		return page, nil
	}
	rows, err := p.backend.ReadMetricPoints(ctx, MetricRead{Query: q, First: !hasCursor, Snapshot: snapshot,
		Offset: offset, Limit: q.Limit + 1, MaxBytes: p.pageBytes, Count: true})
	if err != nil {
		return page, fmt.Errorf("query metrics: %w", err)
	}
	if !hasCursor {
		snapshot = rows.Snapshot
	}
	pts := rows.Points
	more := (len(pts) > q.Limit || rows.Cut) && len(pts) > 0
	page.CutByBytes = rows.Cut && len(pts) < q.Limit
	if len(pts) > q.Limit {
		pts = pts[:q.Limit]
	}
	if !hasCursor && !more {
		page.TotalResults = int64(len(pts))
	} else {
		page.TotalResults = rows.Total
	}
	if err := fillMetricPage(&page, pts, more, snapshot, offset); err != nil {
		return page, err
	}
	return page, nil
}

// fillMetricPage groups pts (one page, in query order) by metric name into
// page and sets TotalPoints and, when more points follow, NextCursor: the
// snapshot and the offset after pts packed by EncodeMetricCursor.
func fillMetricPage(page *MetricPage, pts []MetricPoint, more bool, snapshot, offset int64) error {
	page.TotalPoints = int64(len(pts))
	index := map[string]int{}
	for _, p := range pts {
		i, ok := index[p.MetricName]
		if !ok {
			i = len(page.Groups)
			index[p.MetricName] = i
			page.Groups = append(page.Groups, MetricGroup{MetricName: p.MetricName, OrganizationID: p.OrganizationID})
		}
		page.Groups[i].Points = append(page.Groups[i].Points, p)
	}
	if more {
		next, err := EncodeMetricCursor(snapshot, offset+int64(len(pts)))
		if err != nil {
			return &QueryError{Field: "cursor", Msg: "paging deeper than the cursor can reach; narrow the query: " + err.Error()}
		}
		page.NextCursor = FormatMetricCursor(next)
	}
	return nil
}
