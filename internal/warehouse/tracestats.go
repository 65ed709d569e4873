package warehouse

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/evalcol/evalcol/internal/pricing"
)

// Trace stats: one row per trace (environment and trace id) that both
// backends keep as spans are written (the spans actually stored: a resend
// counts nothing) and as retention deletes them: the trace's earliest
// span start and latest span end, its spans, error spans, tokens
// (Span.TotalTokens, the traces list's column) and cost. They let the
// traces list sort by latency, tokens or cost and count the traces of a
// range without reading spans.
//
// Cost is priced when the spans are stored, with the price table the
// store was opened with (as Langfuse prices at ingestion): a later change
// of the table reprices the pages, which price usage as they read it, not
// the order of a list sorted by cost.

// TraceSortKey is what a sorted trace list orders by.
type TraceSortKey string

// Trace sort keys. The zero value (or TraceSortStart) is the scan of
// spans by start time that TraceQuery always did.
const (
	TraceSortStart   TraceSortKey = "start"
	TraceSortLatency TraceSortKey = "latency"
	TraceSortTokens  TraceSortKey = "tokens"
	TraceSortCost    TraceSortKey = "cost"
)

// TraceSortKeys are the keys a trace list sorts by, in the order a page
// offers them.
var TraceSortKeys = []TraceSortKey{TraceSortStart, TraceSortLatency, TraceSortTokens, TraceSortCost}

// TraceStatKey identifies a trace stats row.
type TraceStatKey struct{ Environment, TraceID string }

// TraceStatValues are one trace's stats.
type TraceStatValues struct {
	// StartMs is the earliest span start, EndMs the latest span end
	// (Unix ms). Retention taking spans off leaves them as they were.
	StartMs, EndMs int64
	Spans, Errors  int64
	Tokens         int64
	// CostUSD is the spans' tokens priced at write time (0 for models the
	// table does not know).
	CostUSD float64
}

// LatencyMs is the trace's end minus its start.
func (v TraceStatValues) LatencyMs() int64 { return v.EndMs - v.StartMs }

// TraceStatChanges accumulates the trace stats changes of one write:
// spans added (sign 1) or taken off (sign -1), by trace.
type TraceStatChanges struct {
	// Prices prices the spans' tokens (nil: no cost).
	Prices *pricing.Table
	Rows   map[TraceStatKey]TraceStatValues
	// priced caches Prices' lookups of the write's models (a dated name
	// is looked up with a regular expression).
	priced map[string]pricedModel
}

// pricedModel is a model's price, ok false when the table has none.
type pricedModel struct {
	price pricing.Price
	ok    bool
}

// AddSpan adds (sign 1) or takes off (sign -1) span sp.
func (c *TraceStatChanges) AddSpan(sp *Span, sign int64) {
	in, out := sp.Usage()
	c.addSpan(sp, in, out, sign)
}

func (c *TraceStatChanges) addSpan(sp *Span, in, out, sign int64) {
	if c.Rows == nil {
		c.Rows = map[TraceStatKey]TraceStatValues{}
	}
	k := TraceStatKey{Environment: sp.Environment, TraceID: sp.TraceID}
	v, seen := c.Rows[k]
	if start, end := sp.Timestamp, sp.Timestamp+sp.Duration; !seen {
		v.StartMs, v.EndMs = start, end
	} else {
		v.StartMs, v.EndMs = min(v.StartMs, start), max(v.EndMs, end)
	}
	v.Spans += sign
	if sp.StatusCode == "STATUS_CODE_ERROR" {
		v.Errors += sign
	}
	v.Tokens += sign * sp.TotalTokens
	if in > 0 || out > 0 {
		if p := c.price(sp.PricedModel()); p.ok {
			v.CostUSD += float64(sign) * p.price.Cost(in, out)
		}
	}
	c.Rows[k] = v
}

// price looks model up in Prices once per write.
func (c *TraceStatChanges) price(model string) pricedModel {
	p, seen := c.priced[model]
	if !seen {
		p.price, p.ok = c.Prices.Lookup(model)
		if c.priced == nil {
			c.priced = map[string]pricedModel{}
		}
		c.priced[model] = p
	}
	return p
}

// SpanChanges are the span stats and trace stats changes of one write or
// retention delete, each span's usage read once for both.
type SpanChanges struct {
	Stats  SpanStatChanges
	Traces TraceStatChanges
}

// AddSpan adds (sign 1) or takes off (sign -1) span sp to both.
func (c *SpanChanges) AddSpan(sp *Span, sign int64) {
	in, out := sp.Usage()
	c.Stats.addSpan(sp, in, out, sign)
	c.Traces.addSpan(sp, in, out, sign)
}

// TraceStat is one trace's stats row.
type TraceStat struct {
	TraceStatKey
	TraceStatValues
}

// SortValue is the trace's value for key, as the backends order by it
// (cost in whole micro-dollars would lose cheap traces' order: it is a
// float).
func (s TraceStat) SortValue(key TraceSortKey) float64 {
	switch key {
	case TraceSortLatency:
		return float64(s.LatencyMs())
	case TraceSortTokens:
		return float64(s.Tokens)
	case TraceSortCost:
		return s.CostUSD
	}
	return float64(s.StartMs)
}

// TraceStatRead asks a backend for trace stats rows: the traces of
// Environments whose start lies in [FromMs, ToMs] (ToMs 0 = open), in
// order of SortBy (then trace id; both reversed when Desc), after After
// when set, at most Limit rows.
type TraceStatRead struct {
	Environments []string
	FromMs, ToMs int64
	SortBy       TraceSortKey
	Desc         bool
	After        *TraceStatPosition
	Limit        int
}

// TraceStatPosition is a place in a sorted trace stats read: the sort
// value and trace id of the last row read.
type TraceStatPosition struct {
	Value   float64 `json:"v"`
	TraceID string  `json:"t"`
}

// TraceStatReader is the part of a Backend that reads trace stats.
type TraceStatReader interface {
	// ReadTraceStats answers one batch of r.
	ReadTraceStats(ctx context.Context, r TraceStatRead) ([]TraceStat, error)
	// CountTraces counts the traces of envs whose start lies in [fromMs,
	// toMs] (toMs 0 = open).
	CountTraces(ctx context.Context, envs []string, fromMs, toMs int64) (int64, error)
}

// sortedTraceCursor continues a sorted trace list: the query's
// fingerprint, the position of the last trace the previous page
// consumed, and the traces of the range when the first page counted them.
type sortedTraceCursor struct {
	V     int               `json:"v"`
	Hash  string            `json:"h"`
	After TraceStatPosition `json:"a"`
	Total int64             `json:"n"`
}

const sortedTraceCursorVersion = 2

func (q TraceQuery) sortedFingerprint() string {
	return q.fingerprint() + "/" + string(q.SortBy) + "/" + strconv.FormatBool(q.Desc)
}

func (q TraceQuery) encodeSortedCursor(c sortedTraceCursor) string {
	c.V, c.Hash = sortedTraceCursorVersion, q.sortedFingerprint()
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (q TraceQuery) decodeSortedCursor() (sortedTraceCursor, bool, error) {
	var c sortedTraceCursor
	if q.Cursor == "" {
		return c, false, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.V != sortedTraceCursorVersion || c.After.TraceID == "" {
		return c, false, queryErrorf("cursor", "malformed cursor")
	}
	if c.Hash != q.sortedFingerprint() {
		return c, false, queryErrorf("cursor", "cursor belongs to a different query; keep the other parameters the same on every page")
	}
	return c, true, nil
}

// Sorted trace lists.
const (
	// MaxSortedTraceScan bounds the traces a sorted page with filters
	// checks (TracePage.ScanCut).
	MaxSortedTraceScan = 5000
	// sortedTraceBatch is how many traces a sorted page with filters reads
	// and checks at a time: the trace ids of one span query (SQLite's
	// postings answer an in-list of up to 100 values; a longer one scans
	// the range, 0.6 ms a trace instead of 0.17 ms at 1M spans).
	sortedTraceBatch = 100
)

// querySortedTraces answers a list sorted by latency, tokens or cost
// (q normalised): it reads the trace stats in that order, keeps the
// traces with a matching span when q filters, then summarises the page's
// traces as the start-ordered list does.
func (p QueryPath) querySortedTraces(ctx context.Context, q TraceQuery) (TracePage, error) {
	page := TracePage{Traces: []TraceSummary{}, Total: -1}
	cur, hasCursor, err := q.decodeSortedCursor()
	if err != nil {
		return page, err
	}
	if len(q.Environments) == 0 {
		return page, nil
	}
	filtered := len(q.Filters) > 0 || q.Text != ""
	if !filtered {
		if hasCursor {
			page.Total = cur.Total
		} else if page.Total, err = p.backend.CountTraces(ctx, q.Environments, q.FromMs, q.ToMs); err != nil {
			return page, fmt.Errorf("count traces: %w", err)
		}
	}
	read := TraceStatRead{Environments: q.Environments, FromMs: q.FromMs, ToMs: q.ToMs, SortBy: q.SortBy, Desc: q.Desc,
		Limit: q.Limit + 1}
	if hasCursor {
		read.After = &cur.After
	}
	if filtered {
		read.Limit = sortedTraceBatch
	}
	checked := 0
	var last *TraceStatPosition // the last trace consumed
	next := func() {
		page.NextCursor = q.encodeSortedCursor(sortedTraceCursor{After: *last, Total: page.Total})
	}
	for {
		rows, err := p.backend.ReadTraceStats(ctx, read)
		if err != nil {
			return page, fmt.Errorf("read trace stats: %w", err)
		}
		var matching map[string]bool
		if filtered {
			if matching, err = p.tracesMatching(ctx, q, rows); err != nil {
				return page, err
			}
		}
		full := false
		for _, r := range rows {
			if len(page.Traces) == q.Limit {
				full = true
				break
			}
			last = &TraceStatPosition{Value: r.SortValue(q.SortBy), TraceID: r.TraceID}
			checked++
			if filtered && !matching[r.TraceID] {
				continue
			}
			page.Traces = append(page.Traces, TraceSummary{TraceID: r.TraceID, Environment: r.Environment, Matched: r.StartMs})
		}
		switch {
		case full:
			next()
		case len(rows) < read.Limit:
			// The last batch: nothing follows.
		case checked >= MaxSortedTraceScan:
			page.ScanCut = true
			next()
		default:
			read.After = last
			continue
		}
		break
	}
	if err := p.summarise(ctx, q, page.Traces); err != nil {
		return page, err
	}
	return page, nil
}

// tracesMatching returns which of rows' traces have a span matching q's
// filters and text that starts in q's range (widened by its window past
// the end, for traces that started near it), reading each trace's
// matching spans until one is found.
func (p QueryPath) tracesMatching(ctx context.Context, q TraceQuery, rows []TraceStat) (map[string]bool, error) {
	found := map[string]bool{}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.TraceID)
	}
	to := q.ToMs
	if to != 0 {
		to += q.WindowMs
	}
	for len(ids) > 0 {
		sq := SpanQuery{Environments: q.Environments, FromMs: q.FromMs, ToMs: to, Text: q.Text,
			Filters: append(slices.Clone(q.Filters), Filter{Field: "trace_id", Operator: OpIn, Values: ids}),
			SortBy:  SortTimestamp, Limit: MaxSpanLimit}
		sq, err := sq.Normalize()
		if err != nil {
			return nil, err
		}
		spans, err := p.backend.ReadSpans(ctx, SpanRead{Query: sq, First: true, Limit: MaxSpanLimit})
		if err != nil {
			return nil, fmt.Errorf("match traces: %w", err)
		}
		for _, s := range spans.Spans {
			found[s.TraceID] = true
		}
		if len(spans.Spans) < MaxSpanLimit {
			break
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return found[id] })
	}
	return found, nil
}

// TraceStatRows are the rows of a backend's trace stats read: database/sql
// rows, or a ClickHouse driver's.
type TraceStatRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanTraceStats reads rows of the columns environment, trace id, start,
// end, spans, errors, tokens and cost (in that order); the caller closes
// them.
func ScanTraceStats(rows TraceStatRows) ([]TraceStat, error) {
	var out []TraceStat
	for rows.Next() {
		var t TraceStat
		if err := rows.Scan(&t.Environment, &t.TraceID, &t.StartMs, &t.EndMs, &t.Spans, &t.Errors, &t.Tokens, &t.CostUSD); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
