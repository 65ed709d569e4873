package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// sortValue returns a span's value of a sort key, as the API defines it.
func sortValue(sp warehouse.Span, key warehouse.SortKey) (num int64, str string, numeric bool) {
	switch key {
	case warehouse.SortDuration:
		return sp.Duration, "", true
	case warehouse.SortTotalTokens:
		return sp.TotalTokens, "", true
	case warehouse.SortSpanName:
		return 0, sp.SpanName, false
	case warehouse.SortTraceID:
		return 0, sp.TraceID, false
	case warehouse.SortWorkflowName:
		return 0, sp.WorkflowName, false
	case warehouse.SortEntityName:
		return 0, sp.EntityName, false
	case warehouse.SortResponseModel:
		return 0, sp.ResponseModel, false
	}
	return sp.Timestamp, "", true
}

func compareBy(key warehouse.SortKey) func(a, b warehouse.Span) int {
	return func(a, b warehouse.Span) int {
		an, as, numeric := sortValue(a, key)
		bn, bs, _ := sortValue(b, key)
		if numeric {
			return cmp.Compare(an, bn)
		}
		return cmp.Compare(as, bs)
	}
}

// sortFixture has repeated values for every sort key, so that pages cut
// through ties.
func sortFixture(env string, n int) []warehouse.Span {
	names := []string{"b-name", "a-name", "c-name", "A-name", "ä-name"}
	var out []warehouse.Span
	for i := range n {
		sp := span(env, fmt.Sprintf("p%03d", i), int64((i*7)%11)*1000)
		sp.TraceID = fmt.Sprintf("trace-%02d", (i*5)%13)
		sp.SpanName = names[i%len(names)]
		sp.Duration = int64((i * 37) % 17)
		sp.TotalTokens = int64((i * 3) % 4)
		sp.WorkflowName = names[(i+1)%len(names)]
		sp.EntityName = names[(i+2)%3]
		sp.ResponseModel = fmt.Sprintf("model-%d", i%4)
		out = append(out, sp)
	}
	return out
}

func testSpanSort(t *testing.T, open Opener) {
	st := openStore(t, open)
	fixture := sortFixture("s", 40)
	writeSpans(t, st, fixture...)
	keys := []warehouse.SortKey{warehouse.SortTimestamp, warehouse.SortDuration, warehouse.SortSpanName,
		warehouse.SortTraceID, warehouse.SortTotalTokens, warehouse.SortWorkflowName, warehouse.SortEntityName,
		warehouse.SortResponseModel, "llm_usage_total_tokens", "traceloop_workflow_name", "traceloop_entity_name"}
	for _, key := range keys {
		for _, desc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s desc=%v", key, desc), func(t *testing.T) {
				q := warehouse.SpanQuery{Environments: []string{"s"}, SortBy: key, Desc: desc, Limit: 3}
				got := allPages(t, st, q)
				canonical, _ := (warehouse.SpanQuery{SortBy: key}).Normalize()
				by := compareBy(canonical.SortBy)
				checkOrder(t, got, fixture, by, desc)
			})
		}
	}
}

// checkOrder asserts that got holds every span of want exactly once and is
// ordered by cmpFn (descending when desc).
func checkOrder(t *testing.T, got, want []warehouse.Span, cmpFn func(a, b warehouse.Span) int, desc bool) {
	t.Helper()
	seen := map[string]int{}
	for _, sp := range got {
		seen[sp.SpanID]++
	}
	for _, sp := range want {
		if seen[sp.SpanID] != 1 {
			t.Errorf("span %s returned %d times, want once", sp.SpanID, seen[sp.SpanID])
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d spans, want %d", len(got), len(want))
	}
	for i := 1; i < len(got); i++ {
		c := cmpFn(got[i-1], got[i])
		if desc {
			c = -c
		}
		if c > 0 {
			t.Fatalf("out of order at %d: %s before %s", i, got[i-1].SpanID, got[i].SpanID)
		}
	}
}

// testSpanPaging pages while a writer adds spans between pages: the
// pagination neither repeats nor skips a span, and total_results stays.
func testSpanPaging(t *testing.T, open Opener) {
	for _, tc := range []struct {
		key  warehouse.SortKey
		desc bool
	}{{warehouse.SortTimestamp, false}, {warehouse.SortTimestamp, true}, {warehouse.SortDuration, true}, {warehouse.SortSpanName, false}} {
		t.Run(fmt.Sprintf("%s desc=%v", tc.key, tc.desc), func(t *testing.T) {
			st := openStore(t, open)
			fixture := sortFixture("pg", 53)
			writeSpans(t, st, fixture...)
			q := warehouse.SpanQuery{Environments: []string{"pg"}, SortBy: tc.key, Desc: tc.desc, Limit: 7}
			var got []warehouse.Span
			for page := 0; ; page++ {
				if page > 20 {
					t.Fatal("pagination does not end")
				}
				p := querySpans(t, st, q)
				if p.TotalResults != 53 {
					t.Fatalf("page %d: total_results %d, want 53", page, p.TotalResults)
				}
				if p.NextCursor != "" && len(p.Spans) != 7 {
					t.Fatalf("page %d: %d spans before the last page, want 7", page, len(p.Spans))
				}
				got = append(got, p.Spans...)
				// New spans in range, sorting everywhere, arrive between pages.
				late := sortFixture("pg", 5)
				for i := range late {
					late[i].SpanID = fmt.Sprintf("late-%d-%d", page, i)
				}
				writeSpans(t, st, late...)
				if p.NextCursor == "" {
					break
				}
				q.Cursor = p.NextCursor
			}
			canonical, _ := (warehouse.SpanQuery{SortBy: tc.key}).Normalize()
			checkOrder(t, got, fixture, compareBy(canonical.SortBy), tc.desc)
			// A new pagination sees the late spans.
			q.Cursor = ""
			if p := querySpans(t, st, q); p.TotalResults <= 53 {
				t.Errorf("new pagination: total_results %d, want more than 53", p.TotalResults)
			}
		})
	}
	t.Run("writer goroutine during paging", func(t *testing.T) {
		st := openStore(t, open)
		fixture := sortFixture("gw", 60)
		writeSpans(t, st, fixture...)
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				late := sortFixture("gw", 3)
				for j := range late {
					late[j].SpanID = fmt.Sprintf("bg-%d-%d", i, j)
				}
				if err := st.WriteSpans(context.Background(), late); err != nil {
					done <- err
					return
				}
			}
		}()
		got := allPages(t, st, warehouse.SpanQuery{Environments: []string{"gw"}, SortBy: warehouse.SortDuration, Limit: 6})
		close(stop)
		if err := <-done; err != nil {
			t.Fatalf("background writer: %v", err)
		}
		// Spans the writer added before the first page may be in the
		// pagination (once each); the fixture must be there exactly once.
		seen := map[string]bool{}
		var fromFixture []warehouse.Span
		for _, sp := range got {
			if seen[sp.SpanID] {
				t.Errorf("span %s returned twice", sp.SpanID)
			}
			seen[sp.SpanID] = true
			if !strings.HasPrefix(sp.SpanID, "bg-") {
				fromFixture = append(fromFixture, sp)
			}
		}
		checkOrder(t, fromFixture, fixture, compareBy(warehouse.SortDuration), false)
	})
	t.Run("exact multiple of the limit", func(t *testing.T) {
		st := openStore(t, open)
		writeSpans(t, st, sortFixture("m", 6)...)
		q := warehouse.SpanQuery{Environments: []string{"m"}, Limit: 3}
		p1 := querySpans(t, st, q)
		q.Cursor = p1.NextCursor
		p2 := querySpans(t, st, q)
		if p1.NextCursor == "" || len(p2.Spans) != 3 || p2.NextCursor != "" {
			t.Errorf("pages of 3 over 6 spans: cursor1 %q, page2 %d spans, cursor2 %q", p1.NextCursor, len(p2.Spans), p2.NextCursor)
		}
		if slices.ContainsFunc(p2.Spans, func(sp warehouse.Span) bool { return slices.Contains(ids(p1.Spans), sp.SpanID) }) {
			t.Error("page 2 repeats a span of page 1")
		}
	})
}
