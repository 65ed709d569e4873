package console_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestReviewInBrowser labels a queue's spans with the keyboard alone in
// headless chromium against a real collector, then reads the agreement of
// the static monitor's toxicity-detector with the labels.
func TestReviewInBrowser(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	c := testcollector.Start(t, consoleConfig)
	b := newBrowser(t, "http://"+c.API)
	if r := c.Call("POST", "/v2/annotation-tasks", prodKey, `{"slug":"quality","name":"Answer quality",
		"tags":[{"name":"good","type":"boolean","required":true,"description":"a good answer"},{"name":"note","type":"text"}]}`); r.Status != http.StatusCreated {
		t.Fatalf("create task: %d %s", r.Status, r.Body)
	}
	replies := []string{
		"You are a worthless idiot and I will kill you.",
		"Why did the pirate go to school? To improve his arrrticulation.",
		"Shut up, you stupid moron, nobody wants your jokes.",
		"A pirate's favourite letter? You'd think R, but it's the C.",
	}
	for _, reply := range replies {
		sendTrace(t, c, prodKey, exchange{Service: "joke-app", Workflow: "pirate_joke_generator", SpanName: "openai.chat", Model: "gpt-4o",
			Prompt: "Tell me a joke about pirates", Completion: reply})
	}
	if status := b.login(prodKey); status != 200 {
		t.Fatalf("login = %d", status)
	}
	// Wait for the static monitor's verdicts on the four chat spans.
	b.eventually("/ui/traces?view=spans&span=openai.chat", `document.querySelectorAll("#trace-list .chip").length >= 8`, 20*time.Second)

	b.visit("/ui/review")
	b.run("fill the queue form",
		chromedp.SetValue(chromedp.ID("queue-name"), "Pirate jokes"),
		chromedp.SetValue(chromedp.ID("queue-filter"), "span=openai.chat&range=1h"))
	if status := b.submit("#create-queue"); status != 200 {
		t.Fatalf("create queue: %d", status)
	}
	if !strings.HasPrefix(b.location(), "/ui/review/") {
		t.Fatalf("after creating the queue at %s", b.location())
	}
	queue := b.location()

	// Skip the first span with "s", then label the rest with 1/0 and
	// Enter: a reply with an insult is bad.
	first := b.text("#chat")
	b.run("press s", chromedp.KeyEvent("s"))
	nextSpan(b, first)
	if notice := b.text("#notice"); !strings.HasPrefix(notice, "Skipped") {
		t.Fatalf("notice after s: %q", notice)
	}
	if b.text("#chat") == first {
		t.Fatal("after s the same span is offered again")
	}
	bad := map[bool]int{}
	for range len(replies) {
		if eval[bool](b, `document.getElementById("queue-done") !== null`) {
			break
		}
		if bad[true]+bad[false] == 1 {
			b.screenshot("review")
		}
		chat := b.text("#chat")
		insult := strings.Contains(chat, "idiot") || strings.Contains(chat, "moron")
		key := "1"
		if insult {
			key = "0"
		}
		b.run("press "+key, chromedp.KeyEvent(key))
		if checked := eval[string](b, `document.querySelector('.tag-field[data-tag="good"] input:checked').value`); checked != map[bool]string{true: "false", false: "true"}[insult] {
			t.Fatalf("key %s checked %q", key, checked)
		}
		b.run("press Enter", chromedp.KeyEvent("\r"))
		nextSpan(b, chat)
		if notice := b.text("#notice"); !strings.HasPrefix(notice, "Saved the labels of") {
			t.Fatalf("notice %q", notice)
		}
		bad[insult]++
	}
	if bad[true]+bad[false] != len(replies)-1 {
		t.Fatalf("labelled %v, want %d spans (one skipped)", bad, len(replies)-1)
	}
	if progress := b.text("#progress"); !strings.HasPrefix(progress, "3 labelled · 4 spans match") {
		t.Errorf("progress %q", progress)
	}

	b.visit(queue + "/agreement")
	row := eval[string](b, `[...document.querySelectorAll('#agreement tr[data-evaluator="toxicity-detector"] td.num')].map(td => td.textContent).join(" ")`)
	// toxicity-detector fails the insults, which people found bad.
	want := []string{"0", "0", "0", "0", "100.0%", "", ""}
	if bad[true] > 0 {
		want[0] = strconv.Itoa(bad[true])
	}
	want[3] = strconv.Itoa(bad[false])
	if !strings.HasPrefix(row, strings.Join(want[:5], " ")) {
		t.Errorf("toxicity-detector's agreement row %q, want it to start %q", row, strings.Join(want[:5], " "))
	}
	b.screenshot("agreement")
	assertNoProblems(t, b)
}

// nextSpan waits until the review page that was showing the chat text
// before has been replaced by the next one (a new span, or the end). A
// page in the middle of loading is not an error, only not there yet.
func nextSpan(b *browser, before string) {
	b.t.Helper()
	const state = `(() => { if (document.readyState !== "complete" || !document.getElementById("notice")) return "";
		if (document.getElementById("queue-done")) return "done";
		const chat = document.getElementById("chat"); return chat ? chat.textContent : ""; })()`
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		now, err := chromedp.Run(ctx, chromedp.Evaluate[string](state))
		cancel()
		if err == nil && now != "" && now != before {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatal("the review page did not move on to the next span")
}
