package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// TestSpanSearch covers GET /v2/warehouse/spans?q= (full-text search in
// prompts and completions) on both backends: a word, a phrase, case, a
// miss, with a filter, paging across the hits, tenancy and bad input.
func TestSpanSearch(t *testing.T) { onBothBackendsWith(t, nil, testSpanSearch) }

func testSpanSearch(t *testing.T, s *testServer) {
	ctx := context.Background()
	now := time.Now().UnixMilli()
	chat := func(env, span, prompt, completion, workflow string, ts int64) warehouse.Span {
		return warehouse.Span{Environment: env, TraceID: fmt.Sprintf("%032x", ts), SpanID: span, Timestamp: ts, SpanName: "chat",
			WorkflowName: workflow,
			Prompts:      map[string]string{"llm.prompts.0.role": "user", "llm.prompts.0.content": prompt},
			Completions:  map[string]string{"llm.completions.0.role": "assistant", "llm.completions.0.content": completion}}
	}
	// A span whose content is derived from its attributes, as the exporter
	// writes them.
	derived := warehouse.Span{Environment: "env-a", TraceID: fmt.Sprintf("%032x", now-9), SpanID: "d000000000000001", Timestamp: now - 9,
		SpanName: "chat", SpanAttributes: map[string]string{"gen_ai.prompt.0.role": "user",
			"gen_ai.prompt.0.content": "Translate 'Good Morning' to Spanish", "gen_ai.completion.0.content": "Buenos días"}}
	warehouse.DeriveContent(&derived)
	spans := []warehouse.Span{
		derived,
		chat("env-a", "a000000000000001", "I want a REFUND for order 42", "Your refund is on its way.", "support", now-8),
		chat("env-a", "a000000000000002", "Where is my parcel?", "It ships tomorrow; no refund needed.", "shipping", now-7),
		chat("env-a", "a000000000000003", "Good evening", "<script>alert(1)</script>", "support", now-6),
		chat("env-a", "a000000000000004", "morning good", "user assistant", "support", now-5),
		chat("env-b", "b000000000000001", "refund please, good morning", "refund", "support", now-4),
	}
	for i := range 5 { // more refunds, for paging
		spans = append(spans, chat("env-a", fmt.Sprintf("c00000000000000%d", i), "refund batch", "ok", "billing", now-20-int64(i)))
	}
	if err := s.store.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	a := "Bearer " + keyA
	search := func(q string, extra url.Values) (ids []string, total int, next string) {
		t.Helper()
		v := url.Values{"from_timestamp_sec": {fmt.Sprint(now/1000 - 60)}, "q": {q}}
		for k, vals := range extra {
			v[k] = vals
		}
		status, body := s.do(t, http.MethodGet, "/v2/warehouse/spans?"+v.Encode(), a, nil)
		if status != http.StatusOK {
			t.Fatalf("q=%q: %d %v", q, status, body)
		}
		page := body["spans"].(map[string]any)
		for _, sp := range page["data"].([]any) {
			ids = append(ids, sp.(map[string]any)["span_id"].(string))
		}
		slices.Sort(ids)
		return ids, int(page["total_results"].(float64)), page["next_cursor"].(string)
	}
	for _, c := range []struct {
		name, q string
		want    []string
	}{
		{"phrase, derived content, other case", `"good morning"`, []string{"d000000000000001"}},
		{"words in any order", `good morning`, []string{"a000000000000004", "d000000000000001"}},
		{"word, case-insensitive, prompt or completion", "Refund",
			[]string{"a000000000000001", "a000000000000002", "c000000000000000", "c000000000000001", "c000000000000002", "c000000000000003", "c000000000000004"}},
		{"markup is text", "<script>", []string{"a000000000000003"}},
		{"roles are not content", "assistant", []string{"a000000000000004"}},
		{"a miss", "invoice", nil},
		{"a word's start", "PARC", []string{"a000000000000002"}},
		{"not within a word", "arcel", nil},
		{"punctuation between a phrase's words", `"good, morning"`, []string{"d000000000000001"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ids, total, _ := search(c.q, nil)
			if !slices.Equal(ids, c.want) || total != len(c.want) {
				t.Errorf("q=%q: %v (total %d), want %v", c.q, ids, total, c.want)
			}
		})
	}
	t.Run("with a filter", func(t *testing.T) {
		ids, total, _ := search("refund", url.Values{"workflow": {"shipping"}})
		if !slices.Equal(ids, []string{"a000000000000002"}) || total != 1 {
			t.Errorf("refund in workflow shipping: %v (total %d)", ids, total)
		}
	})
	t.Run("paging across the hits", func(t *testing.T) {
		var all []string
		cursor := ""
		for pages := 0; pages < 10; pages++ {
			extra := url.Values{"limit": {"3"}, "sort_by": {"timestamp"}, "sort_order": {"desc"}}
			if cursor != "" {
				extra.Set("cursor", cursor)
			}
			ids, total, next := search("refund", extra)
			if total != 7 {
				t.Errorf("page %d: total %d, want 7", pages, total)
			}
			all = append(all, ids...)
			if cursor = next; cursor == "" {
				break
			}
		}
		slices.Sort(all)
		if len(all) != 7 || slices.Compact(slices.Clone(all)) == nil || len(slices.Compact(slices.Clone(all))) != 7 {
			t.Errorf("paged hits = %v, want 7 distinct", all)
		}
		// A cursor of one search does not continue another.
		_, _, next := search("refund", url.Values{"limit": {"3"}})
		v := url.Values{"from_timestamp_sec": {fmt.Sprint(now/1000 - 60)}, "q": {"order"}, "limit": {"3"}, "cursor": {next}}
		if status, body := s.do(t, http.MethodGet, "/v2/warehouse/spans?"+v.Encode(), a, nil); status != http.StatusBadRequest ||
			!strings.Contains(fmt.Sprint(body["error"]), "cursor") {
			t.Errorf("a cursor of q=refund with q=order: %d %v", status, body)
		}
	})
	t.Run("tenant isolation", func(t *testing.T) {
		// env-b's span holds "refund please, good morning": never env-a's.
		ids, _, _ := search(`"refund please"`, nil)
		if len(ids) != 0 {
			t.Errorf("env-a sees %v for env-b's text", ids)
		}
		v := url.Values{"from_timestamp_sec": {fmt.Sprint(now/1000 - 60)}, "q": {`"refund please"`}}
		status, body := s.do(t, http.MethodGet, "/v2/warehouse/spans?"+v.Encode(), "Bearer "+keyB, nil)
		if status != http.StatusOK || body["spans"].(map[string]any)["total_results"].(float64) != 1 {
			t.Errorf("env-b's own search: %d %v", status, body)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for q, msg := range map[string]string{
			strings.Repeat("refund ", 40): "at most 200",
			"a":                           `"a" is shorter than 2 characters`,
			"<>":                          `"<>" has no letter or digit`,
			`""`:                          "no word to search for",
			"one two three four five six seven eight nine": "at most 8",
		} {
			v := url.Values{"from_timestamp_sec": {fmt.Sprint(now/1000 - 60)}, "q": {q}}
			status, body := s.do(t, http.MethodGet, "/v2/warehouse/spans?"+v.Encode(), a, nil)
			if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(body["error"]), "q: ") ||
				!strings.Contains(fmt.Sprint(body["error"]), msg) {
				t.Errorf("q=%.20q: %d %v, want 400 naming q with %q", q, status, body, msg)
			}
		}
	})
}

// TestSpanSearchIndexOff: with SQLite's full-text index off
// (warehouse.search_index: false), GET /v2/warehouse/spans?q= is a 400
// naming the setting, the same list without q still answers, and nothing
// the search asked about changed.
func TestSpanSearchIndexOff(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "w.db"), sqlite.Options{NoSearchIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	s := newTestServerOn(t, store, nil)
	now := time.Now().UnixMilli()
	if err := store.WriteSpans(ctx, []warehouse.Span{{Environment: "env-a", TraceID: fmt.Sprintf("%032x", now), SpanID: "a000000000000001",
		Timestamp: now, SpanName: "chat", Input: "I want a refund", Output: "On its way"}}); err != nil {
		t.Fatal(err)
	}
	from := fmt.Sprint(now/1000 - 60)
	status, body := s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec="+from+"&q=refund", "Bearer "+keyA, nil)
	if msg, _ := body["error"].(string); status != http.StatusBadRequest || !strings.Contains(msg, "q") || !strings.Contains(msg, "warehouse.search_index is false") {
		t.Errorf("q with the index off: %d %v; want 400 naming q and the setting", status, body)
	}
	status, body = s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec="+from, "Bearer "+keyA, nil)
	if status != http.StatusOK || body["spans"].(map[string]any)["total_results"].(float64) != 1 {
		t.Errorf("the list without q: %d %v; want the one span", status, body)
	}
}
