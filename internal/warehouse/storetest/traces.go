package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// traceFixture: n traces of env whose spans interleave in time (trace i
// starts at 10*i ms and its three spans start 0, 25 and 35 ms later, so
// spans of neighbouring traces alternate), the middle span a chat span
// with an evaluation, every third trace of another service.
func traceFixture(env string, n int) []warehouse.Span {
	var out []warehouse.Span
	for i := range n {
		tid := fmt.Sprintf("t%03d", i)
		root := span(env, fmt.Sprintf("r%03d", i), int64(10*i))
		root.TraceID, root.SpanName, root.Duration = tid, "workflow", 50
		chat := span(env, fmt.Sprintf("c%03d", i), int64(10*i+25))
		chat.TraceID, chat.ParentSpanID, chat.SpanName, chat.Duration, chat.TotalTokens = tid, root.SpanID, "chat", 10, 7
		chat.RequestModel = "gpt-4o"
		verdict := "pass"
		if i%4 == 0 {
			verdict = "fail"
		}
		chat.Evaluations = []warehouse.Evaluation{{Name: "toxicity-detector", Verdict: verdict, MonitorID: "m"}}
		tool := span(env, fmt.Sprintf("x%03d", i), int64(10*i+35))
		tool.TraceID, tool.ParentSpanID, tool.SpanName, tool.Duration = tid, root.SpanID, "tool", 5
		if i%3 == 0 {
			root.ServiceName, chat.ServiceName, tool.ServiceName = "other", "other", "other"
		}
		out = append(out, root, chat, tool)
	}
	return out
}

func allTracePages(t *testing.T, tr warehouse.TraceReader, q warehouse.TraceQuery, between func()) []warehouse.TraceSummary {
	t.Helper()
	var out []warehouse.TraceSummary
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("trace pagination does not end")
		}
		page, err := tr.QueryTraces(context.Background(), q)
		if err != nil {
			t.Fatalf("QueryTraces(%+v): %v", q, err)
		}
		if len(page.Traces) > q.Limit {
			t.Fatalf("page of %d traces, limit %d", len(page.Traces), q.Limit)
		}
		out = append(out, page.Traces...)
		if page.NextCursor == "" {
			return out
		}
		if len(page.Traces) != q.Limit {
			t.Fatalf("a page of %d traces before the last one (limit %d)", len(page.Traces), q.Limit)
		}
		q.Cursor = page.NextCursor
		if between != nil {
			between()
		}
	}
}

func traceIDs(ts []warehouse.TraceSummary) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.TraceID
	}
	return out
}

func testTraces(t *testing.T, open Opener) {
	st := openStore(t, open)
	tr, ok := st.(warehouse.TraceReader)
	if !ok {
		t.Fatalf("%T does not answer trace queries (warehouse.TraceReader)", st)
	}
	const n = 40
	writeSpans(t, st, traceFixture("tr", n)...)
	writeSpans(t, st, traceFixture("elsewhere", 5)...)
	all := func(desc bool) []string {
		var ids []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("t%03d", i))
		}
		if desc {
			slices.Reverse(ids)
		}
		return ids
	}
	for _, desc := range []bool{true, false} {
		for _, limit := range []int{1, 3, 7, 50} {
			t.Run(fmt.Sprintf("every trace once, desc %v, limit %d", desc, limit), func(t *testing.T) {
				got := traceIDs(allTracePages(t, tr, warehouse.TraceQuery{Environments: []string{"tr"}, Desc: desc, Limit: limit}, nil))
				if !slices.Equal(got, all(desc)) {
					t.Errorf("got %v\nwant %v", got, all(desc))
				}
			})
		}
	}
	t.Run("filter on child spans, summaries", func(t *testing.T) {
		q := warehouse.TraceQuery{Environments: []string{"tr"}, Desc: true, Limit: 4,
			Filters: []warehouse.Filter{{Field: "verdict.toxicity-detector", Operator: warehouse.OpEquals, Value: "fail"},
				{Field: "service_name", Operator: warehouse.OpEquals, Value: "svc"}}}
		got := allTracePages(t, tr, q, nil)
		var want []string
		for i := n - 1; i >= 0; i-- {
			if i%4 == 0 && i%3 != 0 {
				want = append(want, fmt.Sprintf("t%03d", i))
			}
		}
		if !slices.Equal(traceIDs(got), want) {
			t.Fatalf("failing traces of svc: %v, want %v", traceIDs(got), want)
		}
		s := got[0] // t036? the latest failing svc trace
		i := 0
		fmt.Sscanf(s.TraceID, "t%03d", &i)
		if !s.HasRoot || s.Root.SpanName != "workflow" || s.SpanCount != 3 || s.TotalTokens != 7 ||
			s.Start != base+int64(10*i) || s.End != base+int64(10*i)+50 || s.Matched != base+int64(10*i)+25 ||
			!slices.Equal(s.Models, []string{"gpt-4o"}) || !slices.Equal(s.Services, []string{"svc"}) ||
			len(s.Evaluations) != 1 || s.Evaluations[0].SpanID != fmt.Sprintf("c%03d", i) || s.Evaluations[0].Verdict != "fail" {
			t.Errorf("summary %+v", s)
		}
	})
	t.Run("time range", func(t *testing.T) {
		// Traces with a span inside [100, 150] ms, each at its earliest
		// span there (ties in write order): t010's root at 100 comes
		// before t007's tool span at 105.
		q := warehouse.TraceQuery{Environments: []string{"tr"}, FromMs: base + 100, ToMs: base + 150, Limit: 2}
		got := traceIDs(allTracePages(t, tr, q, nil))
		spans := traceFixture("tr", n)
		slices.SortStableFunc(spans, func(a, b warehouse.Span) int { return int(a.Timestamp - b.Timestamp) })
		var want []string
		for _, sp := range spans {
			if sp.Timestamp >= base+100 && sp.Timestamp <= base+150 && !slices.Contains(want, sp.TraceID) {
				want = append(want, sp.TraceID)
			}
		}
		if len(want) != 9 || want[0] != "t010" || want[1] != "t007" {
			t.Fatalf("fixture changed: %v", want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("spans arriving during a pagination", func(t *testing.T) {
		q := warehouse.TraceQuery{Environments: []string{"tr"}, Desc: true, Limit: 5}
		k := 0
		got := traceIDs(allTracePages(t, tr, q, func() {
			// A new trace and a late span of an already listed trace.
			late := span("tr", fmt.Sprintf("late%d", k), 10_000+int64(k))
			late.TraceID = fmt.Sprintf("new%d", k)
			old := span("tr", fmt.Sprintf("late-old%d", k), 1)
			old.TraceID = "t039"
			k++
			writeSpans(t, st, late, old)
		}))
		if !slices.Equal(got, all(true)) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("tenancy", func(t *testing.T) {
		page, err := tr.QueryTraces(context.Background(), warehouse.TraceQuery{Environments: []string{"elsewhere"}, Limit: 2})
		if err != nil || len(page.Traces) != 2 {
			t.Fatalf("elsewhere: %d traces, %v", len(page.Traces), err)
		}
		for _, s := range page.Traces {
			if s.Environment != "elsewhere" || s.SpanCount != 3 {
				t.Errorf("summary %+v", s)
			}
		}
		none, err := tr.QueryTraces(context.Background(), warehouse.TraceQuery{})
		if err != nil || len(none.Traces) != 0 {
			t.Errorf("no environment: %+v, %v", none, err)
		}
	})
	t.Run("bad cursor and limit", func(t *testing.T) {
		page, err := tr.QueryTraces(context.Background(), warehouse.TraceQuery{Environments: []string{"tr"}, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []warehouse.TraceQuery{
			{Environments: []string{"elsewhere"}, Limit: 2, Cursor: page.NextCursor},
			{Environments: []string{"tr"}, Limit: 2, Desc: true, Cursor: page.NextCursor},
			{Environments: []string{"tr"}, Limit: 2, Cursor: "not-a-cursor"},
			{Environments: []string{"tr"}, Limit: warehouse.MaxTraceLimit + 1},
		} {
			_, err := tr.QueryTraces(context.Background(), q)
			var qe *warehouse.QueryError
			if !errors.As(err, &qe) {
				t.Errorf("%+v: %v, want a QueryError", q, err)
			}
		}
	})
}
