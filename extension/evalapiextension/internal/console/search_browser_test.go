package console_test

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestSearchInBrowser searches the traces list of a real collector in
// headless Chromium: a word and a phrase through the search box, hits
// marked in the previews and on the trace page, a span whose text is
// markup shown as text, another environment's matching trace never shown,
// a refused search, paging back and forth, and the spans view sorted by
// tokens.
func TestSearchInBrowser(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	c := testcollector.Start(t, consoleConfig)
	chat := func(prompt, completion string) exchange {
		return exchange{Service: "shop", Workflow: "support", SpanName: "openai.chat", Model: "gpt-4o", Prompt: prompt, Completion: completion}
	}
	sendTrace(t, c, prodKey, chat("I want a REFUND for order 1042, it arrived broken.", "I am sorry. Your refund is on its way."))
	sendTrace(t, c, prodKey, chat("Translate 'Good morning' to Spanish", "Buenos días"))
	sendTrace(t, c, prodKey, chat("<script>alert('x')</script> can I get a refund?", "<b>Yes</b>, within 30 days."))
	for i := range 3 {
		turns := []exchange{chat(fmt.Sprintf("What is the weather in city %d?", i), "Sunny.")}
		for range i {
			turns = append(turns, chat("And tomorrow?", "Rain."))
		}
		sendTrace(t, c, prodKey, turns...)
	}
	staging := chat("staging refund request", "refund done")
	staging.Service = "staging-shop"
	sendTrace(t, c, stagingKey, staging)

	b := newBrowser(t, "http://"+c.API)
	if status := b.login(prodKey); status != 200 {
		t.Fatalf("login = %d", status)
	}
	b.eventually("/ui/traces", `document.querySelectorAll("#trace-list tr.row").length === 6`, 20*time.Second)

	t.Run("a word", func(t *testing.T) {
		b := b.on(t)
		b.run("type a search", chromedp.SetValue(chromedp.ID("q"), "refund"))
		if status := b.submit("#apply"); status != 200 {
			t.Fatalf("search: %d", status)
		}
		if loc := b.location(); !strings.Contains(loc, "q=refund") {
			t.Errorf("location %s lacks q=refund", loc)
		}
		if n := eval[int](b, `document.querySelectorAll("#trace-list tr.row").length`); n != 2 {
			t.Fatalf("%d rows for refund, want 2 (staging's never):\n%s", n, b.text("#trace-list"))
		}
		hits := eval[[]string](b, `[...document.querySelectorAll("#trace-list mark.hit")].map(m => m.textContent)`)
		if len(hits) < 3 {
			t.Errorf("marked hits %q, want refund in both prompts and a completion", hits)
		}
		for _, h := range hits {
			if !strings.EqualFold(h, "refund") {
				t.Errorf("marked %q, want only refund (any case)", h)
			}
		}
		// The span whose prompt is markup shows it as text.
		if n := eval[int](b, `document.querySelectorAll("#trace-list script, #trace-list b").length`); n != 0 {
			t.Errorf("%d elements made of span text in the list", n)
		}
		if txt := b.text("#trace-list"); !strings.Contains(txt, "<script>alert('x')</script> can I get a refund?") || !strings.Contains(txt, "<b>Yes</b>") {
			t.Errorf("previews do not show the markup as text:\n%s", txt)
		}
		b.screenshot("search")
		// The trace page marks the hits of the search it came from.
		link := eval[string](b, `document.querySelector("#trace-list tr.row a.row-link").getAttribute("href")`)
		if !strings.Contains(link, "q=refund") {
			t.Errorf("trace link %s does not carry the search", link)
		}
		b.visit(link)
		if note := b.text("#search-note"); !strings.Contains(note, "refund") {
			t.Errorf("search note %q", note)
		}
		if hits := eval[[]string](b, `[...document.querySelectorAll("#chat mark.hit")].map(m => m.textContent.toLowerCase())`); len(hits) == 0 || hits[0] != "refund" {
			t.Errorf("trace page hits %q", hits)
		}
		b.screenshot("search-trace")
		if n := eval[int](b, `document.querySelectorAll("#chat script, #chat b").length`); n != 0 {
			t.Errorf("%d elements made of span text on the trace page", n)
		}
	})
	t.Run("a phrase", func(t *testing.T) {
		b := b.on(t)
		b.visit("/ui/traces?q=" + url.QueryEscape(`"good morning"`))
		if n := eval[int](b, `document.querySelectorAll("#trace-list tr.row").length`); n != 1 {
			t.Fatalf("%d rows for the phrase, want 1", n)
		}
		if h := eval[string](b, `document.querySelector("#trace-list mark.hit").textContent`); h != "Good morning" {
			t.Errorf("hit %q, want the text as written", h)
		}
		b.visit("/ui/traces?q=" + url.QueryEscape(`"morning good"`))
		if n := eval[int](b, `document.querySelectorAll("#trace-list tr.row").length`); n != 0 {
			t.Errorf("%d rows for a phrase that is not in any text", n)
		}
	})
	t.Run("a refused search", func(t *testing.T) {
		b := b.on(t)
		if status := b.visit("/ui/traces?q=a"); status != 400 {
			t.Errorf("q=a: %d, want 400", status)
		}
		if msg := b.text("#q-error"); !strings.Contains(msg, "shorter than 2 characters") {
			t.Errorf("message %q", msg)
		}
	})
	t.Run("previous page", func(t *testing.T) {
		b := b.on(t)
		b.visit("/ui/traces?limit=2")
		first := eval[[]string](b, `[...document.querySelectorAll("#trace-list a.row-link")].map(a => a.getAttribute("href"))`)
		if eval[bool](b, `!!document.querySelector("#prev-page")`) {
			t.Error("the first page has a previous-page link")
		}
		b.run("next", chromedp.Click(chromedp.ID("next-page")), chromedp.WaitVisible(chromedp.ID("prev-page")))
		second := eval[[]string](b, `[...document.querySelectorAll("#trace-list a.row-link")].map(a => a.getAttribute("href"))`)
		b.run("next again", chromedp.Click(chromedp.ID("next-page")), chromedp.WaitVisible(chromedp.ID("prev-page")))
		b.run("back", chromedp.Click(chromedp.ID("prev-page")), chromedp.WaitVisible(chromedp.ID("trace-list")))
		if got := eval[[]string](b, `[...document.querySelectorAll("#trace-list a.row-link")].map(a => a.getAttribute("href"))`); strings.Join(got, " ") != strings.Join(second, " ") {
			t.Errorf("back from page 3: %q, want page 2 %q", got, second)
		}
		b.run("back to the first", chromedp.Click(chromedp.ID("prev-page")), chromedp.WaitVisible(chromedp.ID("trace-list")))
		if got := eval[[]string](b, `[...document.querySelectorAll("#trace-list a.row-link")].map(a => a.getAttribute("href"))`); strings.Join(got, " ") != strings.Join(first, " ") || len(first) != 2 {
			t.Errorf("back from page 2: %q, want page 1 %q", got, first)
		}
		if eval[bool](b, `!!document.querySelector("#prev-page")`) {
			t.Error("back on the first page, a previous-page link remains")
		}
	})
	t.Run("sort by tokens", func(t *testing.T) {
		b := b.on(t)
		b.visit("/ui/traces?view=spans&q=" + url.QueryEscape("weather tomorrow"))
		b.visit("/ui/traces?view=spans")
		tokens := sortedColumn(t, b, "total_tokens", "td:nth-child(6)")
		if len(tokens) == 0 || tokens[0] == "" {
			t.Errorf("tokens column %q", tokens)
		}
	})
	t.Run("traces sorted by cost, counted", func(t *testing.T) {
		b := b.on(t)
		b.visit("/ui/traces")
		costs := sortedColumn(t, b, "cost", "td.cost")
		if len(costs) < 2 || costs[0] == "" {
			t.Errorf("cost column %q", costs)
		}
		matched := b.text("#matched")
		if n := len(costs); matched != fmt.Sprintf("%d traces", n) {
			t.Errorf("count %q, want %d traces (every trace of the range is on the page)", matched, n)
		}
		if got := b.text("#trace-list th a.active"); !strings.HasPrefix(got, "Cost") {
			t.Errorf("the active heading is %q, want Cost", got)
		}
		b.screenshot("traces-by-cost")
		// Duration's heading sorts by latency; the spans view keeps it as
		// its duration.
		b.run("latency", chromedp.Click(chromedp.CSS(`#trace-list th a[href*="sort=latency"]`)), chromedp.WaitVisible(chromedp.ID("trace-list")))
		if loc := b.location(); !strings.Contains(loc, "sort=latency") {
			t.Errorf("after the Duration heading: %s", loc)
		}
		if href := eval[string](b, `document.querySelector("#view-spans").getAttribute("href")`); !strings.Contains(href, "sort=duration_ms") {
			t.Errorf("the spans view link %q does not keep the latency sort", href)
		}
	})
	t.Run("contains filters with suggestions", func(t *testing.T) {
		b := b.on(t)
		b.visit("/ui/traces")
		if got := eval[[]string](b, `[...document.querySelectorAll("#service-values option")].map(o => o.value)`); strings.Join(got, ",") != "shop" {
			t.Errorf("service suggestions %q, want shop only (never staging's)", got)
		}
		if got := eval[[]string](b, `[...document.querySelectorAll("#model-values option")].map(o => o.value)`); strings.Join(got, ",") != "gpt-4o,gpt-4o-2024-08-06" {
			t.Errorf("model suggestions %q", got)
		}
		b.run("type", chromedp.SetValue(chromedp.ID("service"), "SHO"), chromedp.SetValue(chromedp.ID("model"), "GPT-4"))
		if status := b.submit("#apply"); status != 200 {
			t.Fatalf("filter: %d", status)
		}
		if n := eval[int](b, `document.querySelectorAll("#trace-list tr.row").length`); n != 6 {
			t.Errorf("%d rows for service contains SHO and model contains GPT-4, want 6", n)
		}
		b.visit("/ui/traces?workflow=SUPP&q=weather")
		if n := eval[int](b, `document.querySelectorAll("#trace-list tr.row").length`); n != 3 {
			t.Errorf("%d rows for workflow contains SUPP and q=weather, want 3", n)
		}
		b.visit("/ui/traces?service=nothing-like-it")
		if n := eval[int](b, `document.querySelectorAll("#trace-list tr.row").length`); n != 0 {
			t.Errorf("%d rows for a service nothing contains", n)
		}
	})
	assertNoProblems(t, b)
}

// sortedColumn sorts the list on the page by key, descending, through
// the filter form, and returns the cells of column (a selector within a
// row), failing the test unless their numbers (an empty cell is 0; "$"
// and "≥ " are left out) descend.
func sortedColumn(t *testing.T, b *browser, key, column string) []string {
	t.Helper()
	b.run("sort", chromedp.SetValue(chromedp.ID("sort"), key), chromedp.SetValue(chromedp.ID("order"), "desc"))
	if status := b.submit("#apply"); status != 200 {
		t.Fatalf("sort by %s: %d", key, status)
	}
	if loc := b.location(); !strings.Contains(loc, "sort="+key) {
		t.Errorf("location %s", loc)
	}
	cells := eval[[]string](b, `[...document.querySelectorAll("#trace-list tr.row `+column+`")].map(td => td.textContent.trim())`)
	prev := math.Inf(1)
	for _, c := range cells {
		v := 0.0
		if c != "" {
			if _, err := fmt.Sscanf(strings.TrimPrefix(strings.TrimPrefix(c, "≥ "), "$"), "%g", &v); err != nil {
				t.Errorf("%s cell %q: %v", key, c, err)
			}
		}
		if v > prev {
			t.Errorf("%s not descending: %q", key, cells)
			break
		}
		prev = v
	}
	return cells
}
