package console_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/testcollector"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
)

// TestConsoleOnClickHouse: two collectors share one ClickHouse warehouse.
// A session opened on one is accepted by the other (the generated secret
// is kept in the warehouse), and the console's reads — the trace list
// with a verdict filter, the trace page, the scores — answer from
// ClickHouse.
func TestConsoleOnClickHouse(t *testing.T) {
	addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
	if addr == "" {
		t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set (scripts/clickhouse.sh start prints it)")
	}
	var rb [6]byte
	_, _ = rand.Read(rb[:])
	db := "evalcol_console_" + hex.EncodeToString(rb[:])
	t.Cleanup(func() {
		_ = clickhouse.DropDatabase(context.Background(), clickhouse.Options{Addr: addr, Database: db})
	})
	cfg := strings.Replace(consoleConfig, "warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}",
		"warehouse: {backend: clickhouse, endpoint: "+addr+", database: "+db+"}", 1)
	a := testcollector.Start(t, cfg)
	b := testcollector.Start(t, cfg)
	toxic := sendTrace(t, a, prodKey, exchange{Service: "joke-app", Workflow: "pirates", SpanName: "openai.chat", Model: "gpt-4o",
		Prompt: "Tell me a joke", Completion: "You are a worthless idiot and I will kill you."})
	sendTrace(t, b, prodKey, exchange{Service: "joke-app", Workflow: "pirates", SpanName: "openai.chat", Model: "gpt-4o",
		Prompt: "Tell me a joke", Completion: "Why did the pirate go to school? To improve his arrrticulation."})

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(base, path string) (int, string) {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	baseA, baseB := "http://"+a.API, "http://"+b.API
	_, form := get(baseA, "/ui/login")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)
	if m == nil {
		t.Fatal("login form without CSRF token")
	}
	resp, err := client.PostForm(baseA+"/ui/login", url.Values{"csrf": {m[1]}, "api_key": {prodKey}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The cookie, issued by A, sent to B.
	ua, _ := url.Parse(baseA + "/ui/")
	ub, _ := url.Parse(baseB + "/ui/")
	jar.SetCookies(ub, jar.Cookies(ua))
	rowLinks := regexp.MustCompile(`class="row-link"`)
	testcollector.Eventually(t, 20*time.Second, func() bool {
		status, body := get(baseB, "/ui/traces")
		return status == 200 && len(rowLinks.FindAllString(body, -1)) == 2 && strings.Count(body, "chip v-") >= 4
	}, "collector B lists both traces with their evaluation chips for A's session")
	status, body := get(baseB, "/ui/traces?verdict=fail:toxicity-detector")
	if status != 200 || len(rowLinks.FindAllString(body, -1)) != 1 || !strings.Contains(body, toxic) {
		t.Errorf("verdict filter on ClickHouse: %d, %d rows", status, len(rowLinks.FindAllString(body, -1)))
	}
	if status, body := get(baseA, "/ui/traces/"+toxic); status != 200 || strings.Count(body, `class="wf-row`) != 3 || !strings.Contains(body, "openai.chat") {
		t.Errorf("trace page on ClickHouse: %d", status)
	}
	// A span cursor issued by A pages on B: the cursor secret is kept in
	// the warehouse (issue #32, item 6).
	apiGet := func(base, path string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+prodKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return out
	}
	const spansPath = "/v2/warehouse/spans?from_timestamp_sec=0&limit=1"
	next, _ := apiGet(baseA, spansPath)["spans"].(map[string]any)["next_cursor"].(string)
	if next == "" {
		t.Fatal("no next_cursor from A")
	}
	if page := apiGet(baseB, spansPath+"&cursor="+url.QueryEscape(next))["spans"].(map[string]any); page["page_size"] != 1.0 {
		t.Errorf("B's page for A's cursor: %v", page)
	}
	status, body = get(baseB, "/ui/scores")
	if status != 200 || !strings.Contains(body, `data-evaluator="toxicity-detector"`) || !strings.Contains(body, "1 passed") {
		t.Errorf("scores on ClickHouse: %d", status)
	}
}
