package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
)

// TestSetupsTraceloopShapes: setups as Traceloop's clients make and read
// them. No external_id (no 409 between such setups), evaluator objects
// and Traceloop's evaluator names (the slug is the canonical type), a
// bare-array listing with the cursor in X-Next-Cursor, and GET, PUT and
// DELETE addressed by external id with a PUT of only {evaluators,
// selector}.
func TestSetupsTraceloopShapes(t *testing.T) {
	s, monitors := newSetupServer(t)
	// traceloop/tenant-evals-integration's AutoMonitorSetupClient.create,
	// twice: no external_id, so no conflict.
	body := `{"entity_type":"agent","entity_value":"my-agent-name","evaluators":[{"evaluator_id":"cmf2mpzh4002401zwcz9y0gke"},{"evaluator_type":"hallucination"},{"evaluator_type":"toxicity"}]}`
	var ids []string
	for i := range 2 {
		st, got := s.do(t, "POST", "/v2/auto-monitor-setups", authA, []byte(body))
		if st != 201 {
			t.Fatalf("create %d = %d %v", i, st, got)
		}
		if got["external_id"] != "" || got["status"] != "partial" {
			t.Errorf("create %d: external_id %v status %v, want none and partial", i, got["external_id"], got["status"])
		}
		bs := got["evaluators"].([]any)
		unknown, faith, tox := bs[0].(map[string]any), bs[1].(map[string]any), bs[2].(map[string]any)
		if unknown["status"] != "failed" || !strings.Contains(unknown["error_message"].(string), `unknown evaluator "cmf2mpzh4002401zwcz9y0gke"`) {
			t.Errorf("unknown evaluator id binding = %v", unknown)
		}
		if faith["evaluator_type"] != "faithfulness" || faith["evaluator_id"] != "faithfulness" || tox["evaluator_type"] != "toxicity-detector" {
			t.Errorf("aliased bindings = %v, %v; want the slugs", faith, tox)
		}
		ids = append(ids, got["id"].(string))
	}
	// Traceloop's OpenAPI CreateAutoMonitorSetupInput: external_id,
	// evaluators and a selector, no entity.
	st, ext := s.do(t, "POST", "/v2/auto-monitor-setups", authA, []byte(
		`{"external_id":"my-agent-monitor-1","evaluators":["hallucination","toxicity"],"selector":{"gen_ai.system":"openai"}}`))
	if st != 201 || ext["entity_type"] != "" || len(ext["init_rules"].([]any)) != 1 {
		t.Fatalf("entity-less create = %d %v", st, ext)
	}
	if st, got := s.do(t, "POST", "/v2/auto-monitor-setups", authA, []byte(`{"external_id":"my-agent-monitor-1","evaluators":["toxicity"]}`)); st != 409 ||
		!strings.Contains(got["error"].(string), `"my-agent-monitor-1"`) {
		t.Errorf("repeated external_id = %d %v, want 409", st, got)
	}
	waitFor(t, func() bool { return len(monitors.Monitors()) == 3 }, "three monitors")

	// GET by external id; another tenant sees nothing under it.
	if st, got := s.do(t, "GET", "/v2/auto-monitor-setups/my-agent-monitor-1", authA, nil); st != 200 || got["id"] != ext["id"] {
		t.Errorf("GET by external id = %d %v", st, got)
	}
	if st, got := s.do(t, "GET", "/v2/auto-monitor-setups/my-agent-monitor-1", authB, nil); st != 404 || got["error"] != "auto monitor setup not found" {
		t.Errorf("GET by external id from tenant B = %d %v, want 404", st, got)
	}
	// PUT of Traceloop's UpdateAutoMonitorSetupInput changes the evaluators
	// and keeps what it does not mention.
	st, put := s.do(t, "PUT", "/v2/auto-monitor-setups/my-agent-monitor-1", authA, []byte(`{"evaluators":["word_count"]}`))
	if st != 200 || put["id"] != ext["id"] || put["external_id"] != "my-agent-monitor-1" || put["status"] != "pending" {
		t.Fatalf("partial PUT = %d %v", st, put)
	}
	if bs := put["evaluators"].([]any); len(bs) != 1 || bs[0].(map[string]any)["evaluator_type"] != "word-count" {
		t.Errorf("evaluators after partial PUT = %v", bs)
	}
	if rules := put["init_rules"].([]any); len(rules) != 1 || rules[0].(map[string]any)["key"] != "gen_ai.system" {
		t.Errorf("init_rules after partial PUT = %v, want the selector kept", rules)
	}
	if sel, _ := json.Marshal(put["selector"]); string(sel) != `{"gen_ai.system":"openai"}` {
		t.Errorf("selector after partial PUT = %s", sel)
	}
	st, put = s.do(t, "PUT", "/v2/auto-monitor-setups/my-agent-monitor-1", authA, []byte(`{"selector":[{"key":"gen_ai.system","source":"span_attributes","operator":"in","values":["openai","anthropic"]}]}`))
	if st != 200 {
		t.Fatalf("selector-only PUT = %d %v", st, put)
	}
	if rules := put["init_rules"].([]any); st != 200 || len(rules) != 1 || rules[0].(map[string]any)["op"] != "in" || len(put["evaluators"].([]any)) != 1 {
		t.Errorf("selector-only PUT = %d %v", st, put)
	}

	// Listing: a bare array; X-Next-Cursor pages through all of them.
	var seen []string
	cursor := ""
	for page := 0; ; page++ {
		path := "/v2/auto-monitor-setups?limit=1"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		st, list, next := s.list(t, path, authA)
		if st != 200 || len(list) != 1 {
			t.Fatalf("page %d = %d %v", page, st, list)
		}
		seen = append(seen, list[0]["id"].(string))
		if next == "" {
			break
		}
		cursor = next
	}
	if want := append(ids, ext["id"].(string)); fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("paged listing = %v, want %v in creation order", seen, want)
	}
	if st, list, next := s.list(t, "/v2/auto-monitor-setups?status=nope", authA); st != 200 || len(list) != 0 || next != "" {
		t.Errorf("empty listing = %d %v next %q, want [] without a cursor", st, list, next)
	}

	// DELETE by external id.
	if st, _ := rawDelete(t, s, "/v2/auto-monitor-setups/my-agent-monitor-1", authB); st != 404 {
		t.Errorf("DELETE of A's setup by B = %d, want 404", st)
	}
	if st, _ := rawDelete(t, s, "/v2/auto-monitor-setups/my-agent-monitor-1", authA); st != 204 {
		t.Errorf("DELETE by external id = %d, want 204", st)
	}
	if st, _ := s.do(t, "GET", "/v2/auto-monitor-setups/"+ext["id"].(string), authA, nil); st != 404 {
		t.Errorf("GET after DELETE = %d, want 404", st)
	}
}

// TestSetupsPerEnvironmentCap: an environment holds at most
// max_setups_per_environment setups; one more is a 409 naming the limit,
// stores nothing, and leaves other environments free.
func TestSetupsPerEnvironmentCap(t *testing.T) {
	s, _ := newSetupServer(t, func(o *setups.Options) { o.MaxPerEnvironment = 3 })
	for i := range 3 {
		if st, got := s.do(t, "POST", "/v2/auto-monitor-setups", authA, []byte(`{"evaluators":["char-count"]}`)); st != 201 {
			t.Fatalf("create %d = %d %v", i, st, got)
		}
	}
	st, got := s.do(t, "POST", "/v2/auto-monitor-setups", authA, []byte(`{"evaluators":["char-count"]}`))
	if st != 409 || !strings.Contains(got["error"].(string), "max_setups_per_environment is 3") {
		t.Errorf("fourth setup = %d %v, want 409 naming max_setups_per_environment", st, got)
	}
	if n, err := s.store.CountSetups(context.Background(), "env-a"); err != nil || n != 3 {
		t.Errorf("env-a holds %d setups (%v), want 3", n, err)
	}
	if st, got := s.do(t, "POST", "/v2/auto-monitor-setups", authB, []byte(`{"evaluators":["char-count"]}`)); st != 201 {
		t.Errorf("another environment's setup = %d %v, want 201", st, got)
	}
}

// TestSetupsListPageBytes: a page of the listing stops before 1 MiB of
// JSON (with a cursor to the rest) whatever the limit; before, five large
// setups made a 154 MB page.
func TestSetupsListPageBytes(t *testing.T) {
	s, _ := newSetupServer(t)
	// The largest setup the limits allow: 64 unknown evaluators with long
	// names (each a failed binding with its message) and a 16 KiB selector.
	names := make([]string, setups.MaxEvaluators)
	for i := range names {
		names[i] = fmt.Sprintf("%q", fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 250)))
	}
	var kv []string
	for i := range 60 {
		kv = append(kv, fmt.Sprintf(`"key-%02d":%q`, i, strings.Repeat("v", 240)))
	}
	body := `{"evaluators":[` + strings.Join(names, ",") + `],"selector":{` + strings.Join(kv, ",") + `}}`
	const n = 40
	for i := range n {
		if st, got := s.do(t, "POST", "/v2/auto-monitor-setups", authA, []byte(body)); st != 201 {
			t.Fatalf("create %d = %d %v", i, st, got)
		}
	}
	total, pages, cursor := 0, 0, ""
	for {
		path := "/v2/auto-monitor-setups?limit=1000"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		st, header, data := s.send(t, "GET", path, authA, nil)
		var list []json.RawMessage
		if st != http.StatusOK || json.Unmarshal(data, &list) != nil {
			t.Fatalf("page %d = %d %.200s", pages, st, data)
		}
		if len(data) > setups.MaxPageBytes+1024 {
			t.Errorf("page %d is %d bytes, over the %d byte limit", pages, len(data), setups.MaxPageBytes)
		}
		total += len(list)
		pages++
		if cursor = header.Get("X-Next-Cursor"); cursor == "" {
			break
		}
		if len(list) == 0 || pages > n {
			t.Fatalf("page %d holds %d setups with a next cursor", pages, len(list))
		}
	}
	if total != n || pages < 2 {
		t.Errorf("listed %d setups in %d pages, want %d in more than one page", total, pages, n)
	}
}
