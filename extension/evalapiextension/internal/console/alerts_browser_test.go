package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/alerting/alertingtest"
	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestAlertsInBrowser creates a "no spans for 1 minute" rule on the
// console's Alerts page of a real collector (rules evaluated every
// second), sees it fire and its signed notification arrive at a real
// receiver, silences it, sends a test notification, then sends a span and
// sees it resolve without a notification (silenced).
func TestAlertsInBrowser(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	rc := alertingtest.NewReceiver(t, "whsec")
	config := strings.Replace(consoleConfig, "    setup_poll_interval: 200ms\n", "    setup_poll_interval: 200ms\n    alerts:\n      evaluation_interval: 1s\n      webhooks:\n        ops: {url: "+rc.URL+"/hook, secret: whsec}\n", 1)
	c := testcollector.Start(t, config)
	b := newBrowser(t, "http://"+c.API)
	if status := b.login(prodKey); status != 200 {
		t.Fatalf("login = %d", status)
	}
	b.visit("/ui/alerts")
	b.run("fill the rule form",
		chromedp.SetValue(chromedp.ID("alert-name"), "production is silent"),
		chromedp.SetValue(chromedp.ID("alert-kind"), "no_spans"),
		chromedp.SetValue(chromedp.ID("alert-window"), "1"),
		chromedp.Click(chromedp.CSS(`input[name="notify"][value="ops"]`)))
	if status := b.submit("#create-alert"); status != 200 {
		t.Fatalf("create rule: %d", status)
	}
	if notice := b.text("#notice"); notice != "Created the rule production is silent." {
		t.Fatalf("notice %q", notice)
	}
	b.eventually("/ui/alerts", `document.querySelector("#alerts .chip.state").textContent === "firing" && document.querySelector("#alerts .history").textContent.includes("ops: 200")`, 15*time.Second)
	b.screenshot("alerts")
	if got := rc.Payloads(); len(got) != 1 || got[0].Event != "fired" || got[0].Environment != "production" || got[0].RuleName != "production is silent" {
		t.Errorf("notifications %+v, want one fired", got)
	}

	if status := b.submit("#alerts button.silence"); status != 200 || !strings.Contains(b.text("#alerts"), "silenced until") {
		t.Fatalf("silence: %d %q", status, b.text("#alerts"))
	}
	if status := b.submit("#alerts button.test"); status != 200 || b.text("#notice") != "Test sent: ops answered 200." {
		t.Fatalf("test: %d %q", status, b.text("#notice"))
	}
	// Traffic again: the rule resolves, silenced, so nothing is sent.
	if _, err := c.Send(testcollector.HTTP, prodKey, nil, func(tr trace.Tracer) {
		_, sp := tr.Start(t.Context(), "ping")
		sp.End()
	}); err != nil {
		t.Fatal(err)
	}
	b.eventually("/ui/alerts", `document.querySelector("#alerts .chip.state").textContent === "ok"`, 15*time.Second)
	if h := b.text("#alerts .history"); !strings.Contains(h, "resolved") || !strings.Contains(h, "silenced") {
		t.Errorf("history %q", h)
	}
	if got := rc.Payloads(); len(got) != 2 || got[1].Event != "test" {
		t.Errorf("notifications %+v, want fired then test (the resolution was silenced)", got)
	}
	assertNoProblems(t, b)
}
