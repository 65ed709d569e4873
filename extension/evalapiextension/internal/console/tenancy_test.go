package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// chatSpan is a stored chat span of env in trace traceID.
func chatSpan(env, traceID, spanID, parent string, ts int64, service string) warehouse.Span {
	return warehouse.Span{
		Environment: env, TraceID: traceID, SpanID: spanID, ParentSpanID: parent, Timestamp: ts, Duration: 120,
		SpanName: "openai.chat", SpanKind: "SPAN_KIND_CLIENT", StatusCode: "STATUS_CODE_UNSET", ServiceName: service,
		WorkflowName: "wf", RequestModel: "gpt-4o", TotalTokens: 42,
		SpanAttributes: map[string]string{"gen_ai.operation.name": "chat", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "secret question of " + env,
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "answer of " + env},
		Prompts:     map[string]string{"llm.prompts.0.role": "user", "llm.prompts.0.content": "secret question of " + env},
		Completions: map[string]string{"llm.completions.0.role": "assistant", "llm.completions.0.content": "answer of " + env},
		Evaluations: []warehouse.Evaluation{{Name: "toxicity-detector", ScoreValue: 1, ScoreLabel: "safe", Output: map[string]any{"is_safe": "safe"}, MonitorID: "safety"}},
	}
}

func TestTenancy(t *testing.T) {
	s := newTestServer(t, false, nil)
	now := time.Now().UnixMilli()
	ctx := context.Background()
	if err := s.store.WriteSpans(ctx, []warehouse.Span{
		chatSpan("env-a", "aaaa0000000000000000000000000001", "a1", "", now-1000, "svc-a"),
		chatSpan("env-b", "bbbb0000000000000000000000000001", "b1", "", now-1000, "svc-b"),
	}); err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.login(t, c, keyA)
	list := do(t, c, "GET", s.URL+"/ui/traces", nil)
	if !strings.Contains(list.body, "svc-a") || strings.Contains(list.body, "svc-b") {
		t.Errorf("env-a's list: svc-a %v, svc-b %v", strings.Contains(list.body, "svc-a"), strings.Contains(list.body, "svc-b"))
	}
	spans := do(t, c, "GET", s.URL+"/ui/traces?view=spans&service=svc-b", nil)
	if strings.Contains(spans.body, "bbbb") {
		t.Error("env-a's spans view shows env-b's span")
	}
	own := do(t, c, "GET", s.URL+"/ui/traces/aaaa0000000000000000000000000001", nil)
	if own.status != 200 || !strings.Contains(own.body, "secret question of env-a") {
		t.Errorf("own trace = %d", own.status)
	}
	for _, path := range []string{
		"/ui/traces/bbbb0000000000000000000000000001",
		fmt.Sprintf("/ui/traces/bbbb0000000000000000000000000001?ts=%d&span=b1", now-1000),
		"/ui/evaluators/toxicity-detector?trace_id=bbbb0000000000000000000000000001&span_id=b1",
		"/ui/traces/" + url.PathEscape(strings.Repeat("f", 500)),
	} {
		a := do(t, c, "GET", s.URL+path, nil)
		if a.status != 404 || strings.Contains(a.body, "env-b") && strings.Contains(a.body, "secret question") {
			t.Errorf("%s = %d, want 404 without env-b's data", path, a.status)
		}
	}
}

// TestTracesPaging follows the list's next-page links and sees every
// trace exactly once, with the filters kept.
func TestTracesPaging(t *testing.T) {
	s := newTestServer(t, false, nil)
	now := time.Now().UnixMilli()
	var spans []warehouse.Span
	for i := range 23 {
		trace := fmt.Sprintf("%032x", i+1)
		root := chatSpan("env-a", trace, fmt.Sprintf("r%02d", i), "", now-int64(i)*1000, "svc-a")
		root.SpanName = "workflow"
		child := chatSpan("env-a", trace, fmt.Sprintf("c%02d", i), root.SpanID, now-int64(i)*1000+10, "svc-a")
		if i%5 == 0 {
			child.ServiceName = "other"
			root.ServiceName = "other"
		}
		spans = append(spans, root, child)
	}
	if err := s.store.WriteSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.login(t, c, keyA)
	rowLink := regexp.MustCompile(`class="row-link">`)
	traceLink := regexp.MustCompile(`href="/ui/traces/([0-9a-f]{32})\?`)
	next := regexp.MustCompile(`href="([^"]+)" class="button" id="next-page"`)
	seen := map[string]int{}
	path := "/ui/traces?service=svc-a&limit=4"
	for pages := 0; path != ""; pages++ {
		if pages > 20 {
			t.Fatal("paging does not end")
		}
		a := do(t, c, "GET", s.URL+strings.ReplaceAll(path, "&amp;", "&"), nil)
		if a.status != 200 {
			t.Fatalf("%s = %d", path, a.status)
		}
		if n := len(rowLink.FindAllString(a.body, -1)); n > 4 {
			t.Fatalf("page of %d rows, limit 4", n)
		}
		for _, m := range traceLink.FindAllStringSubmatch(a.body, -1) {
			seen[m[1]]++
		}
		path = ""
		if m := next.FindStringSubmatch(a.body); m != nil {
			path = m[1]
		}
	}
	// A next-page link of env-a's session, opened by env-b's session: the
	// cursor is sealed to env-a (issue #32, item 6).
	first := do(t, c, "GET", s.URL+"/ui/traces?service=svc-a&limit=4", nil)
	m := next.FindStringSubmatch(first.body)
	if m == nil {
		t.Fatal("no next page link")
	}
	link := strings.ReplaceAll(m[1], "&amp;", "&")
	if u, _ := url.Parse(link); strings.Contains(u.Query().Get("cursor"), "eyJ") {
		t.Errorf("the next-page cursor shows the warehouse's JSON cursor: %s", link)
	}
	cb := s.client(t)
	s.login(t, cb, keyB)
	if a := do(t, cb, "GET", s.URL+link, nil); a.status != http.StatusBadRequest || !strings.Contains(a.body, "not issued for this environment") {
		t.Errorf("env-a's cursor in env-b's session: %d, want 400 naming the cursor", a.status)
	}
	// Each trace row links twice (time and name).
	if len(seen) != 18 {
		t.Errorf("%d traces listed, want the 18 of svc-a", len(seen))
	}
	for id, n := range seen {
		if n != 2 {
			t.Errorf("trace %s listed %d times", id, n/2)
		}
	}
}
