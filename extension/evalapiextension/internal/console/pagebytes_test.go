package console

import (
	"context"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestSpansPageCutByBytes: the console's span list over spans of 1 MiB
// (a hostile tenant's prompts) is cut by the page's size bound, says so,
// and its next-page links go through every span exactly once.
func TestSpansPageCutByBytes(t *testing.T) {
	s := newTestServer(t, false, nil)
	big := strings.Repeat("p", 1<<20)
	now := time.Now().Add(-time.Minute).UnixMilli()
	const n = 12
	var spans []warehouse.Span
	for i := range n {
		spans = append(spans, warehouse.Span{Environment: "env-a", Timestamp: now - int64(i)*1000,
			TraceID: fmt.Sprintf("%032x", i+1), SpanID: fmt.Sprintf("%016x", i+1), SpanName: fmt.Sprintf("big-%02d", i),
			SpanAttributes: map[string]string{"llm.prompts.0.content": big}})
	}
	if err := s.store.WriteSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.login(t, c, keyA)
	seen := map[string]int{}
	u := s.URL + "/ui/traces?view=spans&range=1h"
	pages := 0
	for u != "" {
		pages++
		if pages > n {
			t.Fatal("paging does not end")
		}
		a := do(t, c, "GET", u, nil)
		if a.status != 200 {
			t.Fatalf("GET %s = %d", u, a.status)
		}
		for i := range n {
			if strings.Contains(a.body, fmt.Sprintf(">big-%02d<", i)) {
				seen[fmt.Sprintf("big-%02d", i)]++
			}
		}
		cut := strings.Contains(a.body, `id="page-cut"`)
		u = ""
		if i := strings.Index(a.body, `id="next-page"`); i >= 0 {
			start := strings.LastIndex(a.body[:i], `href="`) + len(`href="`)
			u = s.URL + html.UnescapeString(a.body[start:start+strings.Index(a.body[start:], `"`)])
		}
		if cut != (u != "") {
			t.Errorf("page %d: cut notice %v, next page %q; want the notice exactly on the pages with a next one", pages, cut, u)
		}
	}
	if len(seen) != n || pages < 3 {
		t.Errorf("%d distinct spans in %d pages, want %d in several", len(seen), pages, n)
	}
	for name, k := range seen {
		if k != 1 {
			t.Errorf("%s listed %d times", name, k)
		}
	}
}
