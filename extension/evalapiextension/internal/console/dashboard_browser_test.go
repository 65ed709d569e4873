package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestDashboardInBrowser sends chat traces of two workflows and two models
// (one failing) to a real collector and reads the Dashboard page: spans,
// errors, latency percentiles, tokens and cost over time from the span
// stats, the tables per workflow, model and day, and the model filter.
func TestDashboardInBrowser(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	c := testcollector.Start(t, consoleConfig)
	for i := range 6 {
		sendTrace(t, c, prodKey,
			exchange{Service: "shop", Workflow: "checkout", SpanName: "openai.chat", Model: "gpt-4o", Prompt: "Where is my order?", Completion: "On its way."},
			exchange{Service: "shop", Workflow: "checkout", SpanName: "openai.chat", Model: "gpt-4o-mini", Prompt: "Thanks", Completion: "You are welcome."})
		if i%3 == 0 {
			sendTrace(t, c, prodKey, exchange{Service: "shop", Workflow: "support", SpanName: "openai.chat", Model: "gpt-4o-mini",
				Prompt: "Refund please", Completion: "", Err: "rate limited"})
		}
	}
	b := newBrowser(t, "http://"+c.API)
	if status := b.login(prodKey); status != 200 {
		t.Fatalf("login = %d", status)
	}
	// 6×(root, retrieval, 2 chats) + 2×(root, retrieval, 1 chat) = 30 spans.
	b.eventually("/ui/dashboard?range=1h", `document.querySelector("#dash-total").textContent.startsWith("30 spans · 2 errors")`, 15*time.Second)
	if nav := b.text("nav .active"); nav != "Dashboard" {
		t.Errorf("active nav %q", nav)
	}
	for _, sel := range []string{"#chart-spans svg rect", "#chart-latency svg polyline.p99", "#chart-latency circle", "#chart-tokens svg rect.tok-out", "#chart-cost circle"} {
		if n := eval[int](b, `document.querySelectorAll("`+sel+`").length`); n == 0 {
			t.Errorf("no %s", sel)
		}
	}
	models := b.text("#dash-models")
	// gpt-4o: 6 spans of 20 in, 30 out at $2.50/$10 per 1M: $0.0021;
	// gpt-4o-mini: 8 spans (20 or 21 in, 30 or 31 out) at $0.15/$0.60.
	for _, want := range []string{"gpt-4o-2024-08-06", "gpt-4o-mini-2024-08-06", "$0.0021"} {
		if !strings.Contains(models, want) {
			t.Errorf("the model table lacks %q: %s", want, models)
		}
	}
	if flows := b.text("#dash-workflows"); !strings.Contains(flows, "checkout") || !strings.Contains(flows, "support") {
		t.Errorf("the workflow table: %s", flows)
	}
	if days := b.text("#dash-days"); !strings.Contains(days, time.Now().UTC().Format("2006-01-02")) {
		t.Errorf("the day table: %s", days)
	}
	b.screenshot("dashboard")

	// The model filter.
	b.run("filter gpt-4o", chromedp.SetValue(chromedp.ID("dash-model"), "gpt-4o-2024-08-06"))
	if status := b.submit("#dash-filters button[type=submit]"); status != 200 {
		t.Fatalf("filter: %d", status)
	}
	if total := b.text("#dash-total"); !strings.HasPrefix(total, "6 spans · 0 errors") || !strings.Contains(total, "$0.0021") {
		t.Errorf("filtered to gpt-4o: %q", total)
	}
	assertNoProblems(t, b)
}
