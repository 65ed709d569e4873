package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/annotationapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/warehouse"
)

var reviewSpanField = regexp.MustCompile(`name="span_id" value="([^"]+)"`)

// reviewServer is a console with the annotation API, a task with a
// required yes/no tag, and n chat spans of workflow "wf" in env-a whose
// toxicity-detector verdict is fail for the even ones.
func reviewServer(t *testing.T, n int) *testServer {
	t.Helper()
	s := newTestServerAPI(t, false, func(o *Options) { o.Datasets = datasetapi.New(o.Store) }, func(o *httpapi.Options) {
		o.Mounts = append(o.Mounts, annotationapi.New(o.Store), datasetapi.New(o.Store))
	})
	for _, key := range []string{keyA, keyB} {
		req, _ := http.NewRequest("POST", s.URL+"/v2/annotation-tasks", bytes.NewReader([]byte(
			`{"slug":"quality","name":"Answer quality","tags":[{"name":"good","type":"boolean","required":true},{"name":"note","type":"text"}]}`)))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := s.Client().Do(req)
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create task: %v %v", resp, err)
		}
		resp.Body.Close()
	}
	now := time.Now().UnixMilli()
	var spans []warehouse.Span
	for i := range n {
		sp := chatSpan("env-a", fmt.Sprintf("%032x", 0xabc00+i), fmt.Sprintf("%016x", 0x5000+i), "", now-int64(1000*(i+1)), "svc-a")
		verdict, label := "pass", "safe"
		if i%2 == 0 {
			verdict, label = "fail", "unsafe"
		}
		sp.Evaluations = []warehouse.Evaluation{{Name: "toxicity-detector", Verdict: verdict, ScoreLabel: label, Output: map[string]any{"is_safe": label}}}
		spans = append(spans, sp)
	}
	if err := s.store.WriteSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	return s
}

// newQueue creates a queue through the form as c and returns its path.
func newQueue(t *testing.T, s *testServer, c *http.Client, name, filter, sample string) string {
	t.Helper()
	form := do(t, c, "GET", s.URL+"/ui/review", nil)
	a := do(t, c, "POST", s.URL+"/ui/review", url.Values{"csrf": {csrf(t, form.body)}, "name": {name}, "task": {"quality"}, "filter": {filter}, "sample": {sample}})
	if a.status != http.StatusSeeOther || !strings.HasPrefix(a.header.Get("Location"), "/ui/review/") {
		t.Fatalf("create queue: %d %s\n%s", a.status, a.header.Get("Location"), a.body)
	}
	return a.header.Get("Location")
}

// shown returns the span a queue page offers (""when done) and the page.
func shown(t *testing.T, s *testServer, c *http.Client, path string) (string, answer) {
	t.Helper()
	a := do(t, c, "GET", s.URL+path, nil)
	if a.status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, a.status)
	}
	if m := reviewSpanField.FindStringSubmatch(a.body); m != nil {
		return m[1], a
	}
	if !strings.Contains(a.body, `id="queue-done"`) {
		t.Fatalf("the queue page offers no span and does not say it is done:\n%s", a.body)
	}
	return "", a
}

func TestReviewQueue(t *testing.T) {
	s := reviewServer(t, 6)
	alice, bob := s.client(t), s.client(t)
	s.login(t, alice, keyA)
	s.login(t, bob, keyA)
	q := newQueue(t, s, alice, "Toxic this week", "workflow=wf&range=7d", "100")

	post := func(c *http.Client, span string, page answer, v url.Values) answer {
		t.Helper()
		v.Set("csrf", csrf(t, page.body))
		v.Set("span_id", span)
		return do(t, c, "POST", s.URL+q, v)
	}
	// Two reviewers at once get different spans.
	a1, pageA := shown(t, s, alice, q)
	b1, _ := shown(t, s, bob, q)
	if a1 == "" || b1 == "" || a1 == b1 {
		t.Fatalf("alice got %q, bob %q: want two different spans", a1, b1)
	}
	if again, _ := shown(t, s, alice, q); again != a1 {
		t.Errorf("alice's claim moved from %s to %s on reload", a1, again)
	}
	// A label without the required tag is refused and stores nothing.
	r := post(alice, a1, pageA, url.Values{"reviewer": {"alice"}, "action": {"save"}, "tag.note": {"meh"}})
	if loc, _ := url.QueryUnescape(r.header.Get("Location")); r.status != http.StatusSeeOther || !strings.Contains(loc, `Not saved: tags.good: is required by the task "quality"`) {
		t.Errorf("label without the required tag: %d %s", r.status, loc)
	}
	// Label everything: alice says even spans are bad (agreeing with the
	// evaluator), bob says every span is good; alice skips one once.
	labelled := map[string]string{}
	skipped := ""
	for round := 0; round < 20; round++ {
		progress := false
		for _, who := range []struct {
			name string
			c    *http.Client
		}{{"alice", alice}, {"bob", bob}} {
			span, page := shown(t, s, who.c, q)
			if span == "" {
				continue
			}
			progress = true
			if _, dup := labelled[span]; dup {
				t.Fatalf("%s was offered %s, already labelled by %s", who.name, span, labelled[span])
			}
			if who.name == "alice" && skipped == "" {
				skipped = span
				if r := post(who.c, span, page, url.Values{"action": {"skip"}}); r.status != http.StatusSeeOther {
					t.Fatalf("skip: %d", r.status)
				}
				if next, _ := shown(t, s, who.c, q); next == skipped {
					t.Fatal("a skipped span is offered again to the reviewer who skipped it")
				}
				continue
			}
			var idx int
			fmt.Sscanf(span, "%x", &idx)
			good := "true"
			if who.name == "alice" && (idx-0x5000)%2 == 0 {
				good = "false"
			}
			if r := post(who.c, span, page, url.Values{"reviewer": {who.name}, "action": {"save"}, "tag.good": {good}}); r.status != http.StatusSeeOther {
				t.Fatalf("save: %d %s", r.status, r.body)
			}
			labelled[span] = who.name
		}
		if !progress {
			break
		}
	}
	if len(labelled) != 6 {
		t.Errorf("labelled %d spans, want all 6 (the one alice skipped went to bob): %v", len(labelled), labelled)
	}
	if labelled[skipped] != "bob" {
		t.Errorf("the span alice skipped was labelled by %q, want bob", labelled[skipped])
	}
	// A label sent twice (a double click) is stored once.
	_, page := shown(t, s, alice, q)
	r = post(alice, skipped, page, url.Values{"action": {"save"}, "tag.good": {"false"}})
	if loc, _ := url.QueryUnescape(r.header.Get("Location")); !strings.Contains(loc, "was already labelled by bob; nothing changed") {
		t.Errorf("a second label of %s: %s", skipped, loc)
	}
	_, page = shown(t, s, alice, q)
	if !strings.Contains(page.body, `id="progress">6 labelled · 6 spans match`) || !strings.Contains(page.body, "<td>alice</td>") || !strings.Contains(page.body, "<td>bob</td>") {
		t.Errorf("queue page progress or reviewers missing:\n%s", page.body)
	}

	// Agreement: toxicity failed the even spans. Alice found her even
	// spans bad (agree) and odd ones good (agree); bob found all good, so
	// his even spans disagree.
	ag := do(t, alice, "GET", s.URL+q+"/agreement", nil)
	var badFail, badPass, goodFail, goodPass int
	for span, who := range labelled {
		var idx int
		fmt.Sscanf(span, "%x", &idx)
		even := (idx-0x5000)%2 == 0
		switch {
		case who == "alice" && even:
			badFail++
		case even:
			goodFail++
		default:
			goodPass++
		}
	}
	row := fmt.Sprintf(`<td class="num">%d</td><td class="num">%d</td><td class="num">%d</td><td class="num">%d</td>`, badFail, badPass, goodFail, goodPass)
	if ag.status != http.StatusOK || !strings.Contains(ag.body, row) {
		t.Errorf("agreement page lacks %s:\n%s", row, ag.body)
	}
	if goodFail > 0 && !strings.Contains(ag.body, `id="disagreements"`) {
		t.Error("the agreement page lists no disagreement")
	}

	// The labelled spans go to a dataset in one action, once each.
	_, page = shown(t, s, alice, q)
	for i, want := range []string{"Added 6 labelled spans to dataset toxic-replies (6 rows).", "Added 0 labelled spans to dataset toxic-replies (6 rows)."} {
		r := do(t, alice, "POST", s.URL+q+"/dataset", url.Values{"csrf": {csrf(t, page.body)}, "dataset": {"Toxic replies"}})
		if loc, _ := url.QueryUnescape(r.header.Get("Location")); !strings.Contains(loc, want) {
			t.Errorf("add to dataset %d: %d %s, want %q", i, r.status, loc, want)
		}
	}
	req, _ := http.NewRequest("GET", s.URL+"/v2/datasets/toxic-replies/rows?limit=10", nil)
	req.Header.Set("Authorization", "Bearer "+keyA)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var rows struct {
		Rows []struct {
			Values map[string]any `json:"values"`
		} `json:"rows"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&rows)
	resp.Body.Close()
	if len(rows.Rows) != 6 {
		t.Fatalf("the dataset holds %d rows, want 6", len(rows.Rows))
	}
	for _, r := range rows.Rows {
		v := r.Values
		if _, ok := v["good"].(bool); !ok || v["span-id"] == "" || !strings.Contains(fmt.Sprint(v["input"]), "user: secret question of env-a") || !strings.Contains(fmt.Sprint(v["output"]), "assistant: answer of env-a") {
			t.Errorf("a dataset row %v", v)
		}
	}

	// Another environment's session does not see the queue.
	other := s.client(t)
	s.login(t, other, keyB)
	if a := do(t, other, "GET", s.URL+q, nil); a.status != http.StatusNotFound {
		t.Errorf("env-b opens env-a's queue: %d", a.status)
	}
	if a := do(t, other, "GET", s.URL+"/ui/review", nil); strings.Contains(a.body, "Toxic this week") {
		t.Error("env-b's review page lists env-a's queue")
	}
}

func TestReviewQueueFormErrorsAndSample(t *testing.T) {
	s := reviewServer(t, 40)
	c := s.client(t)
	s.login(t, c, keyA)
	form := do(t, c, "GET", s.URL+"/ui/review", nil)
	a := do(t, c, "POST", s.URL+"/ui/review", url.Values{"csrf": {csrf(t, form.body)}, "name": {""}, "task": {"nope"}, "filter": {"verdict=bad"}, "sample": {"0"}})
	if a.status != http.StatusBadRequest {
		t.Fatalf("bad queue form: %d", a.status)
	}
	for _, want := range []string{`id="error-name"`, `id="error-task"`, `id="error-filter"`, `id="error-sample"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if list := do(t, c, "GET", s.URL+"/ui/review", nil); strings.Contains(list.body, `id="queues"`) {
		t.Error("a refused queue was stored")
	}
	// A 25 % sample offers only sampled spans, the same ones to everyone.
	q := newQueue(t, s, c, "Sample", "range=7d", "25")
	seen := map[string]bool{}
	for range 40 {
		span, page := shown(t, s, c, q)
		if span == "" {
			break
		}
		if !sampled(span, 25) || seen[span] {
			t.Fatalf("offered %s (sampled %v, seen %v)", span, sampled(span, 25), seen[span])
		}
		seen[span] = true
		v := url.Values{"csrf": {csrf(t, page.body)}, "span_id": {span}, "action": {"save"}, "tag.good": {"true"}}
		if r := do(t, c, "POST", s.URL+q, v); r.status != http.StatusSeeOther {
			t.Fatalf("save: %d", r.status)
		}
	}
	want := 0
	for i := range 40 {
		if sampled(fmt.Sprintf("%016x", 0x5000+i), 25) {
			want++
		}
	}
	if len(seen) != want || want == 0 || want == 40 {
		t.Errorf("labelled %d spans of a 25 %% sample, want %d of 40", len(seen), want)
	}
}
