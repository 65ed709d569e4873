package storetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// bigValue is the size of the one large attribute of each row of
// testPageBytes: a hostile tenant's 1 MiB attribute.
const bigValue = 1 << 20

// spanTextBytes is what a span holds in its attributes and content, the
// part of it a tenant can make large.
func spanTextBytes(sp warehouse.Span) int {
	n := len(sp.Input) + len(sp.Output)
	for _, m := range []map[string]string{sp.ResourceAttributes, sp.SpanAttributes, sp.Prompts, sp.Completions} {
		for k, v := range m {
			n += len(k) + len(v)
		}
	}
	return n
}

// testPageBytes: a page of spans or metric points is bounded by bytes
// (warehouse.DefaultPageBytes) as well as by its limit. 50 spans of 1 MiB
// asked for with limit 50 come in pages of at most the bound and one span,
// each (but the last) with a next cursor and the page marked cut; paging
// through returns every span exactly once, in order, under every access
// path (sorts, a filter); total_results stays 50. Metric points alike.
func testPageBytes(t *testing.T, open Opener) {
	st := openStore(t, open)
	big := strings.Repeat("x", bigValue)
	const n = 50
	var spans []warehouse.Span
	for i := range n {
		sp := span("prod", fmt.Sprintf("big%02d", i), int64(i)*1000)
		sp.SpanName = fmt.Sprintf("name-%02d", (i*7)%n)
		sp.Duration = int64((i * 13) % n)
		sp.SpanAttributes = map[string]string{"llm.prompts.0.content": big, "tenant": "hostile"}
		spans = append(spans, sp)
	}
	for i := 0; i < n; i += 10 {
		writeSpans(t, st, spans[i:i+10]...)
	}
	// A small span in another environment: not in any page.
	writeSpans(t, st, span("other", "small", 0))
	const bound = warehouse.DefaultPageBytes + bigValue + 64<<10
	for _, tc := range []struct {
		name string
		q    warehouse.SpanQuery
	}{
		{"by time", warehouse.SpanQuery{}},
		{"by time, descending", warehouse.SpanQuery{Desc: true}},
		{"by name", warehouse.SpanQuery{SortBy: warehouse.SortSpanName}},
		{"by duration", warehouse.SpanQuery{SortBy: warehouse.SortDuration, Desc: true}},
		{"filtered", warehouse.SpanQuery{Filters: []warehouse.Filter{{Field: "tenant", Operator: warehouse.OpEquals, Value: "hostile"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Environments, q.FromMs, q.Limit = []string{"prod"}, base, n
			seen := map[string]int{}
			var got []warehouse.Span
			pages := 0
			for {
				page := querySpans(t, st, q)
				pages++
				size := 0
				for _, sp := range page.Spans {
					size += spanTextBytes(sp)
					seen[sp.SpanID]++
				}
				got = append(got, page.Spans...)
				if size > bound {
					t.Errorf("page %d holds %d bytes in %d spans, want at most %d", pages, size, len(page.Spans), bound)
				}
				if len(page.Spans) == 0 {
					t.Fatalf("page %d is empty (cursor %q)", pages, q.Cursor)
				}
				if page.TotalResults != n {
					t.Errorf("page %d: total_results %d, want %d", pages, page.TotalResults, n)
				}
				if page.NextCursor == "" {
					if page.CutByBytes {
						t.Errorf("last page %d marked cut by bytes", pages)
					}
					break
				}
				if !page.CutByBytes || len(page.Spans) >= n {
					t.Errorf("page %d: %d spans, cut by bytes %v, want fewer than %d and cut", pages, len(page.Spans), page.CutByBytes, n)
				}
				if pages > n {
					t.Fatal("pagination does not end")
				}
				q.Cursor = page.NextCursor
			}
			if len(seen) != n || len(got) != n {
				t.Errorf("paged through %d spans (%d distinct) in %d pages, want each of %d once", len(got), len(seen), pages, n)
			}
			for id, k := range seen {
				if k != 1 {
					t.Errorf("span %s returned %d times", id, k)
				}
			}
			if pages < n*bigValue/warehouse.DefaultPageBytes {
				t.Errorf("%d pages for %d MiB, want at least %d", pages, n*bigValue>>20, n*bigValue/warehouse.DefaultPageBytes)
			}
			// Every sort value of the fixture is unique: one order.
			want := slices.Clone(spans)
			slices.SortFunc(want, compareBy(tc.q.SortBy))
			if tc.q.Desc {
				slices.Reverse(want)
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Errorf("byte-cut pages gave the spans in order %v, want %v", ids(got), ids(want))
			}
		})
	}

	t.Run("metric points", func(t *testing.T) {
		const m = 12
		var pts []warehouse.MetricPoint
		for i := range m {
			p := point("prod", "hostile.metric", int64(i))
			p.Source, p.SpanID, p.NumericValue = warehouse.SourceOTLP, fmt.Sprintf("p%02d", i), ptr(float64(i))
			p.Attributes = map[string]string{"big": big}
			pts = append(pts, p)
		}
		writePoints(t, st, pts[:m/2]...)
		writePoints(t, st, pts[m/2:]...)
		q := warehouse.MetricQuery{Environments: []string{"prod"}, FromMs: base, MetricName: "hostile.metric", Limit: 50}
		seen := map[string]int{}
		pages := 0
		for {
			page := queryMetrics(t, st, q)
			pages++
			size, count := 0, 0
			for _, g := range page.Groups {
				for _, p := range g.Points {
					size += len(p.Attributes["big"])
					seen[p.SpanID]++
					count++
				}
			}
			if size > bound {
				t.Errorf("page %d holds %d bytes in %d points, want at most %d", pages, size, count, bound)
			}
			if page.TotalResults != m || page.TotalPoints != int64(count) || count == 0 {
				t.Errorf("page %d: total_results %d, total_points %d, %d points; want %d, the points, some", pages, page.TotalResults, page.TotalPoints, count, m)
			}
			if page.NextCursor == "" {
				break
			}
			if !page.CutByBytes {
				t.Errorf("page %d of %d points has a next cursor but is not marked cut by bytes", pages, count)
			}
			if pages > m {
				t.Fatal("pagination does not end")
			}
			c, err := strconv.ParseInt(page.NextCursor, 10, 64)
			if err != nil {
				t.Fatalf("next_cursor %q: %v", page.NextCursor, err)
			}
			q.Cursor = c
		}
		if len(seen) != m || pages < 3 {
			t.Errorf("paged through %d distinct points in %d pages, want %d in 3 or more", len(seen), pages, m)
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("point %s returned %d times", id, k)
			}
		}
	})
}
