package warehouse

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
)

// SpanReader is the part of a Store that trace queries read through.
type SpanReader interface {
	QuerySpans(ctx context.Context, q SpanQuery) (SpanPage, error)
}

// Trace query limits.
const (
	DefaultTraceLimit = 50
	MaxTraceLimit     = 200
	// DefaultTraceWindowMs is how far from its matching spans a listed
	// trace's other spans are looked for.
	DefaultTraceWindowMs = 24 * 3600 * 1000
	// MaxTraceSummarySpans bounds the spans read to summarise one page of
	// traces; beyond it summaries are marked Partial.
	MaxTraceSummarySpans = 20000
	// traceScanBatch is the page size of the span scans behind a trace page.
	traceScanBatch = 500
)

// TraceQuery selects traces. A trace matches when at least one of its
// spans starts within [FromMs, ToMs] (ToMs 0 = open) and matches every
// filter, with the semantics of a SpanQuery. Traces come in the order of
// their latest matching span (Desc) or their earliest one (ascending), each
// exactly once across the pages of a pagination.
type TraceQuery struct {
	// Environments the caller may see; set from the API key or session,
	// never from user input. Empty matches nothing.
	Environments []string
	FromMs, ToMs int64
	Filters      []Filter
	Desc         bool
	// Limit 0 means DefaultTraceLimit.
	Limit  int
	Cursor string
	// WindowMs 0 means DefaultTraceWindowMs.
	WindowMs int64
}

// TraceSummary is one trace of a trace page, summarised from its spans.
type TraceSummary struct {
	TraceID     string
	Environment string
	// Root is the trace's root span (no parent) when it is stored, else
	// its earliest span (HasRoot false).
	Root    Span
	HasRoot bool
	// Start is the earliest span start, End the latest span end (Unix ms).
	Start, End int64
	// Matched is the start of the matching span that placed the trace in
	// the list.
	Matched     int64
	SpanCount   int
	ErrorCount  int
	TotalTokens int64
	// Services, Workflows and Models are the distinct non-empty values of
	// the trace's spans, in span order.
	Services, Workflows, Models []string
	// Evaluations are every evaluation result of the trace's spans.
	Evaluations []TraceEvaluation
	// Partial is set when not every span of the trace was read.
	Partial bool
}

// TraceEvaluation is an evaluation result and the span it was recorded on.
type TraceEvaluation struct {
	SpanID, SpanName string
	Evaluation
}

// TracePage is one page of a trace query.
type TracePage struct {
	Traces []TraceSummary
	// MatchedSpans counts the spans matching the query, as of the first
	// page of the pagination.
	MatchedSpans int64
	// NextCursor is "" on the last page.
	NextCursor string
}

// Normalize validates q and fills its defaults.
func (q TraceQuery) Normalize() (TraceQuery, error) {
	switch {
	case q.Limit == 0:
		q.Limit = DefaultTraceLimit
	case q.Limit < 1 || q.Limit > MaxTraceLimit:
		return q, queryErrorf("limit", "%d is not between 1 and %d", q.Limit, MaxTraceLimit)
	}
	if q.WindowMs <= 0 {
		q.WindowMs = DefaultTraceWindowMs
	}
	sq, err := q.spanQuery().Normalize()
	if err != nil {
		return q, err
	}
	q.Filters = sq.Filters
	return q, nil
}

func (q TraceQuery) spanQuery() SpanQuery {
	return SpanQuery{Environments: q.Environments, FromMs: q.FromMs, ToMs: q.ToMs, Filters: q.Filters,
		SortBy: SortTimestamp, Desc: q.Desc, Limit: traceScanBatch}
}

// traceCursor continues a trace pagination: the next page scans matching
// spans from Edge on (at or before it when descending, at or after it when
// ascending); a trace with a matching span beyond Edge, or in Tied (traces
// already listed whose first matching span starts exactly at Edge), was
// listed on an earlier page.
type traceCursor struct {
	V     int      `json:"v"`
	Hash  string   `json:"h"`
	Edge  int64    `json:"e"`
	Tied  []string `json:"t,omitempty"`
	Total int64    `json:"n"`
}

const traceCursorVersion = 1

func (q TraceQuery) fingerprint() string {
	envs := slices.Clone(q.Environments)
	slices.Sort(envs)
	b, _ := json.Marshal(struct {
		E        []string
		From, To int64
		F        []Filter
		D        bool
	}{envs, q.FromMs, q.ToMs, q.Filters, q.Desc})
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}

func (q TraceQuery) decodeCursor() (traceCursor, bool, error) {
	if q.Cursor == "" {
		return traceCursor{}, false, nil
	}
	var c traceCursor
	b, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.V != traceCursorVersion || c.Total < 0 || len(c.Tied) > MaxFilterValues {
		return c, false, queryErrorf("cursor", "malformed cursor")
	}
	if c.Hash != q.fingerprint() {
		return c, false, queryErrorf("cursor", "cursor belongs to a different query; keep the other parameters the same on every page")
	}
	return c, true, nil
}

func (q TraceQuery) encodeCursor(c traceCursor) string {
	c.V, c.Hash = traceCursorVersion, q.fingerprint()
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// QueryTraces returns one page of traces. It reads only through
// QuerySpans, so every backend answers it with the span query's filters,
// tenancy and indexes: it scans the matching spans in time order from the
// cursor's edge, takes each trace at its first matching span, drops traces
// listed on an earlier page, then reads the spans of the page's traces to
// summarise them.
func QueryTraces(ctx context.Context, st SpanReader, q TraceQuery) (TracePage, error) {
	q, err := q.Normalize()
	if err != nil {
		return TracePage{}, err
	}
	cur, hasCursor, err := q.decodeCursor()
	if err != nil {
		return TracePage{}, err
	}
	scan := q.spanQuery()
	if hasCursor {
		if q.Desc {
			scan.ToMs = cur.Edge
		} else {
			scan.FromMs = cur.Edge
		}
	}
	var page TracePage
	tied := make(map[string]bool, len(cur.Tied))
	for _, id := range cur.Tied {
		tied[id] = true
	}
	taken := map[string]int{}    // trace id -> index in page.Traces
	skipped := map[string]bool{} // traces listed on an earlier page
	var stop *Span               // first span of the first trace that did not fit
	first := true
	for stop == nil {
		sp, err := st.QuerySpans(ctx, scan)
		if err != nil {
			return TracePage{}, fmt.Errorf("scan spans: %w", err)
		}
		if first {
			page.MatchedSpans = sp.TotalResults
			if hasCursor {
				page.MatchedSpans = cur.Total
			}
			first = false
		}
		// Traces new to this page, in scan order.
		var fresh []string
		freshSeen := map[string]bool{}
		for _, s := range sp.Spans {
			if _, ok := taken[s.TraceID]; ok || skipped[s.TraceID] || freshSeen[s.TraceID] {
				continue
			}
			freshSeen[s.TraceID] = true
			fresh = append(fresh, s.TraceID)
		}
		if hasCursor && len(fresh) > 0 {
			listed, err := listedBefore(ctx, st, q, cur.Edge, fresh)
			if err != nil {
				return TracePage{}, err
			}
			for _, id := range fresh {
				if listed[id] || tied[id] {
					skipped[id] = true
				}
			}
		}
		for i := range sp.Spans {
			s := &sp.Spans[i]
			if _, ok := taken[s.TraceID]; ok || skipped[s.TraceID] {
				continue
			}
			if len(page.Traces) == q.Limit {
				stop = s
				break
			}
			taken[s.TraceID] = len(page.Traces)
			page.Traces = append(page.Traces, TraceSummary{TraceID: s.TraceID, Environment: s.Environment, Matched: s.Timestamp})
		}
		if sp.NextCursor == "" {
			break
		}
		scan.Cursor = sp.NextCursor
	}
	if stop != nil {
		next := traceCursor{Edge: stop.Timestamp, Total: page.MatchedSpans}
		for _, t := range page.Traces {
			if t.Matched == stop.Timestamp {
				next.Tied = append(next.Tied, t.TraceID)
			}
		}
		if hasCursor && cur.Edge == stop.Timestamp {
			// Still at the same millisecond: the earlier pages' traces
			// there stay listed.
			next.Tied = append(next.Tied, cur.Tied...)
		}
		page.NextCursor = q.encodeCursor(next)
	}
	if err := summarise(ctx, st, q, page.Traces); err != nil {
		return TracePage{}, err
	}
	return page, nil
}

// listedBefore returns which of ids have a matching span beyond edge (after
// it when descending, before it when ascending) within the query's range:
// those traces were listed on an earlier page.
func listedBefore(ctx context.Context, st SpanReader, q TraceQuery, edge int64, ids []string) (map[string]bool, error) {
	listed := map[string]bool{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 100)]
		ids = ids[len(chunk):]
		sq := q.spanQuery()
		sq.Filters = append(slices.Clone(q.Filters), Filter{Field: "trace_id", Operator: OpIn, Values: chunk})
		if q.Desc {
			sq.FromMs = edge + 1
		} else {
			if edge == 0 {
				continue
			}
			sq.ToMs = edge - 1
		}
		if sq.ToMs != 0 && sq.ToMs < sq.FromMs {
			continue
		}
		sq.Limit = MaxSpanLimit
		for {
			sp, err := st.QuerySpans(ctx, sq)
			if err != nil {
				return nil, fmt.Errorf("check listed traces: %w", err)
			}
			for _, s := range sp.Spans {
				listed[s.TraceID] = true
			}
			if sp.NextCursor == "" || len(listed) == len(chunk) {
				break
			}
			sq.Cursor = sp.NextCursor
		}
	}
	return listed, nil
}

// summarise reads the spans of traces (within the query's window around
// their matching spans) and fills their summaries.
func summarise(ctx context.Context, st SpanReader, q TraceQuery, traces []TraceSummary) error {
	if len(traces) == 0 {
		return nil
	}
	index := make(map[string]int, len(traces))
	ids := make([]string, len(traces))
	lo, hi := traces[0].Matched, traces[0].Matched
	for i, t := range traces {
		index[t.TraceID] = i
		ids[i] = t.TraceID
		lo, hi = min(lo, t.Matched), max(hi, t.Matched)
	}
	env := traces[0].Environment
	read := 0
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 100)]
		ids = ids[len(chunk):]
		sq := SpanQuery{Environments: q.Environments, FromMs: max(0, lo-q.WindowMs), ToMs: hi + q.WindowMs,
			Filters: []Filter{{Field: "trace_id", Operator: OpIn, Values: chunk}}, SortBy: SortTimestamp, Limit: MaxSpanLimit}
		for {
			sp, err := st.QuerySpans(ctx, sq)
			if err != nil {
				return fmt.Errorf("read spans of traces: %w", err)
			}
			for i := range sp.Spans {
				s := &sp.Spans[i]
				if i, ok := index[s.TraceID]; ok && (env == "" || s.Environment == traces[i].Environment) {
					traces[i].add(s)
				}
			}
			read += len(sp.Spans)
			if sp.NextCursor == "" {
				break
			}
			if read >= MaxTraceSummarySpans {
				for i := range traces {
					traces[i].Partial = true
				}
				break
			}
			sq.Cursor = sp.NextCursor
		}
	}
	return nil
}

// add folds one span (read in start order) into the summary.
func (t *TraceSummary) add(s *Span) {
	t.SpanCount++
	if t.SpanCount == 1 || s.Timestamp < t.Start {
		t.Start = s.Timestamp
	}
	t.End = max(t.End, s.Timestamp+s.Duration)
	if s.ParentSpanID == "" && !t.HasRoot {
		t.Root, t.HasRoot = *s, true
	} else if t.SpanCount == 1 {
		t.Root = *s
	}
	if s.StatusCode == "STATUS_CODE_ERROR" {
		t.ErrorCount++
	}
	t.TotalTokens += s.TotalTokens
	t.Services = appendNew(t.Services, s.ServiceName)
	t.Workflows = appendNew(t.Workflows, s.WorkflowName)
	t.Models = appendNew(t.Models, cmpOr(s.ResponseModel, s.RequestModel))
	for _, ev := range s.Evaluations {
		t.Evaluations = append(t.Evaluations, TraceEvaluation{SpanID: s.SpanID, SpanName: s.SpanName, Evaluation: ev})
	}
}

func appendNew(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
