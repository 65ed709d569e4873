package console

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestTraceShowsFeedback: annotations about a trace (by its id, a span id
// or an association property value of its spans), sent through the API
// before or after the spans arrive, show on its page, escaped; another
// environment's annotation of the same value does not.
func TestTraceShowsFeedback(t *testing.T) {
	s := newTestServerAPI(t, false, nil, func(o *httpapi.Options) { o.Mounts = append(o.Mounts, annotationapi.New(o.Store)) })
	post := func(key, path, body string) {
		t.Helper()
		req, _ := http.NewRequest("POST", s.URL+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	task := `{"slug":"user-feedback","name":"Feedback","tags":[{"name":"thumbs","type":"boolean"},{"name":"comment","type":"text"}]}`
	post(keyA, "/v2/annotation-tasks", task)
	post(keyB, "/v2/annotation-tasks", task)
	// Feedback on the conversation before its spans arrive.
	post(keyA, "/v2/annotation-tasks/user-feedback/annotations",
		`{"entity_instance_id":"conv-7","tags":{"thumbs":false,"comment":"<script>alert(1)</script> wrong city"},"source":"sdk","flow":"user_feedback","actor":{"type":"service","id":"shop-app"}}`)
	post(keyB, "/v2/annotation-tasks/user-feedback/annotations", `{"entity_instance_id":"conv-7","tags":{"comment":"env-b's own feedback"}}`)

	const traceID = "aaaa0000000000000000000000000007"
	now := time.Now().UnixMilli()
	root := chatSpan("env-a", traceID, "a1", "", now-1000, "svc-a")
	root.SpanAttributes = map[string]string{"traceloop.association.properties.conversation_id": "conv-7"}
	child := chatSpan("env-a", traceID, "a2", "a1", now-900, "svc-a")
	other := chatSpan("env-a", "aaaa0000000000000000000000000008", "b1", "", now-800, "svc-other")
	if err := s.store.WriteSpans(context.Background(), []warehouse.Span{root, child, other}); err != nil {
		t.Fatal(err)
	}
	post(keyA, "/v2/annotation-tasks/user-feedback/annotations", `{"entity_instance_id":"`+traceID+`","tags":{"thumbs":true}}`)

	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/traces/"+traceID, nil)
	if page.status != 200 {
		t.Fatalf("trace page: %d", page.status)
	}
	i := strings.Index(page.body, `id="feedback"`)
	if i < 0 {
		t.Fatal("the trace page has no feedback section")
	}
	section := page.body[i : strings.Index(page.body[i:], "</section>")+i]
	for _, want := range []string{
		`<h2>Feedback <span class="hint">2</span></h2>`,
		`<code>conv-7</code> <span class="hint">conversation_id</span>`,
		`&lt;script&gt;alert(1)&lt;/script&gt; wrong city`,
		`service shop-app <span class="hint">user_feedback</span>`,
		`<code>` + traceID + `</code> <span class="hint">trace</span>`,
		`<b>thumbs</b> true`, `<b>thumbs</b> false`,
	} {
		if !strings.Contains(section, want) {
			t.Errorf("feedback section lacks %q:\n%s", want, section)
		}
	}
	if strings.Contains(page.body, "<script>alert(1)") || strings.Contains(page.body, "env-b's own feedback") {
		t.Error("the page shows unescaped feedback text or another environment's feedback")
	}

	// The traces list filtered by feedback: the trace annotated thumbs
	// true (by its id), not the other.
	list := do(t, c, "GET", s.URL+"/ui/traces?range=1h&annotation=user-feedback.thumbs:true", nil)
	// (The filters' value suggestions list every service: look at the rows.)
	rows := list.body[strings.Index(list.body, `id="trace-list"`)+1:]
	if list.status != 200 || !strings.Contains(rows, traceID) || strings.Contains(rows, "svc-other") {
		t.Errorf("traces annotated thumbs:true: %d, has the trace %v, has the other %v", list.status, strings.Contains(rows, traceID), strings.Contains(rows, "svc-other"))
	}
	if !strings.Contains(list.body, `<span class="chip v-none feedback" title="user-feedback: thumbs=true">feedback</span>`) {
		t.Error("the traces list does not mark the trace's feedback")
	}
	if list := do(t, c, "GET", s.URL+"/ui/traces?range=1h&annotation=thumbs", nil); !strings.Contains(list.body, `is not &lt;task&gt;.&lt;tag&gt;:&lt;value&gt;`) {
		t.Error("a malformed feedback filter is not explained")
	}
}

// TestSpanToDataset: the trace page adds a span's conversation to a
// dataset once; a span of another trace or environment is a 404.
func TestSpanToDataset(t *testing.T) {
	s := newTestServerAPI(t, false, func(o *Options) { o.Datasets = datasetapi.New(o.Store) }, nil)
	const traceID = "aaaa0000000000000000000000000009"
	sp := chatSpan("env-a", traceID, "a1", "", time.Now().UnixMilli()-1000, "svc-a")
	if err := s.store.WriteSpans(context.Background(), []warehouse.Span{sp}); err != nil {
		t.Fatal(err)
	}
	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/traces/"+traceID, nil)
	if !strings.Contains(page.body, `id="span-to-dataset"`) {
		t.Fatal("the trace page has no add-to-dataset form")
	}
	for i, want := range []string{"Added this span to dataset regressions (1 rows).", "This span is in dataset regressions already."} {
		a := do(t, c, "POST", s.URL+"/ui/traces/"+traceID+"/dataset", url.Values{"csrf": {csrf(t, page.body)}, "span_id": {"a1"}, "dataset": {"Regressions"}})
		loc, _ := url.QueryUnescape(a.header.Get("Location"))
		if a.status != http.StatusSeeOther || !strings.Contains(loc, want) {
			t.Errorf("add %d: %d %s, want %q", i, a.status, loc, want)
		}
	}
	if a := do(t, c, "POST", s.URL+"/ui/traces/ffff0000000000000000000000000009/dataset", url.Values{"csrf": {csrf(t, page.body)}, "span_id": {"a1"}, "dataset": {"Regressions"}}); a.status != http.StatusNotFound {
		t.Errorf("a span under another trace id: %d", a.status)
	}
	other := s.client(t)
	s.login(t, other, keyB)
	form := do(t, other, "GET", s.URL+"/ui/traces", nil)
	if a := do(t, other, "POST", s.URL+"/ui/traces/"+traceID+"/dataset", url.Values{"csrf": {csrf(t, form.body)}, "span_id": {"a1"}, "dataset": {"Regressions"}}); a.status != http.StatusNotFound {
		t.Errorf("another environment adds env-a's span: %d", a.status)
	}
}
