package console_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestConsoleInBrowser drives the console in headless chromium against a
// real collector fed over OTLP: log in (a wrong key first), find the spans
// in the list, open the trace, see the evaluation chips, create a monitor
// setup and watch its status change, run an evaluator in the playground,
// and log out.
func TestConsoleInBrowser(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	c := testcollector.Start(t, consoleConfig)
	browser := newBrowser(t, "http://"+c.API)

	toxic := sendTrace(t, c, prodKey, exchange{
		Service: "joke-app", Workflow: "pirate_joke_generator", SpanName: "openai.chat", Model: "gpt-4o",
		Prompt: "Tell me a joke about pirates", Completion: "You are a worthless idiot and I will kill you.",
	})
	clean := sendTrace(t, c, prodKey, exchange{
		Service: "joke-app", Workflow: "pirate_joke_generator", SpanName: "openai.chat", Model: "gpt-4o",
		Prompt: "Tell me a joke about pirates", Completion: "Why did the pirate go to school? To improve his arrrticulation.",
	})
	sendTrace(t, c, prodKey, exchange{
		Service: "support-bot", Workflow: "ticket_triage", SpanName: "anthropic.chat", Model: "claude-3-5-sonnet",
		Prompt: "My card was charged twice, please refund. Write to jane.doe@example.com.", Completion: "I am sorry about that; a refund is on its way.",
	})
	staging := sendTrace(t, c, stagingKey, exchange{
		Service: "staging-app", Workflow: "staging_flow", SpanName: "openai.chat", Model: "gpt-4o-mini",
		Prompt: "hello", Completion: "hi there",
	})

	t.Run("root redirects to login", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/")
		if loc := b.location(); !strings.HasPrefix(loc, "/ui/login") {
			t.Fatalf("GET / ended at %s, want the login page", loc)
		}
	})

	t.Run("wrong key is refused", func(t *testing.T) {
		b := browser.on(t)
		if status := b.login("not-a-valid-key"); status != 401 {
			t.Fatalf("login with a wrong key = %d, want 401", status)
		}
		if msg := b.text("#login-error"); !strings.Contains(msg, "Invalid API key") {
			t.Errorf("error message = %q", msg)
		}
		b.screenshot("login")
		if _, ok := b.cookies()["evalcol_session"]; ok {
			t.Fatal("a wrong key got a session cookie")
		}
	})

	t.Run("login", func(t *testing.T) {
		b := browser.on(t)
		if status := b.login(prodKey); status != 200 {
			t.Fatalf("login = %d", status)
		}
		if loc := b.location(); !strings.HasPrefix(loc, "/ui/traces") {
			t.Fatalf("after login at %s", loc)
		}
		ck := b.cookies()["evalcol_session"]
		if ck == nil || !ck.HTTPOnly || ck.SameSite != "Strict" || ck.Path != "/ui/" {
			t.Fatalf("session cookie = %+v, want HttpOnly SameSite=Strict on /ui/", ck)
		}
		if env, org := b.text("#tenant-env"), b.text("#tenant-org"); env != "production" || org != "acme" {
			t.Errorf("header shows environment %q organization %q", env, org)
		}
	})

	t.Run("traces list", func(t *testing.T) {
		b := browser.on(t)
		// The static monitor's results arrive with the spans; wait for all
		// three production traces and their chips.
		b.eventually("/ui/traces", `document.querySelectorAll("#trace-list tbody tr.row").length === 3 && document.querySelectorAll("#trace-list .chip").length >= 6`, 20*time.Second)
		body := b.text("#trace-list tbody")
		for _, want := range []string{"pirate_joke_generator", "ticket_triage", "joke-app", "support-bot", "gpt-4o", "claude-3-5-sonnet", "pirate_joke_generator.workflow"} {
			if !strings.Contains(body, want) {
				t.Errorf("list lacks %q:\n%s", want, body)
			}
		}
		if strings.Contains(body, "staging") {
			t.Errorf("the production session lists a staging trace:\n%s", body)
		}
		fails := eval[int](b, `document.querySelectorAll('#trace-list .chip.v-fail').length`)
		if fails != 2 { // toxicity of the toxic reply, pii of the support prompt
			t.Errorf("%d failing chips, want 2", fails)
		}
		title := eval[string](b, `[...document.querySelectorAll('#trace-list .chip.v-fail')].map(e => e.title).join(" | ")`)
		if !strings.Contains(title, "toxicity-detector: fail") || !strings.Contains(title, "score 0 (unsafe)") {
			t.Errorf("failing chip titles = %q", title)
		}
		b.screenshot("traces")
	})

	t.Run("spans view", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/traces?view=spans&workflow=pirate_joke_generator")
		if n := eval[int](b, `document.querySelectorAll("#trace-list tbody tr.row").length`); n != 6 {
			t.Errorf("spans view of the workflow lists %d spans, want 6", n)
		}
	})

	t.Run("trace page", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/traces")
		b.run("open the toxic trace", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#trace-list a[href^="/ui/traces/%s"]`, toxic))))
		b.run("wait for the waterfall", chromedp.WaitVisible(chromedp.ID("waterfall")))
		if id := b.text("#trace-id"); id != toxic {
			t.Fatalf("trace page of %q", id)
		}
		if n := eval[int](b, `document.querySelectorAll(".wf-row").length`); n != 3 {
			t.Errorf("waterfall has %d rows, want 3", n)
		}
		// Select the chat span.
		b.run("select the chat span", chromedp.Click(chromedp.CSS(`.wf-row.failed`)))
		b.run("wait for the span", chromedp.WaitVisible(chromedp.ID("chat")))
		chat := b.text("#chat")
		for _, want := range []string{"You are a friendly assistant.", "Tell me a joke about pirates", "You are a worthless idiot"} {
			if !strings.Contains(chat, want) {
				t.Errorf("chat lacks %q: %s", want, chat)
			}
		}
		evals := b.text("#evaluations tbody")
		if !strings.Contains(evals, "toxicity-detector") || !strings.Contains(evals, "fail") || !strings.Contains(evals, "safety") ||
			!regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`).MatchString(evals) {
			t.Errorf("evaluations (evaluator, verdict, monitor, time) = %s", evals)
		}
		if attrs := b.text("#attributes"); !strings.Contains(attrs, "gen_ai.request.model") {
			t.Errorf("attributes = %s", attrs)
		}
		if res := b.text("#resource"); !strings.Contains(res, "joke-app") {
			t.Errorf("resource = %s", res)
		}
		if raw := b.text("#raw pre"); !strings.Contains(raw, `"trace_id": "`+toxic) || !strings.Contains(raw, `"evaluations"`) {
			t.Errorf("raw JSON = %s", truncated(raw, 400))
		}
		b.screenshot("trace")
	})

	t.Run("filter by a failing verdict", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/traces")
		b.run("pick failed toxicity-detector", chromedp.SetValue(chromedp.ID("verdict"), "fail:toxicity-detector"))
		b.submit("#apply")
		if loc := b.location(); !strings.Contains(loc, "verdict=fail%3Atoxicity-detector") {
			t.Errorf("filter state not in the URL: %s", loc)
		}
		rows := eval[[]string](b, `[...document.querySelectorAll("#trace-list tbody tr.row a.row-link")].map(a => a.getAttribute("href"))`)
		if len(rows) != 1 || !strings.Contains(rows[0], toxic) {
			t.Fatalf("traces that failed toxicity-detector: %v, want only %s", rows, toxic)
		}
		b.screenshot("traces-failed")
		b.visit("/ui/traces?verdict=fail:*")
		if n := eval[int](b, `document.querySelectorAll("#trace-list tbody tr.row").length`); n != 2 {
			t.Errorf("traces with any failing evaluation: %d, want 2 (toxic reply, PII prompt)", n)
		}
		b.visit("/ui/traces?verdict=pass:toxicity-detector&workflow=pirate_joke_generator")
		rows = eval[[]string](b, `[...document.querySelectorAll("#trace-list tbody tr.row a.row-link")].map(a => a.getAttribute("href"))`)
		if len(rows) != 1 || !strings.Contains(rows[0], clean) {
			t.Errorf("pirate traces that passed toxicity-detector: %v, want %s", rows, clean)
		}
	})

	t.Run("other environment's trace is a 404", func(t *testing.T) {
		b := browser.on(t)
		if status := b.visit("/ui/traces/" + staging); status != 404 {
			t.Errorf("production session opening a staging trace = %d, want 404", status)
		}
		if h := b.text("#error-heading"); h != "Trace not found" {
			t.Errorf("404 page heading %q", h)
		}
		if status := b.visit("/ui/traces/" + clean); status != 200 {
			t.Errorf("own trace = %d", status)
		}
	})

	t.Run("monitor setup", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/monitors/new")
		// A bad submission first: no evaluator picked.
		b.run("fill the form",
			chromedp.SetValue(chromedp.ID("external_id"), "jokes-length"),
			chromedp.SetValue(chromedp.ID("entity_value"), "pirate_joke_generator"),
		)
		if status := b.submit("#save-setup"); status != 400 {
			t.Fatalf("setup without evaluators = %d, want 400", status)
		}
		if msg := b.text("#error-evaluators"); !strings.Contains(msg, "required") {
			t.Errorf("evaluators error = %q", msg)
		}
		b.screenshot("setup-form")
		b.run("pick char-count", chromedp.Click(chromedp.CSS(`input[name="evaluators"][value="char-count"]`)))
		if status := b.submit("#save-setup"); status != 200 {
			t.Fatalf("create setup = %d", status)
		}
		if n := b.text("#notice"); !strings.Contains(n, "Created monitor setup") {
			t.Errorf("notice = %q", n)
		}
		status := b.text("#setups .status")
		if status != "pending" && status != "waiting_for_spans" {
			t.Errorf("new setup status %q", status)
		}
		b.eventually("/ui/monitors", `document.querySelector("#setups .status").textContent === "waiting_for_spans"`, 10*time.Second)
		another := sendTrace(t, c, prodKey, exchange{
			Service: "joke-app", Workflow: "pirate_joke_generator", SpanName: "openai.chat", Model: "gpt-4o",
			Prompt: "Another one", Completion: "What is a pirate's favourite letter? The C.",
		})
		b.eventually("/ui/monitors", `document.querySelector("#setups .status").textContent === "in_progress"`, 15*time.Second)
		// The result reaches the warehouse with the span, a moment later.
		b.eventually("/ui/monitors", `!document.querySelector("#setups tbody tr td:nth-child(6)").textContent.includes("none")`, 15*time.Second)
		if static := b.text("#static-monitors"); !strings.Contains(static, "safety") || !strings.Contains(static, "toxicity-detector") {
			t.Errorf("static monitors = %s", static)
		}
		b.screenshot("monitors")
		// The trace page names the setup that judged the span, linked.
		b.visit("/ui/traces/" + another)
		b.visit(eval[string](b, `[...document.querySelectorAll(".wf-row")].find(r => r.textContent.includes("openai.chat")).getAttribute("href")`))
		b.eventually(b.location(), `[...document.querySelectorAll("#evaluations tr")].some(r => r.textContent.includes("char-count"))`, 10*time.Second)
		mon := eval[[]string](b, `[...document.querySelectorAll("#evaluations tr")].filter(r => r.textContent.includes("char-count")).map(r => { const a = r.querySelector("td:nth-child(4) a"); return a ? a.textContent + " " + a.getAttribute("href") : r.querySelector("td:nth-child(4)").textContent })`)
		if len(mon) != 1 || !strings.HasPrefix(mon[0], "jokes-length /ui/monitors/") {
			t.Errorf("char-count's monitor on the trace page = %q, want the setup's external id linked to it", mon)
		}
	})

	t.Run("scores", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/scores")
		cards := eval[[]string](b, `[...document.querySelectorAll("#by-evaluator .chart-card")].map(c => c.dataset.evaluator)`)
		// char-count comes from the setup created above.
		if strings.Join(cards, ",") != "char-count,pii-detector,toxicity-detector" {
			t.Fatalf("evaluator cards %v", cards)
		}
		tox := b.text(`#by-evaluator [data-evaluator="toxicity-detector"] p`)
		if !strings.Contains(tox, "3 passed") || !strings.Contains(tox, "1 failed") {
			t.Errorf("toxicity counts: %q", tox)
		}
		if wf := b.text("#workflow-table"); !strings.Contains(wf, "pirate_joke_generator") || !strings.Contains(wf, "ticket_triage") {
			t.Errorf("workflow table: %s", wf)
		}
		if n := eval[int](b, `document.querySelectorAll('#by-evaluator [data-evaluator="char-count"] svg.chart').length`); n != 2 {
			t.Errorf("char-count (numeric score) has %d charts, want the pass rate and the score distribution", n)
		}
		b.screenshot("scores")
		// A failing bar opens the spans behind it.
		b.run("click the failing bar", chromedp.Click(chromedp.CSS(`#by-evaluator [data-evaluator="toxicity-detector"] rect.fail`)))
		b.run("wait for the list", chromedp.WaitVisible(chromedp.ID("trace-list")))
		if loc := b.location(); !strings.Contains(loc, "verdict=fail%3Atoxicity-detector") || !strings.Contains(loc, "view=spans") {
			t.Errorf("bar led to %s", loc)
		}
		if n := eval[int](b, `document.querySelectorAll("#trace-list tbody tr.row").length`); n != 1 {
			t.Errorf("the failing bar lists %d spans, want 1", n)
		}
	})

	t.Run("playground", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/evaluators")
		b.screenshot("evaluators")
		b.run("open pii-detector", chromedp.Click(chromedp.ID("ev-pii-detector")))
		b.run("fill the text", chromedp.WaitVisible(chromedp.ID("input-text")),
			chromedp.SetValue(chromedp.ID("input-text"), "Mail me at jane.doe@example.com"))
		if status := b.submit("#run"); status != 200 {
			t.Fatalf("run = %d", status)
		}
		if v := b.text("#verdict"); v != "fail" {
			t.Errorf("verdict %q, want fail (PII found)", v)
		}
		if e := b.text("#elapsed"); !strings.HasSuffix(e, "s") {
			t.Errorf("elapsed %q", e)
		}
		if j := b.text("#result-json"); !strings.Contains(j, `"has_pii": true`) {
			t.Errorf("result JSON %s", j)
		}
		if why := b.text("#explanation"); !strings.Contains(why, "PII found: EMAIL_ADDRESS") || !strings.Contains(why, "EmailRecognizer") {
			t.Errorf("explanation %q does not say why", why)
		}
		if m := eval[string](b, `[...document.querySelectorAll(".marked-input mark")].map(m => m.textContent).join("|")`); m != "jane.doe@example.com" {
			t.Errorf("marked in the input: %q, want the e-mail address", m)
		}
		b.screenshot("playground")
	})

	t.Run("error status and failed evaluations in two colours", func(t *testing.T) {
		b := browser.on(t)
		erred := sendTrace(t, c, prodKey, exchange{Service: "joke-app", Workflow: "status_check", SpanName: "openai.chat", Model: "gpt-4o",
			Prompt: "Tell me a joke", Completion: "Sorry, try again later.", Err: "rate limited",
			Attrs: map[string]string{"retrieval.documents": strings.Repeat("a long retrieved document. ", 100)}})
		b.visit("/ui/traces/" + erred)
		rows := eval[[]string](b, `[...document.querySelectorAll(".wf-row")].filter(r => r.textContent.includes("openai.chat")).map(r => r.className + "|" + r.querySelector("rect").getAttribute("class"))`)
		if len(rows) != 1 || !strings.Contains(rows[0], "status-error") || strings.Contains(rows[0], " failed") || !strings.HasSuffix(rows[0], "|bar-status") {
			t.Errorf("the erred span's row: %q, want status-error with a bar-status bar", rows)
		}
		// The status filter keeps the traces with an error span; the model
		// column shows the requested model, which the model filter matches.
		b.visit("/ui/traces?status=error")
		if rows := eval[[]string](b, `[...document.querySelectorAll("#trace-list tbody tr.row a.row-link")].map(a => a.getAttribute("href"))`); len(rows) != 1 || !strings.Contains(rows[0], erred) {
			t.Errorf("traces with an error status: %v, want only %s", rows, erred)
		}
		b.visit("/ui/traces?view=spans&model=claude-3-5-sonnet")
		models := eval[[]string](b, `[...document.querySelectorAll("#trace-list tbody tr.row")].map(r => [...r.cells].map(c => c.textContent.trim()).join("|"))`)
		if len(models) != 1 || !strings.Contains(models[0], "|claude-3-5-sonnet|") {
			t.Errorf("spans of the model filter: %q, want one row showing the requested model", models)
		}
		// A long attribute value starts folded, as a long message does.
		b.visit("/ui/traces/" + erred)
		b.visit(eval[string](b, `[...document.querySelectorAll(".wf-row")].find(r => r.textContent.includes("openai.chat")).getAttribute("href")`))
		if h := eval[float64](b, `document.querySelector("#attributes pre.long.folded").getBoundingClientRect().height`); h <= 0 || h > 300 {
			t.Errorf("folded attribute height %v", h)
		}
		// The exception the SDK recorded: type and message shown, escaped,
		// the stack folded until opened.
		if got := b.text("#span-exception"); !strings.Contains(got, "*errors.errorString") || !strings.Contains(got, `rate limited <script>alert("stack")</script>`) {
			t.Errorf("exception shown as %q, want the SDK's type and the message as text", got)
		}
		if open := eval[bool](b, `document.querySelector("#span-exception details.stack").open`); open {
			t.Error("the stack trace starts unfolded")
		}
		if st := eval[string](b, `document.querySelector("#exception-stack").textContent`); !strings.Contains(st, "goroutine") && !strings.Contains(st, ".go:") {
			t.Errorf("stack trace %q, want the SDK's Go stack", truncated(st, 200))
		}
		eval[bool](b, `(() => { const e = document.querySelector("#span-exception"); e.querySelector("details").open = true; e.scrollIntoView(); return true })()`)
		b.screenshot("trace-exception")
		// Two long values: the retrieved documents and the kept stack trace.
		if n := eval[int](b, `document.querySelectorAll("#attributes button.unfold").length`); n != 2 {
			t.Errorf("%d long attributes folded, want 2", n)
		}
		b.run("unfold them", chromedp.Click(chromedp.CSS(`#attributes button.unfold`)), chromedp.Click(chromedp.CSS(`#attributes pre.long.folded + button.unfold`)))
		if n := eval[int](b, `document.querySelectorAll("#attributes pre.long.folded").length`); n != 0 {
			t.Errorf("%d attributes still folded after the click", n)
		}
		b.visit("/ui/traces/" + toxic)
		rows = eval[[]string](b, `[...document.querySelectorAll(".wf-row.failed rect")].map(r => r.getAttribute("class"))`)
		if len(rows) != 1 || rows[0] != "bar-fail" {
			t.Errorf("the failed evaluation's bar: %q, want bar-fail", rows)
		}
		if l := b.text("#legend"); !strings.Contains(l, "a failed evaluation") || !strings.Contains(l, "status is an error") {
			t.Errorf("legend %q", l)
		}
		if a, f := eval[string](b, `getComputedStyle(document.querySelector(".legend .k-fail")).backgroundColor`), eval[string](b, `getComputedStyle(document.querySelector(".legend .k-status")).backgroundColor`); a == f {
			t.Errorf("the two keys share the colour %s", a)
		}
	})

	t.Run("sessions and users", func(t *testing.T) {
		b := browser.on(t)
		var ids []string
		for i, q := range []string{"Hi, who are you?", "Tell me about pirates", "Thanks!"} {
			ids = append(ids, sendTrace(t, c, prodKey, exchange{Service: "joke-app", Workflow: "chat_session", SpanName: "openai.chat", Model: "gpt-4o",
				Prompt: q, Completion: fmt.Sprintf("Answer %d.", i), Attrs: map[string]string{"session.id": "sess-42", "traceloop.association.properties.user_id": "user-7"}}))
		}
		sendTrace(t, c, prodKey, exchange{Service: "joke-app", Workflow: "chat_session", SpanName: "openai.chat", Model: "gpt-4o",
			Prompt: "Another session", Completion: "Sure.", Attrs: map[string]string{"session.id": "sess-43", "traceloop.association.properties.user_id": "user-7"}})
		b.visit("/ui/traces/" + ids[1])
		b.visit(eval[string](b, `[...document.querySelectorAll(".wf-row")].find(r => r.textContent.includes("openai.chat")).getAttribute("href")`))
		if s, u := b.text("#session-link"), b.text("#user-link"); s != "sess-42" || u != "user-7" {
			t.Fatalf("session %q, user %q", s, u)
		}
		b.run("open the session", chromedp.Click(chromedp.ID("session-link")))
		b.run("wait for the list", chromedp.WaitVisible(chromedp.ID("trace-list")))
		got := eval[[]string](b, `[...document.querySelectorAll("#trace-list tbody tr.row a.row-link")].map(a => a.getAttribute("href").split("?")[0].split("/").pop())`)
		if strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("the session's traces %v, want %v in order", got, ids)
		}
		b.visit("/ui/traces/" + ids[0])
		b.visit(eval[string](b, `[...document.querySelectorAll(".wf-row")].find(r => r.textContent.includes("openai.chat")).getAttribute("href")`))
		b.run("open the user", chromedp.Click(chromedp.ID("user-link")))
		b.run("wait for the list", chromedp.WaitVisible(chromedp.ID("trace-list")))
		if n := eval[int](b, `document.querySelectorAll("#trace-list tbody tr.row").length`); n != 4 {
			t.Errorf("the user's traces: %d rows, want 4 (two sessions)", n)
		}
	})

	t.Run("times in the browser's zone, UTC on hover", func(t *testing.T) {
		b := browser.on(t)
		zone := func(id string) {
			if _, err := chromedp.Call(b.ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: id}); err != nil {
				t.Fatalf("time zone %q: %v", id, err)
			}
		}
		zone("Asia/Kolkata")
		defer zone("")
		b.visit("/ui/traces/" + toxic)
		local := eval[string](b, `document.querySelector(".page-head time").textContent`)
		utc := eval[string](b, `document.querySelector(".page-head time").title`)
		if !strings.HasSuffix(local, " UTC+05:30") || !strings.HasSuffix(utc, " UTC") {
			t.Fatalf("trace start shown as %q (title %q), want local time in UTC+05:30 and UTC on hover", local, utc)
		}
		lt, err1 := time.Parse("2006-01-02 15:04:05.000", strings.TrimSuffix(local, " UTC+05:30"))
		ut, err2 := time.Parse("2006-01-02 15:04:05.000", strings.TrimSuffix(utc, " UTC"))
		if err1 != nil || err2 != nil || lt.Sub(ut) != 5*time.Hour+30*time.Minute {
			t.Errorf("local %q is not UTC %q + 5:30 (%v, %v)", local, utc, err1, err2)
		}
	})

	t.Run("send a span to the playground", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/traces/" + toxic)
		b.run("select the chat span", chromedp.Click(chromedp.CSS(`.wf-row.failed`)))
		b.run("wait for the span", chromedp.WaitVisible(chromedp.ID("evaluations")))
		if why := eval[string](b, `[...document.querySelectorAll("#evaluations td.why")].map(td => td.innerText).join("|")`); !strings.Contains(why, "Toxicity") {
			t.Errorf("the evaluations do not say why: %q", why)
		}
		if m := eval[string](b, `[...document.querySelectorAll("#chat mark")].map(m => m.textContent).join("|")`); !strings.Contains(m, "idiot") {
			t.Errorf("marked in the messages: %q, want the weightiest word", m)
		}
		b.run("show why", chromedp.ScrollIntoView(chromedp.ID("chat")))
		b.screenshot("trace-why")
		b.run("pick toxicity", chromedp.WaitVisible(chromedp.ID("send-evaluator")),
			chromedp.SetValue(chromedp.ID("send-evaluator"), "toxicity-detector"))
		b.submit("#send-playground")
		if v := eval[string](b, `document.getElementById("input-text").value`); !strings.Contains(v, "worthless idiot") {
			t.Errorf("playground text = %q", v)
		}
		b.submit("#run")
		if v := b.text("#verdict"); v != "fail" {
			t.Errorf("toxicity verdict %q", v)
		}
	})

	t.Run("logout", func(t *testing.T) {
		b := browser.on(t)
		b.visit("/ui/traces")
		// A copy of the cookie taken before logout (issue #32, item 3).
		copied, ok := b.cookies()["evalcol_session"]
		if !ok {
			t.Fatal("no session cookie before logout")
		}
		b.submit("#logout")
		if loc := b.location(); !strings.HasPrefix(loc, "/ui/login") {
			t.Fatalf("after logout at %s", loc)
		}
		if _, ok := b.cookies()["evalcol_session"]; ok {
			t.Error("session cookie still set after logout")
		}
		b.visit("/ui/traces")
		if loc := b.location(); !strings.HasPrefix(loc, "/ui/login") {
			t.Errorf("after logout /ui/traces is at %s", loc)
		}
		req, _ := http.NewRequest("GET", "http://"+c.API+"/ui/evaluators", nil)
		req.AddCookie(&http.Cookie{Name: copied.Name, Value: copied.Value})
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/ui/login") {
			t.Errorf("the cookie copied before logout opens /ui/evaluators: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	assertNoProblems(t, browser)
}
