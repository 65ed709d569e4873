package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/evalcol/evalcol/internal/pricing"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Prices is the price table the suite's stores are opened with (the
// shipped one): the trace stats price spans with it.
func Prices(t testing.TB) *pricing.Table {
	t.Helper()
	p, err := pricing.Default()
	if err != nil {
		t.Fatalf("shipped prices: %v", err)
	}
	return p
}

// traceStatsFixture: n traces of env, trace i starting at start+i s, with
// 1 to 4 spans of distinct durations, tokens and models (priced and not),
// some with error spans, every third of service "b". The spans are
// returned in two batches, a trace's later spans in the second.
func traceStatsFixture(env string, start int64, n int) (first, second []warehouse.Span) {
	models := []string{"gpt-4o", "gpt-4o-mini-2024-07-18", "claude-3-5-haiku", "in-house-model", ""}
	for i := range n {
		tid := fmt.Sprintf("%s-trace-%03d", env, i)
		for j := range 1 + (i*7)%4 {
			sp := span(env, fmt.Sprintf("%s-s%03d-%d", env, i, j), start-base+int64(i)*1000+int64(j*(i%5+1)*13))
			sp.TraceID, sp.Duration = tid, int64((i*37)%101+j*3+1)
			if j > 0 {
				sp.ParentSpanID = fmt.Sprintf("%s-s%03d-0", env, i)
			}
			if m := models[(i+j)%len(models)]; m != "" {
				in, out := int64(100+i*17+j), int64(20+(i*29)%97)
				sp.RequestModel, sp.TotalTokens = m, in+out
				sp.SpanAttributes = map[string]string{"gen_ai.usage.input_tokens": strconv.FormatInt(in, 10),
					"gen_ai.usage.output_tokens": strconv.FormatInt(out, 10)}
			}
			if (i+j)%6 == 0 {
				sp.StatusCode = "STATUS_CODE_ERROR"
			}
			if i%3 == 0 {
				sp.ServiceName = "b"
			}
			if j < 2 {
				first = append(first, sp)
			} else {
				second = append(second, sp)
			}
		}
	}
	return first, second
}

// traceStatsOf is the reference: the stats of spans, by trace.
func traceStatsOf(t *testing.T, spans []warehouse.Span) map[string]warehouse.TraceStat {
	c := warehouse.TraceStatChanges{Prices: Prices(t)}
	for i := range spans {
		c.AddSpan(&spans[i], 1)
	}
	out := map[string]warehouse.TraceStat{}
	for k, v := range c.Rows {
		out[k.TraceID] = warehouse.TraceStat{TraceStatKey: k, TraceStatValues: v}
	}
	return out
}

// sortedTraceIDs are the traces of ref that started in [from, to] and
// keep says, in the order of key (then trace id; both reversed if desc).
func sortedTraceIDs(ref map[string]warehouse.TraceStat, from, to int64, key warehouse.TraceSortKey, desc bool, keep func(string) bool) []string {
	var rows []warehouse.TraceStat
	for id, r := range ref {
		if r.StartMs >= from && r.StartMs <= to && (keep == nil || keep(id)) {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b warehouse.TraceStat) int {
		d := cmp.Or(cmp.Compare(a.SortValue(key), b.SortValue(key)), cmp.Compare(a.TraceID, b.TraceID))
		if desc {
			return -d
		}
		return d
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.TraceID
	}
	return out
}

// testTraceStats checks the traces list sorted by latency, tokens and
// cost (read from the trace stats the backends keep) against the stats of
// the written spans: order over pages, counts, filters, a resend counting
// nothing twice, tenancy and bad input.
func testTraceStats(t *testing.T, open Opener) {
	ctx := context.Background()
	st := openStore(t, open)
	start := base + 3600_000
	first, second := traceStatsFixture("prod", start, 30)
	writeSpans(t, st, first...)
	writeSpans(t, st, second...)
	writeSpans(t, st, first[:5]...) // a resend
	sf, ss := traceStatsFixture("staging", start, 8)
	writeSpans(t, st, append(sf, ss...)...)
	ref := traceStatsOf(t, append(slices.Clone(first), second...))
	services := map[string]bool{}
	for _, sp := range append(slices.Clone(first), second...) {
		if sp.ServiceName == "b" {
			services[sp.TraceID] = true
		}
	}
	var costly int
	for _, r := range ref {
		if r.CostUSD > 0 {
			costly++
		}
	}
	if costly < 10 {
		t.Fatalf("the fixture prices %d of its traces; want most", costly)
	}
	from, to := start+2000, start+25_000 // traces 2..25
	for _, key := range []warehouse.TraceSortKey{warehouse.TraceSortLatency, warehouse.TraceSortTokens, warehouse.TraceSortCost, warehouse.TraceSortStart} {
		for _, desc := range []bool{true, false} {
			name := fmt.Sprintf("%s desc=%v", key, desc)
			q := warehouse.TraceQuery{Environments: []string{"prod"}, FromMs: from, ToMs: to, SortBy: key, Desc: desc, Limit: 7}
			want := sortedTraceIDs(ref, from, to, key, desc, nil)
			if key != warehouse.TraceSortStart {
				if got := traceIDs(allTracePages(t, st, q, nil)); !slices.Equal(got, want) {
					t.Errorf("%s: traces\n got %v\nwant %v", name, got, want)
				}
			}
			page, err := st.QueryTraces(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if page.Total != int64(len(want)) {
				t.Errorf("%s: total %d, want %d", name, page.Total, len(want))
			}
			for _, tr := range page.Traces {
				if r := ref[tr.TraceID]; int64(tr.SpanCount) != r.Spans || tr.Start != r.StartMs || tr.End != r.EndMs {
					t.Errorf("%s: summary of %s: %d spans %d..%d, want %d spans %d..%d", name, tr.TraceID, tr.SpanCount,
						tr.Start, tr.End, r.Spans, r.StartMs, r.EndMs)
				}
			}
			if key == warehouse.TraceSortStart {
				continue
			}
			// With a filter: the traces with a matching span, still in
			// order, counted as unknown.
			q.Filters = []warehouse.Filter{{Field: "service_name", Operator: warehouse.OpEquals, Value: "b"}}
			want = sortedTraceIDs(ref, from, to, key, desc, func(id string) bool { return services[id] })
			if got := traceIDs(allTracePages(t, st, q, nil)); !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("%s, service b: traces\n got %v\nwant %v", name, got, want)
			}
			if page, err := st.QueryTraces(ctx, q); err != nil || page.Total != -1 {
				t.Errorf("%s, service b: total %d (%v), want -1 (not counted)", name, page.Total, err)
			}
		}
	}

	// Counts over hours: traces of "hours" every 25 minutes over ten
	// hours, one of them reaching back an hour with a span written later
	// (it moves to the earlier hour), counted over ranges of whole and
	// part hours.
	var spread []warehouse.Span
	for i := range 24 {
		sp := span("hours", fmt.Sprintf("h%02d", i), start-base+int64(i)*25*60_000+1234)
		sp.TraceID = fmt.Sprintf("hours-trace-%02d", i)
		spread = append(spread, sp)
	}
	writeSpans(t, st, spread...)
	early := span("hours", "h07-early", spread[7].Timestamp-base-70*60_000)
	early.TraceID = spread[7].TraceID
	writeSpans(t, st, early)
	hours := traceStatsOf(t, append(spread, early))
	for _, r := range [][2]int64{{start, start + 10*3600_000}, {start + 1, start + 3*3600_000 - 1}, {start + 1800_000, start + 7*3600_000 + 5},
		{start + 2*3600_000, start + 5*3600_000}, {start + 100, 0}} {
		want := 0
		for _, h := range hours {
			if h.StartMs >= r[0] && (r[1] == 0 || h.StartMs <= r[1]) {
				want++
			}
		}
		page, err := st.QueryTraces(ctx, warehouse.TraceQuery{Environments: []string{"hours"}, FromMs: r[0], ToMs: r[1],
			SortBy: warehouse.TraceSortLatency, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != int64(want) {
			t.Errorf("traces in [%d, %d] of the start: %d, want %d", r[0]-start, r[1]-start, page.Total, want)
		}
	}

	// Tenancy: staging lists and counts its own traces only.
	page, err := st.QueryTraces(ctx, warehouse.TraceQuery{Environments: []string{"staging"}, FromMs: start, ToMs: start + 60_000,
		SortBy: warehouse.TraceSortCost, Desc: true, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 8 || len(page.Traces) != 8 {
		t.Errorf("staging: %d traces, total %d; want 8", len(page.Traces), page.Total)
	}
	for _, tr := range page.Traces {
		if tr.Environment != "staging" {
			t.Errorf("staging lists %s of %s", tr.TraceID, tr.Environment)
		}
	}

	// Bad input: an unknown key, a cursor of another order.
	if _, err := st.QueryTraces(ctx, warehouse.TraceQuery{Environments: []string{"prod"}, SortBy: "size"}); !warehouse.IsQueryError(err) ||
		err.Error() != `sort_by: unknown trace sort key "size"; one of start, latency, tokens, cost` {
		t.Errorf("sort by size: %v, want a query error naming the keys", err)
	}
	q := warehouse.TraceQuery{Environments: []string{"prod"}, FromMs: from, ToMs: to, SortBy: warehouse.TraceSortTokens, Desc: true, Limit: 3}
	page, err = st.QueryTraces(ctx, q)
	if err != nil || page.NextCursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, page.NextCursor)
	}
	q.SortBy, q.Cursor = warehouse.TraceSortCost, page.NextCursor
	if _, err := st.QueryTraces(ctx, q); !warehouse.IsQueryError(err) {
		t.Errorf("a tokens cursor on a cost list: %v, want a query error", err)
	}
}
