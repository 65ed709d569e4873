package e2etest

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestSearchIndexSwitch runs a collector with warehouse.search_index:
// false: a chat span it stores is listed, a search is a 400 naming the
// setting. Restarted on the same warehouse with the index on (the default
// config), the span stored while it was off is found by a search once the
// background fill has indexed it, and a new span at once.
func TestSearchIndexSwitch(t *testing.T) {
	off := strings.Replace(testcollector.DefaultConfig, "path: {{.DataDir}}/evalcol.db}", "path: {{.DataDir}}/evalcol.db, search_index: false}", 1)
	if off == testcollector.DefaultConfig {
		t.Fatal("the default config's warehouse line changed; update this test")
	}
	c := testcollector.Start(t, off)
	key := testcollector.DefaultAPIKey
	sendChatSpan(t, c, testcollector.HTTP, key, "openai.chat", nil)
	resp, _ := querySpans(t, c, key, url.Values{"q": {"pirates"}})
	if resp.Status != 400 || !strings.Contains(string(resp.Body), "warehouse.search_index is false") {
		t.Fatalf("q with the index off: %d %s; want 400 naming the setting", resp.Status, resp.Body)
	}
	if resp, page := querySpans(t, c, key, nil); resp.Status != 200 || page.Spans.TotalResults != 1 {
		t.Fatalf("spans with the index off: %d, %d spans; want the one sent", resp.Status, page.Spans.TotalResults)
	}
	c.Stop()

	again, err := testcollector.StartWithPorts(t, testcollector.DefaultConfig, c.Ports)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, page := querySpans(t, again, key, url.Values{"q": {"pirates"}})
		if resp.Status != 200 {
			t.Fatalf("q with the index on again: %d %s", resp.Status, resp.Body)
		}
		if page.Spans.TotalResults == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the span stored while the index was off is not found after 20 s: %d results", page.Spans.TotalResults)
		}
		time.Sleep(100 * time.Millisecond)
	}
	sendChatSpan(t, again, testcollector.HTTP, key, "openai.chat", nil)
	if resp, page := querySpans(t, again, key, url.Values{"q": {"pirates"}}); resp.Status != 200 || page.Spans.TotalResults != 2 {
		t.Fatalf("q after a new span: %d, %d results; want 2", resp.Status, page.Spans.TotalResults)
	}
}
