package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/clickhouse"
)

const (
	keyOtherProject = "key-org-a-other-project"
	providerKey     = "sk-provider-secret-0123456789"
)

// judgeServer is a test API with custom evaluators whose provider "local"
// is a fake OpenAI-compatible server answering what reply returns.
type judgeServer struct {
	*testServer
	llm   *judgetest.Server
	mu    sync.Mutex
	reply func(judgetest.Request) judgetest.Reply
}

func (j *judgeServer) answer(f func(judgetest.Request) judgetest.Reply) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.reply = f
}

func newJudgeServer(t *testing.T, timeout time.Duration) *judgeServer {
	t.Helper()
	return newJudgeServerOn(t, nil, timeout)
}

// newJudgeServerOn is newJudgeServer on the given warehouse (nil: a new
// SQLite one).
func newJudgeServerOn(t *testing.T, store warehouse.Store, timeout time.Duration) *judgeServer {
	t.Helper()
	j := &judgeServer{reply: func(judgetest.Request) judgetest.Reply {
		return judgetest.OpenAIText(`{"passed": true, "score": 0.8, "reason": "cites the policy"}`)
	}}
	j.llm = judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
		j.mu.Lock()
		f := j.reply
		j.mu.Unlock()
		return f(r)
	})
	client, err := judge.New([]judge.ProviderConfig{{Name: "local", Type: judge.TypeOpenAI, BaseURL: j.llm.OpenAIBaseURL(), APIKey: providerKey,
		Timeout: timeout, MaxRetries: 1, MaxRetryWait: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(o *Options) {
		o.Keys = tenant.NewKeyring([]tenant.Key{
			{Secret: keyA, Tenant: tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}},
			{Secret: keyB, Tenant: tenant.Tenant{Environment: "env-b", OrganizationID: "org-b", ProjectID: "p-b"}},
			{Secret: keyOtherProject, Tenant: tenant.Tenant{Environment: "env-a2", OrganizationID: "org-a", ProjectID: "p-other"}},
		})
		o.CustomEvaluators = customevaluators.New(customevaluators.Options{Store: o.Store, Judge: client,
			IsPrebuilt: func(s string) bool { _, ok := evaluators.Lookup(s); return ok }})
	}
	if store == nil {
		j.testServer = newTestServer(t, mutate)
	} else {
		j.testServer = newTestServerOn(t, store, mutate)
	}
	return j
}

// onBothWarehouses runs test against a judge server on SQLite and, when
// EVALCOL_CLICKHOUSE_ADDR is set, on ClickHouse.
func onBothWarehouses(t *testing.T, test func(t *testing.T, j *judgeServer)) {
	t.Run("sqlite", func(t *testing.T) { test(t, newJudgeServer(t, 5*time.Second)) })
	t.Run("clickhouse", func(t *testing.T) {
		addr := os.Getenv("EVALCOL_CLICKHOUSE_ADDR")
		if addr == "" {
			t.Skip("EVALCOL_CLICKHOUSE_ADDR is not set (scripts/clickhouse.sh start prints it)")
		}
		opts := clickhouse.Options{Addr: addr, Database: fmt.Sprintf("evalcol_custom_evaluators_%x", time.Now().UnixNano())}
		t.Cleanup(func() { _ = clickhouse.DropDatabase(context.Background(), opts) })
		st, err := clickhouse.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		test(t, newJudgeServerOn(t, st, 5*time.Second))
	})
}

// refundJudge is the body the Traceloop SDK sends for create.
const refundJudge = `{"name": "Refund Policy", "description": "Cites the refund policy", "provider": "local", "model": "qwen2.5:7b",
	"messages": [{"role": "system", "content": "You check support answers."}, {"role": "user", "content": "Question: {{question}}\nAnswer: {{answer}}"}],
	"input_schema": [{"name": "question", "type": "string"}, {"name": "answer", "type": "string", "description": "the reply"}],
	"output_schema": [{"name": "passed", "type": "boolean"}, {"name": "score", "type": "number"}, {"name": "reason", "type": "string"}],
	"max_tokens": 200}`

const refundInput = `{"input": {"question": "Can I get a refund?", "answer": "Yes, within 30 days (policy 4.2)."}}`

func (j *judgeServer) create(t *testing.T, auth, body string) map[string]any {
	t.Helper()
	st, got := j.do(t, "POST", "/v2/evaluators", auth, []byte(body))
	if st != http.StatusCreated {
		t.Fatalf("create = %d %v", st, got)
	}
	return got
}

func TestCustomEvaluatorLifecycle(t *testing.T) { onBothWarehouses(t, testCustomEvaluatorLifecycle) }

func testCustomEvaluatorLifecycle(t *testing.T, j *judgeServer) {
	created := j.create(t, authA, refundJudge)
	id, _ := created["evaluator_id"].(string)
	if !strings.HasPrefix(id, "ce_") || created["slug"] != "refund-policy" || created["version"] != "1" {
		t.Fatalf("create answered %v", created)
	}

	for _, ref := range []string{id, "refund-policy"} {
		st, got := j.do(t, "GET", "/v2/evaluators/"+ref, authA, nil)
		if st != 200 || got["id"] != id || got["name"] != "Refund Policy" || got["source"] != "custom" || got["version"] != "1" || got["type"] != "llm_as_a_judge" {
			t.Fatalf("GET %s = %d %v", ref, st, got)
		}
		cfg := got["config"].(map[string]any)
		llm := cfg["llm_config"].(map[string]any)
		if cfg["provider"] != "local" || llm["model"] != "qwen2.5:7b" || llm["max_tokens"] != 200.0 || len(cfg["messages"].([]any)) != 2 {
			t.Errorf("config = %v", cfg)
		}
	}

	// Listing: prebuilt first, then custom; ?source keeps one.
	for _, tc := range []struct {
		query          string
		prebuilt, cust int
	}{{"", 35, 1}, {"?source=custom", 0, 1}, {"?source=prebuilt", 35, 0}} {
		st, got := j.do(t, "GET", "/v2/evaluators"+tc.query, authA, nil)
		if st != 200 {
			t.Fatalf("list%s = %d %v", tc.query, st, got)
		}
		counts := map[string]int{}
		for _, e := range got["evaluators"].([]any) {
			counts[e.(map[string]any)["source"].(string)]++
		}
		if counts["prebuilt"] != tc.prebuilt || counts["custom"] != tc.cust {
			t.Errorf("list%s = %v, want %d prebuilt and %d custom", tc.query, counts, tc.prebuilt, tc.cust)
		}
	}
	if st, got := j.do(t, "GET", "/v2/evaluators?source=mine", authA, nil); st != 400 || !strings.Contains(got["error"].(string), `source: "mine" is not a source`) {
		t.Errorf("bad source = %d %v", st, got)
	}

	// Execute on every path, by slug and by id.
	for _, p := range []string{"/v2/evaluators/refund-policy/execute", "/v2/evaluators/execute/refund-policy", "/v2/evaluators/" + id + "/execute"} {
		st, header, body := j.send(t, "POST", p, authA, []byte(refundInput))
		var out map[string]any
		_ = json.Unmarshal(body, &out)
		if st != 200 || out["passed"] != true || out["score"] != 0.8 || out["reason"] != "cites the policy" || len(out) != 3 {
			t.Fatalf("POST %s = %d %s", p, st, body)
		}
		if header.Get("X-Evaluator-Version") != "1" || header.Get("X-Evaluator-Id") != id || header.Get("X-Judge-Input-Tokens") != "42" ||
			header.Get("X-Judge-Output-Tokens") != "7" || header.Get("X-Judge-Mode") != "json_schema" {
			t.Errorf("POST %s headers = %v", p, header)
		}
	}
	req := j.llm.Requests()[0]
	msgs := req.Body["messages"].([]any)
	if req.Body["model"] != "qwen2.5:7b" || req.Body["max_tokens"] != 200.0 || req.Body["temperature"] != 0.0 ||
		msgs[1].(map[string]any)["content"] != "Question: Can I get a refund?\nAnswer: Yes, within 30 days (policy 4.2)." ||
		req.Header.Get("Authorization") != "Bearer "+providerKey {
		t.Errorf("the judge request = %v %v", req.Header, req.Body)
	}
	if st, got := j.do(t, "POST", "/v2/guardrails/refund-policy/execute", authA, []byte(refundInput)); st != 200 || got["pass"] != true || got["result"].(map[string]any)["score"] != 0.8 {
		t.Errorf("guardrail = %d %v", st, got)
	}
	// Prebuilt slugs keep their own evaluators on the same paths.
	if st, got := j.do(t, "POST", "/v2/evaluators/char-count/execute", authA, []byte(`{"input":{"text":"abc"}}`)); st != 200 || got["char_count"] != 3.0 {
		t.Errorf("char-count = %d %v", st, got)
	}
	if st, got := j.do(t, "GET", "/v2/evaluators/char-count", authA, nil); st != 200 || got["source"] != "prebuilt" || got["slug"] != "char-count" {
		t.Errorf("GET char-count = %d %v", st, got)
	}
	for _, m := range []string{"PATCH", "DELETE"} {
		if st, got := j.do(t, m, "/v2/evaluators/char-count", authA, []byte(`{"name":"x"}`)); st != 403 {
			t.Errorf("%s char-count = %d %v, want 403", m, st, got)
		}
	}

	// The SDK's update: config and config.llm_config, field by field; a
	// new version.
	st, got := j.do(t, "PATCH", "/v2/evaluators/refund-policy", authA, []byte(`{"name": "Refund Policy v2", "config": {"llm_config": {"model": "llama3.1:8b", "temperature": 0.2}}}`))
	if st != 200 {
		t.Fatalf("PATCH = %d %v", st, got)
	}
	ev := got["evaluator"].(map[string]any)
	llm := ev["config"].(map[string]any)["llm_config"].(map[string]any)
	if ev["id"] != id || ev["version"] != "2" || ev["name"] != "Refund Policy v2" || llm["model"] != "llama3.1:8b" || llm["temperature"] != 0.2 || llm["max_tokens"] != 200.0 {
		t.Errorf("PATCH answered %v", ev)
	}
	st, header, _ := j.send(t, "POST", "/v2/evaluators/refund-policy/execute", authA, []byte(refundInput))
	reqs := j.llm.Requests()
	if last := reqs[len(reqs)-1]; st != 200 || header.Get("X-Evaluator-Version") != "2" || last.Body["model"] != "llama3.1:8b" || last.Body["temperature"] != 0.2 {
		t.Errorf("after PATCH: %d, version %s, model %v", st, header.Get("X-Evaluator-Version"), last.Body["model"])
	}
	if st, got := j.do(t, "PATCH", "/v2/evaluators/refund-policy", authA, []byte(`{}`)); st != 400 || !strings.Contains(got["error"].(string), "names nothing to change") {
		t.Errorf("empty PATCH = %d %v", st, got)
	}
	if st, got := j.do(t, "PATCH", "/v2/evaluators/refund-policy", authA, []byte(`{"config": {"provider": "elsewhere"}}`)); st != 400 || !strings.Contains(got["error"].(string), `provider: "elsewhere" is not a judge provider of this collector (configured: local)`) {
		t.Errorf("PATCH to an unknown provider = %d %v", st, got)
	}

	// Delete: gone everywhere, the slug free again.
	if st, _, _ := j.send(t, "DELETE", "/v2/evaluators/refund-policy", authA, nil); st != http.StatusNoContent {
		t.Fatalf("DELETE = %d", st)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v2/evaluators/" + id, ""}, {"POST", "/v2/evaluators/refund-policy/execute", refundInput}, {"DELETE", "/v2/evaluators/" + id, ""},
	} {
		if st, got := j.do(t, c.method, c.path, authA, []byte(c.body)); st != 404 || !strings.Contains(got["error"].(string), "evaluator not found") {
			t.Errorf("%s %s after delete = %d %v", c.method, c.path, st, got)
		}
	}
	if again := j.create(t, authA, refundJudge); again["slug"] != "refund-policy" || again["evaluator_id"] == id {
		t.Errorf("re-create = %v", again)
	}
}

func TestCustomEvaluatorValidation(t *testing.T) {
	j := newJudgeServer(t, 5*time.Second)
	j.create(t, authA, refundJudge)
	patch := func(field, value string) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(refundJudge), &m)
		if value == "" {
			delete(m, field)
		} else {
			var v any
			if err := json.Unmarshal([]byte(value), &v); err != nil {
				t.Fatal(err)
			}
			m[field] = v
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		msg        string
	}{
		{"not JSON", `{"name":`, 400, "body: is not valid JSON"},
		{"no name", patch("name", ""), 400, "name: is required"},
		{"empty name", patch("name", `"  "`), 400, "name: must not be empty"},
		{"name of the wrong type", patch("name", `3`), 400, "name: must be a string"},
		{"no provider", patch("provider", ""), 400, "provider: is required"},
		{"unknown provider", patch("provider", `"openai"`), 400, `provider: "openai" is not a judge provider of this collector (configured: local)`},
		{"no model", patch("model", ""), 400, "model: is required"},
		{"no messages", patch("messages", `[]`), 400, "messages: must hold at least one message"},
		{"bad role", patch("messages", `[{"role": "tool", "content": "x"}]`), 400, `messages[0].role: "tool" is not a role (use system, user, assistant)`},
		{"placeholder not an input", patch("messages", `[{"role": "user", "content": "{{question}} {{context}}"}]`), 400, "messages[0].content: {{context}} is not a field of input_schema"},
		{"no output schema", patch("output_schema", ""), 400, "output_schema: is required"},
		{"bad output type", patch("output_schema", `[{"name": "passed", "type": "bool"}]`), 400, `output_schema[0].type: "bool" is not a type`},
		{"bad temperature", patch("temperature", `3`), 400, "temperature: must be between 0 and 2, got 3"},
		{"fractional max_tokens", patch("max_tokens", `1.5`), 400, "max_tokens: must be an integer between 1 and 1000000"},
		{"bad slug", patch("slug", `"Refund Policy"`), 400, `slug: "Refund Policy" may hold only lower-case letters, digits and dashes`},
		{"id-shaped slug", patch("slug", `"ce_123"`), 400, "slug:"},
		{"taken slug", refundJudge, 409, `slug: "refund-policy" is taken by another evaluator of this project`},
		{"prebuilt slug", patch("slug", `"faithfulness"`), 409, `slug: "faithfulness" is a prebuilt evaluator's slug`},
		{"reserved slug", patch("slug", `"execute"`), 409, `slug: "execute" is a path segment of the API`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, got := j.do(t, "POST", "/v2/evaluators", authA, []byte(tc.body))
			if st != tc.status || !strings.Contains(got["error"].(string), tc.msg) {
				t.Errorf("= %d %v, want %d with %q", st, got, tc.status, tc.msg)
			}
		})
	}
}

// TestCustomEvaluatorTenancy: another organization, or another project of
// the same organization, never sees, runs, changes or deletes them.
func TestCustomEvaluatorTenancy(t *testing.T) { onBothWarehouses(t, testCustomEvaluatorTenancy) }

func testCustomEvaluatorTenancy(t *testing.T, j *judgeServer) {
	id := j.create(t, authA, refundJudge)["evaluator_id"].(string)
	for _, key := range []string{"Bearer " + keyB, "Bearer " + keyOtherProject} {
		for _, c := range []struct{ method, path, body string }{
			{"GET", "/v2/evaluators/" + id, ""}, {"GET", "/v2/evaluators/refund-policy", ""},
			{"POST", "/v2/evaluators/refund-policy/execute", refundInput}, {"POST", "/v2/evaluators/execute/" + id, refundInput},
			{"POST", "/v2/guardrails/refund-policy/execute", refundInput},
			{"PATCH", "/v2/evaluators/" + id, `{"name": "mine"}`}, {"DELETE", "/v2/evaluators/refund-policy", ""},
		} {
			if st, got := j.do(t, c.method, c.path, key, []byte(c.body)); st != 404 {
				t.Errorf("%s %s with another tenant's key = %d %v, want 404", c.method, c.path, st, got)
			}
		}
		if st, got := j.do(t, "GET", "/v2/evaluators?source=custom", key, nil); st != 200 || len(got["evaluators"].([]any)) != 0 {
			t.Errorf("another tenant lists %v", got)
		}
	}
	// The same slug is free in another organization; each key runs its own.
	j.create(t, "Bearer "+keyB, strings.Replace(refundJudge, "qwen2.5:7b", "org-b-model", 1))
	before := len(j.llm.Requests())
	if st, got := j.do(t, "POST", "/v2/evaluators/refund-policy/execute", authA, []byte(refundInput)); st != 200 {
		t.Fatalf("run = %d %v", st, got)
	}
	if reqs := j.llm.Requests(); len(reqs) != before+1 || reqs[before].Body["model"] != "qwen2.5:7b" {
		t.Errorf("org-a's run used model %v", reqs[before].Body["model"])
	}
	if st, got := j.do(t, "GET", "/v2/evaluators/refund-policy", authA, nil); st != 200 || got["id"] != id {
		t.Errorf("org-a's own = %d %v", st, got)
	}
}

func TestCustomEvaluatorJudgeFailures(t *testing.T) {
	j := newJudgeServer(t, 300*time.Millisecond)
	j.create(t, authA, refundJudge)
	run := func(t *testing.T, body string) (int, http.Header, map[string]any) {
		t.Helper()
		st, header, data := j.send(t, "POST", "/v2/evaluators/refund-policy/execute", authA, []byte(body))
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%d %s", st, data)
		}
		if strings.Contains(string(data), providerKey) {
			t.Errorf("the answer shows the provider key: %s", data)
		}
		return st, header, out
	}
	for _, tc := range []struct {
		name   string
		reply  func(judgetest.Request) judgetest.Reply
		input  string
		status int
		msg    []string
		retry  string
	}{
		{"missing input field", nil, `{"input": {"question": "q"}}`, 400, []string{`messages[1]: input field "answer" is missing (the prompt uses {{answer}})`}, ""},
		{"input of the wrong type", nil, `{"input": {"question": "q", "answer": 4}}`, 400, []string{"input.answer: want a string, got the number 4"}, ""},
		{"no input", nil, `{}`, 400, []string{"input: is required"}, ""},
		{"input not an object", nil, `{"input": "text"}`, 400, []string{"input: must be a JSON object"}, ""},
		{"response_format refused, tool call", func(r judgetest.Request) judgetest.Reply {
			if r.Body["response_format"] != nil {
				return judgetest.OpenAIError(400, "'response_format' is not supported")
			}
			return judgetest.OpenAITool(`{"passed": false, "score": 0.1, "reason": "no policy cited"}`)
		}, refundInput, 200, nil, ""},
		{"malformed JSON", func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText(`{"passed": maybe}`) }, refundInput, 502,
			// (tool mode: the server refused response_format above, which the
			// client remembers for the model)
			[]string{"judge provider local: model qwen2.5:7b (tool mode): the answer holds no JSON object; raw answer: {\"passed\": maybe}"}, ""},
		{"wrong output types", func(judgetest.Request) judgetest.Reply {
			return judgetest.OpenAIText(`{"passed": "yes", "score": 1, "reason": "ok"}`)
		}, refundInput, 502, []string{`does not fit output_schema: passed: want a boolean, got the string "yes"`}, ""},
		{"429 asking a long wait", func(judgetest.Request) judgetest.Reply { return judgetest.RateLimited(30) }, refundInput, 429,
			[]string{"answered HTTP 429: Rate limit reached", "more than max_retry_wait 2s"}, "30"},
		{"500", func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIError(500, "the model crashed") }, refundInput, 502,
			[]string{"judge provider local: answered HTTP 500: the model crashed"}, ""},
		{"401, key never shown", func(judgetest.Request) judgetest.Reply {
			return judgetest.OpenAIError(401, "Incorrect API key provided: "+providerKey)
		}, refundInput, 502, []string{"answered HTTP 401: Incorrect API key provided: [redacted]"}, ""},
		{"slow", func(judgetest.Request) judgetest.Reply {
			r := judgetest.OpenAIText(`{"passed": true, "score": 1, "reason": "late"}`)
			r.Delay = 5 * time.Second
			return r
		}, refundInput, 504, []string{"no answer within the timeout (300ms)"}, ""},
		{"huge prose", func(judgetest.Request) judgetest.Reply {
			return judgetest.OpenAIText(strings.Repeat("so long ", 100_000))
		}, refundInput, 502,
			[]string{"holds no JSON object", "more bytes)"}, ""},
		{"over max_response_bytes", func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText(strings.Repeat("x", 3<<20)) }, refundInput, 502,
			[]string{"larger than max_response_bytes"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.reply != nil {
				j.answer(tc.reply)
			}
			st, header, out := run(t, tc.input)
			if st != tc.status {
				t.Fatalf("= %d %v, want %d", st, out, tc.status)
			}
			for _, m := range tc.msg {
				if msg, _ := out["error"].(string); !strings.Contains(msg, m) {
					t.Errorf("error %q does not say %q", msg, m)
				}
			}
			if msg, _ := out["error"].(string); len(msg) > 4<<10 {
				t.Errorf("the error is %d bytes: the raw answer is not bounded", len(msg))
			}
			if got := header.Get("Retry-After"); got != tc.retry {
				t.Errorf("Retry-After = %q, want %q", got, tc.retry)
			}
			if st == 200 && (out["passed"] != false || header.Get("X-Judge-Mode") != "tool") {
				t.Errorf("the tool fallback answered %v via %s", out, header.Get("X-Judge-Mode"))
			}
		})
	}
	// No answer of the API shows the provider key.
	for _, p := range []string{"/v2/evaluators/refund-policy", "/v2/evaluators", "/v2/openapi.json"} {
		if _, _, body := j.send(t, "GET", p, authA, nil); strings.Contains(string(body), providerKey) || strings.Contains(string(body), j.llm.URL) {
			t.Errorf("GET %s shows the provider's key or URL", p)
		}
	}
}
