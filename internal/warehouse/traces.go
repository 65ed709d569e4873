package warehouse

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TraceReader is implemented by stores that answer trace queries (both
// backends, through the query path).
type TraceReader interface {
	QueryTraces(ctx context.Context, q TraceQuery) (TracePage, error)
}

// Trace query limits.
const (
	DefaultTraceLimit = 50
	MaxTraceLimit     = 200
	// DefaultTraceWindowMs is how far from its matching span a listed
	// trace's other spans are looked for (the trace index of SQLite is
	// read hour by hour: a narrow window keeps a page cheap).
	DefaultTraceWindowMs = 3600 * 1000
	// MaxTraceSummarySpans bounds the spans read to summarise one page of
	// traces; beyond it summaries are marked Partial.
	MaxTraceSummarySpans = 20000
	// The span scans behind a trace page read q.Limit+1 spans first (a
	// page of one-span traces), then batches twice as large, up to
	// MaxSpanLimit.
	traceScanGrowth = 2
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
	// Text is a full-text search, as SpanQuery.Text: a trace matches when
	// one of its spans matches it and every filter.
	Text string
	// SortBy orders the list (TraceSortKeys; "" is TraceSortStart). A
	// list sorted by another key is read from the trace stats: it holds
	// the traces that started in the range (and, with filters or Text, have
	// a matching span), and counts them when nothing filters it.
	SortBy TraceSortKey
	Desc   bool
	// Limit 0 means DefaultTraceLimit.
	Limit  int
	Cursor string
	// WindowMs is how far from its matching span a trace's other spans are
	// read for its summary; 0 means DefaultTraceWindowMs.
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
	// Usage is the trace's input and output tokens per model (the spans
	// that report them), what its cost is computed from.
	Usage []ModelUsage
	// Services, Workflows and Models are the distinct non-empty values of
	// the trace's spans, in span order.
	Services, Workflows, Models []string
	// Evaluations are every evaluation result of the trace's spans.
	Evaluations []TraceEvaluation
	// Partial is set when not every span of the trace was read.
	Partial bool
	// Input is the trace's first user prompt (of its earliest span that
	// has one; else that span's input), Output its last completion (of
	// its latest span that has one; else that span's output): the list's
	// previews, at most MaxPreviewBytes each.
	Input, Output       string
	inputAt, outputAt   int64
	hasInput, hasOutput bool
}

// MaxPreviewBytes bounds TraceSummary.Input and Output.
const MaxPreviewBytes = 4096

// TraceEvaluation is an evaluation result and the span it was recorded on.
type TraceEvaluation struct {
	SpanID, SpanName string
	Evaluation
}

// TracePage is one page of a trace query. It does not count the matches:
// counting every matching span of a wide range costs more than the page.
type TracePage struct {
	Traces []TraceSummary
	// NextCursor is "" on the last page.
	NextCursor string
	// Total is the number of traces that started in the range, when the
	// list has neither filters nor Text; -1 otherwise (unknown).
	Total int64
	// ScanCut is set when a sorted page with filters stopped after
	// checking MaxSortedTraceScan traces: fewer than Limit matched so far,
	// and the next page goes on from there.
	ScanCut bool
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
	if q.SortBy == "" {
		q.SortBy = TraceSortStart
	}
	if !slices.Contains(TraceSortKeys, q.SortBy) {
		return q, queryErrorf("sort_by", "unknown trace sort key %q; one of start, latency, tokens, cost", q.SortBy)
	}
	sq, err := q.spanQuery().Normalize()
	if err != nil {
		return q, err
	}
	q.Filters = sq.Filters
	return q, nil
}

func (q TraceQuery) spanQuery() SpanQuery {
	return SpanQuery{Environments: q.Environments, FromMs: q.FromMs, ToMs: q.ToMs, Filters: q.Filters, Text: q.Text,
		SortBy: SortTimestamp, Desc: q.Desc, Limit: MaxSpanLimit}
}

// traceCursor continues a trace pagination: the snapshot its first page
// took and the position (start time and sequence number) of the last span
// the previous page consumed in the scan order. A trace with a matching
// span at or before that position was listed on an earlier page.
type traceCursor struct {
	V    int    `json:"v"`
	Hash string `json:"h"`
	Snap int64  `json:"s"`
	Ts   int64  `json:"n"`
	Seq  int64  `json:"q"`
	// Total is TracePage.Total as the first page counted it.
	Total int64 `json:"c,omitempty"`
}

const traceCursorVersion = 1

// fingerprint binds a cursor to the query: the fingerprint of its span
// scan (environments, time range, filters, order).
func (q TraceQuery) fingerprint() string { return q.spanQuery().Fingerprint() }

func (q TraceQuery) decodeCursor() (traceCursor, bool, error) {
	if q.Cursor == "" {
		return traceCursor{}, false, nil
	}
	var c traceCursor
	b, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.V != traceCursorVersion || c.Snap < 0 || c.Seq < 0 {
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

// QueryTraces returns one page of traces. It reads through the backend's
// span reads only, so every backend answers it with the span query's
// filters, tenancy and indexes: it scans the matching spans in time order
// within the pagination's snapshot from the cursor on, takes each trace
// at its first matching span in that order, drops the traces that have a
// matching span before the cursor (listed on an earlier page), then reads
// the spans of the page's traces to summarise them.
func (p QueryPath) QueryTraces(ctx context.Context, q TraceQuery) (TracePage, error) {
	page := TracePage{Traces: []TraceSummary{}, Total: -1}
	q, err := q.Normalize()
	if err != nil {
		return page, err
	}
	if q.SortBy != TraceSortStart {
		return p.querySortedTraces(ctx, q)
	}
	cur, hasCursor, err := q.decodeCursor()
	if err != nil {
		return page, err
	}
	if len(q.Environments) == 0 {
		return page, nil
	}
	if q.Text == "" && len(q.Filters) == 0 {
		if hasCursor {
			page.Total = cur.Total
		} else if page.Total, err = p.backend.CountTraces(ctx, q.Environments, q.FromMs, q.ToMs); err != nil {
			return page, fmt.Errorf("count traces: %w", err)
		}
	}
	scan, err := q.spanQuery().Normalize()
	if err != nil {
		return page, err
	}
	read := SpanRead{Query: scan, First: !hasCursor, Snapshot: cur.Snap, After: SpanKey{Num: cur.Ts, Seq: cur.Seq},
		Limit: q.Limit + 1}
	taken := map[string]bool{}
	skipped := map[string]bool{}
	var last SpanKey // the last span consumed
	for {
		rows, err := p.backend.ReadSpans(ctx, read)
		if err != nil {
			return page, fmt.Errorf("scan spans: %w", err)
		}
		if read.First {
			read.First, read.Snapshot = false, rows.Snapshot
		}
		if hasCursor {
			var fresh []string
			for _, s := range rows.Spans {
				if !taken[s.TraceID] && !skipped[s.TraceID] && !slices.Contains(fresh, s.TraceID) {
					fresh = append(fresh, s.TraceID)
				}
			}
			listed, err := p.listedBefore(ctx, scan, read.Snapshot, SpanKey{Num: cur.Ts, Seq: cur.Seq}, fresh)
			if err != nil {
				return page, err
			}
			for id := range listed {
				skipped[id] = true
			}
		}
		full := false
		for i := range rows.Spans {
			s := &rows.Spans[i]
			if !taken[s.TraceID] && !skipped[s.TraceID] {
				if len(page.Traces) == q.Limit {
					full = true
					break
				}
				taken[s.TraceID] = true
				page.Traces = append(page.Traces, TraceSummary{TraceID: s.TraceID, Environment: s.Environment, Matched: s.Timestamp})
			}
			last = SpanKey{Num: s.Timestamp, Seq: rows.Seqs[i]}
		}
		if full {
			page.NextCursor = q.encodeCursor(traceCursor{Snap: read.Snapshot, Ts: last.Num, Seq: last.Seq, Total: page.Total})
			break
		}
		if len(rows.Spans) < read.Limit {
			break
		}
		read.After = last
		read.Limit = min(read.Limit*traceScanGrowth, MaxSpanLimit)
	}
	if err := p.summarise(ctx, q, page.Traces); err != nil {
		return page, err
	}
	return page, nil
}

// listedBefore returns which of ids have a matching span before position
// at (in scan's order) within the snapshot: those traces were listed on an
// earlier page. It reads the scan backwards from at.
func (p QueryPath) listedBefore(ctx context.Context, scan SpanQuery, snapshot int64, at SpanKey, ids []string) (map[string]bool, error) {
	listed := map[string]bool{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 100)]
		ids = ids[len(chunk):]
		back := scan
		back.Desc = !scan.Desc
		back.Filters = append(slices.Clone(scan.Filters), Filter{Field: "trace_id", Operator: OpIn, Values: chunk})
		// Only the part of the range on the cursor's far side can hold
		// them: narrowing it keeps the trace index read short.
		if scan.Desc {
			back.FromMs = at.Num
		} else {
			back.ToMs = at.Num
		}
		back, err := back.Normalize()
		if err != nil {
			return nil, err
		}
		read := SpanRead{Query: back, Snapshot: snapshot, After: at, Limit: MaxSpanLimit}
		found := 0
		for {
			rows, err := p.backend.ReadSpans(ctx, read)
			if err != nil {
				return nil, fmt.Errorf("check listed traces: %w", err)
			}
			for _, s := range rows.Spans {
				if !listed[s.TraceID] {
					listed[s.TraceID] = true
					found++
				}
			}
			if len(rows.Spans) < read.Limit || found == len(chunk) {
				break
			}
			n := len(rows.Spans) - 1
			read.After = SpanKey{Num: rows.Spans[n].Timestamp, Seq: rows.Seqs[n]}
		}
	}
	return listed, nil
}

// summarise reads the spans of traces within the query's window around
// their matching spans and fills their summaries. Traces whose matching
// spans lie close together are read with one query (a page of a busy
// range), the others each in its own narrow window (a page of a sparse
// filter over days), so the trace index is read only where it matters.
func (p QueryPath) summarise(ctx context.Context, q TraceQuery, traces []TraceSummary) error {
	order := make([]int, len(traces))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(traces[a].Matched, traces[b].Matched) })
	read := 0
	for len(order) > 0 {
		n := 1
		for n < len(order) && n < 100 && traces[order[n]].Matched-traces[order[0]].Matched <= 2*q.WindowMs {
			n++
		}
		group := order[:n]
		order = order[n:]
		index := make(map[string]int, n)
		ids := make([]string, n)
		for k, i := range group {
			index[traces[i].TraceID], ids[k] = i, traces[i].TraceID
		}
		lo, hi := traces[group[0]].Matched, traces[group[n-1]].Matched
		sq := SpanQuery{Environments: q.Environments, FromMs: max(0, lo-q.WindowMs), ToMs: hi + q.WindowMs,
			Filters: []Filter{{Field: "trace_id", Operator: OpIn, Values: ids}}, SortBy: SortTimestamp, Limit: MaxSpanLimit}
		for {
			sp, err := p.QuerySpans(ctx, sq)
			if err != nil {
				return fmt.Errorf("read spans of traces: %w", err)
			}
			for k := range sp.Spans {
				s := &sp.Spans[k]
				if i, ok := index[s.TraceID]; ok && s.Environment == traces[i].Environment {
					traces[i].add(s)
				}
			}
			read += len(sp.Spans)
			if sp.NextCursor == "" {
				break
			}
			if read >= MaxTraceSummarySpans {
				for _, i := range group {
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
	t.Usage = AddUsage(t.Usage, s)
	t.Services = appendNew(t.Services, s.ServiceName)
	t.Workflows = appendNew(t.Workflows, s.WorkflowName)
	t.Models = appendNew(t.Models, cmpOr(s.RequestModel, s.ResponseModel)) // the model a filter on request_model matches
	for _, ev := range s.Evaluations {
		t.Evaluations = append(t.Evaluations, TraceEvaluation{SpanID: s.SpanID, SpanName: s.SpanName, Evaluation: ev})
	}
	if in := FirstUserPrompt(s); in != "" && (!t.hasInput || s.Timestamp < t.inputAt) {
		t.Input, t.inputAt, t.hasInput = cutPreview(in), s.Timestamp, true
	}
	if out := LastCompletion(s); out != "" && (!t.hasOutput || s.Timestamp+s.Duration >= t.outputAt) {
		t.Output, t.outputAt, t.hasOutput = cutPreview(out), s.Timestamp+s.Duration, true
	}
}

// FirstUserPrompt is the content of the span's first prompt message whose
// role is user (or that has no role), else its input: a list's preview.
func FirstUserPrompt(s *Span) string {
	for _, i := range messageIndexes(s.Prompts, "llm.prompts.") {
		p := "llm.prompts." + i + "."
		role := s.Prompts[p+"role"]
		if c := s.Prompts[p+"content"]; c != "" && (role == "" || role == "user" || role == "human") {
			return c
		}
	}
	return s.Input
}

// LastCompletion is the content of the span's last completion message,
// else its output: a list's preview.
func LastCompletion(s *Span) string {
	idx := messageIndexes(s.Completions, "llm.completions.")
	for k := len(idx) - 1; k >= 0; k-- {
		if c := s.Completions["llm.completions."+idx[k]+".content"]; c != "" {
			return c
		}
	}
	return s.Output
}

// messageIndexes returns the message indexes of a prompts or completions
// map (keys <prefix><i>.<field>), in numeric order, as written.
func messageIndexes(m map[string]string, prefix string) []string {
	var idx []string
	seen := map[string]bool{}
	for k := range m {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		i, _, ok := strings.Cut(rest, ".")
		if !ok || seen[i] {
			continue
		}
		if _, err := strconv.Atoi(i); err != nil {
			continue
		}
		seen[i] = true
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return cmp.Compare(x, y)
	})
	return idx
}

// cutPreview cuts s to MaxPreviewBytes at a character boundary.
func cutPreview(s string) string {
	if len(s) <= MaxPreviewBytes {
		return s
	}
	n := MaxPreviewBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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
