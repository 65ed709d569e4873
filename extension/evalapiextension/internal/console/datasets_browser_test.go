package console_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestDatasetsAndExperimentsInBrowser uploads a CSV on the Datasets page
// of a real collector in headless chromium, publishes it, runs two
// experiment runs over it through the API as Traceloop's SDK does, and
// reads the runs compared on the Experiments page.
func TestDatasetsAndExperimentsInBrowser(t *testing.T) {
	if chromiumPath() == "" {
		t.Skip("no chromium binary (install Debian's chromium, or set EVALCOL_CHROMIUM): the browser suite needs a real browser")
	}
	c := testcollector.Start(t, consoleConfig)
	b := newBrowser(t, "http://"+c.API)
	if status := b.login(prodKey); status != 200 {
		t.Fatalf("login = %d", status)
	}
	b.visit("/ui/datasets")
	b.run("fill the CSV form",
		chromedp.SetValue(chromedp.ID("csv-name"), "Support questions"),
		chromedp.SetValue(chromedp.ID("csv-text"), "question,expected,difficulty\nWhere is my parcel?,Track it on the orders page,1\n\"Can I pay, in cash?\",Yes on delivery,2\nHow do I return it?,Use the returns form,3\n"))
	if status := b.submit("#upload-csv"); status != 200 {
		t.Fatalf("upload: %d", status)
	}
	if notice := b.text("#notice"); notice != "Added 3 rows from the CSV." {
		t.Fatalf("notice %q", notice)
	}
	if status := b.submit("#publish"); status != 200 || b.text("#notice") != "Published v1." {
		t.Fatalf("publish: %d %q", status, b.text("#notice"))
	}
	if n := eval[int](b, `document.querySelectorAll("#rows tr[data-row]").length`); n != 3 {
		t.Errorf("%d rows shown", n)
	}
	b.screenshot("dataset")

	call := func(method, path, body string) map[string]any {
		t.Helper()
		r := c.Call(method, path, prodKey, body)
		if r.Status >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
		}
		var out map[string]any
		r.JSON(t, &out)
		return out
	}
	for _, reply := range []string{"You are a stupid idiot.", "Happy to help: %s"} {
		init := call(http.MethodPut, "/v2/experiments/initialize", `{"slug":"support-bot","dataset_slug":"support-questions","dataset_version":"v1","evaluator_slugs":["toxicity-detector","char-count"]}`)
		run := init["run"].(map[string]any)["id"].(string)
		for _, q := range []string{"Where is my parcel?", "Can I pay, in cash?", "How do I return it?"} {
			text := strings.ReplaceAll(reply, "%s", q)
			task := call(http.MethodPost, "/v2/experiments/support-bot/runs/"+run+"/tasks", `{"input":{"question":"`+q+`"},"output":{"text":"`+text+`"}}`)
			for _, e := range []string{"toxicity-detector", "char-count"} {
				call(http.MethodPost, "/v2/experiments/support-bot/runs/"+run+"/tasks/"+task["id"].(string),
					`{"evaluator_slug":"`+e+`","input_schema_mapping":{"text":{"source":"`+text+`"}}}`)
			}
		}
	}
	b.visit("/ui/experiments")
	b.run("open the experiment", chromedp.Click(chromedp.CSS(`#experiments a[href="/ui/experiments/support-bot"]`)))
	b.run("wait for the comparison", chromedp.WaitVisible(chromedp.ID("runs")))
	row := b.text(`#runs tr[data-evaluator="toxicity-detector"]`)
	if !strings.Contains(row, "100.0% pass") || !strings.Contains(row, "+100.0 pts") || !strings.Contains(row, "0.0% pass") {
		t.Errorf("toxicity-detector across the runs: %q", row)
	}
	b.screenshot("experiment")
	assertNoProblems(t, b)
}
