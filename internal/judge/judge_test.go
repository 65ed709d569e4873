package judge_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/judge"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
)

var (
	inputSchema  = []judge.Field{{Name: "question", Type: judge.TypeString}, {Name: "answer", Type: judge.TypeString}}
	outputSchema = []judge.Field{{Name: "passed", Type: judge.TypeBoolean}, {Name: "score", Type: judge.TypeNumber}, {Name: "reason", Type: judge.TypeString}}
	goodJSON     = `{"passed": true, "score": 0.9, "reason": "cites the policy"}`
	input        = map[string]any{"question": "Can I get a refund?", "answer": "Per policy 4.2, within 30 days."}
)

func spec(provider string) judge.Spec {
	return judge.Spec{Provider: provider, Model: "judge-model", InputSchema: inputSchema, OutputSchema: outputSchema,
		Messages: []judge.Message{
			{Role: "system", Content: "You grade support answers."},
			{Role: "user", Content: "Question: {{question}}\nAnswer: {{answer}}"},
		}}
}

// client returns a client with one provider named "p" of type typ at srv.
func client(t *testing.T, srv *judgetest.Server, typ string, mutate func(*judge.ProviderConfig)) *judge.Client {
	t.Helper()
	cfg := judge.ProviderConfig{Name: "p", Type: typ, BaseURL: srv.URL, APIKey: "sk-test-secret-key", Timeout: 5 * time.Second, MaxRetries: 2, MaxRetryWait: 3 * time.Second}
	if typ == judge.TypeOpenAI {
		cfg.BaseURL = srv.OpenAIBaseURL()
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := judge.New([]judge.ProviderConfig{cfg})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustError(t *testing.T, err error, kind judge.Kind, contains ...string) *judge.Error {
	t.Helper()
	je, ok := judge.AsError(err)
	if !ok {
		t.Fatalf("err = %v (%T), want a *judge.Error of kind %s", err, err, kind)
	}
	if je.Kind != kind {
		t.Fatalf("kind = %s, want %s: %v", je.Kind, kind, err)
	}
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("error %q does not say %q", err.Error(), c)
		}
	}
	return je
}

func TestOpenAIJSONSchema(t *testing.T) {
	srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText(goodJSON) })
	res, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
	if err != nil {
		t.Fatal(err)
	}
	if res.Output["passed"] != true || res.Output["score"] != 0.9 || res.Output["reason"] != "cites the policy" || len(res.Output) != 3 {
		t.Errorf("output = %v", res.Output)
	}
	if res.Verdict.Passed == nil || !*res.Verdict.Passed || res.Verdict.Score == nil || *res.Verdict.Score != 0.9 {
		t.Errorf("verdict = %+v", res.Verdict)
	}
	if res.Mode != "json_schema" || res.Usage != (judge.Usage{InputTokens: 42, OutputTokens: 7}) || res.Attempts != 1 {
		t.Errorf("mode %s, usage %+v, attempts %d", res.Mode, res.Usage, res.Attempts)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests = %+v", reqs)
	}
	r := reqs[0]
	if r.Header.Get("Authorization") != "Bearer sk-test-secret-key" || r.Body["model"] != "judge-model" || r.Body["temperature"] != 0.0 {
		t.Errorf("auth %q, model %v, temperature %v", r.Header.Get("Authorization"), r.Body["model"], r.Body["temperature"])
	}
	msgs := r.Body["messages"].([]any)
	if got := msgs[1].(map[string]any)["content"]; got != "Question: Can I get a refund?\nAnswer: Per policy 4.2, within 30 days." {
		t.Errorf("rendered prompt = %q", got)
	}
	rf, _ := r.Body["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	schema, _ := js["schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["strict"] != true || schema["additionalProperties"] != false || len(schema["required"].([]any)) != 3 {
		t.Errorf("response_format = %v", rf)
	}
}

// TestOpenAIFallbacks: a server refusing response_format (400) gets a
// tool call; one refusing tools too gets the text instruction, and its
// JSON is found in prose. The mode that worked is where the next call
// starts.
func TestOpenAIFallbacks(t *testing.T) {
	t.Run("tool", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			if r.Body["response_format"] != nil {
				return judgetest.OpenAIError(400, "response_format json_schema is not supported")
			}
			if r.Body["tools"] == nil || r.Body["tool_choice"] == nil {
				return judgetest.OpenAIError(400, "expected a tool call request")
			}
			return judgetest.OpenAITool(goodJSON)
		})
		c := client(t, srv, judge.TypeOpenAI, nil)
		for i := range 2 {
			res, err := c.Run(context.Background(), spec("p"), input)
			if err != nil || res.Mode != "tool" || res.Output["passed"] != true {
				t.Fatalf("call %d: %+v, %v", i, res, err)
			}
		}
		if n := len(srv.Requests()); n != 3 {
			t.Errorf("%d requests, want 3 (the second call starts with the tool)", n)
		}
	})
	t.Run("text", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			if r.Body["response_format"] != nil || r.Body["tools"] != nil {
				return judgetest.OpenAIError(400, "unsupported parameter")
			}
			return judgetest.OpenAIText("Sure! Here is my verdict:\n```json\n" + goodJSON + "\n```\nHope it helps.")
		})
		res, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
		if err != nil || res.Mode != "text" || res.Output["reason"] != "cites the policy" {
			t.Fatalf("%+v, %v", res, err)
		}
		msgs := srv.Requests()[2].Body["messages"].([]any)
		if sys := msgs[0].(map[string]any)["content"].(string); len(msgs) != 2 || !strings.HasPrefix(sys, "You grade support answers.\n\nAnswer with one JSON object") || !strings.Contains(sys, "passed (boolean)") {
			t.Errorf("the text mode's instruction is not in the leading system message: %v", msgs)
		}
	})
	t.Run("server ignoring response_format", func(t *testing.T) {
		srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText("Verdict: " + goodJSON) })
		res, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
		if err != nil || res.Mode != "json_schema" || res.Output["passed"] != true {
			t.Fatalf("%+v, %v", res, err)
		}
	})
	t.Run("every mode refused, nothing learnt", func(t *testing.T) {
		srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIError(400, "the prompt is too long") })
		c := client(t, srv, judge.TypeOpenAI, nil)
		for range 2 {
			_, err := c.Run(context.Background(), spec("p"), input)
			if je := mustError(t, err, judge.KindUpstream, "answered HTTP 400: the prompt is too long"); je.Status != 400 {
				t.Errorf("status %d, want 400", je.Status)
			}
		}
		reqs := srv.Requests()
		if len(reqs) != 6 || reqs[3].Body["response_format"] == nil {
			t.Errorf("%d requests, the second call starting with %v; want 6, each call starting with json_schema", len(reqs), reqs[3].Body)
		}
	})
	t.Run("headers sent, redacted", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			return judgetest.OpenAIError(401, "bad api-key "+r.Header.Get("Api-Key"))
		})
		c := client(t, srv, judge.TypeOpenAI, func(c *judge.ProviderConfig) {
			c.APIKey = ""
			c.Headers = map[string]string{"api-key": "azure-secret-1"}
		})
		_, err := c.Run(context.Background(), spec("p"), input)
		mustError(t, err, judge.KindUpstream, "answered HTTP 401: bad api-key [redacted]")
		if r := srv.Requests()[0]; r.Header.Get("Api-Key") != "azure-secret-1" || r.Header.Get("Authorization") != "" {
			t.Errorf("headers = %v", r.Header)
		}
	})
}

func TestBadAnswers(t *testing.T) {
	huge := strings.Repeat("verdict unclear. ", 20000) // 340 KB of prose
	for _, tc := range []struct {
		name  string
		reply judgetest.Reply
		kind  judge.Kind
		says  []string
		raw   string
	}{
		{"malformed JSON", judgetest.OpenAIText(`{"passed": tru`), judge.KindOutput, []string{"the answer holds no JSON object"}, `{"passed": tru`},
		{"prose only", judgetest.OpenAIText("I think it is fine."), judge.KindOutput, []string{"holds no JSON object"}, "I think it is fine."},
		{"empty", judgetest.OpenAIText(""), judge.KindOutput, []string{"the answer is empty"}, ""},
		{"wrong types", judgetest.OpenAIText(`{"passed": "yes", "score": "high", "reason": "ok"}`), judge.KindOutput,
			[]string{`passed: want a boolean, got the string "yes"`, `score: want a number, got the string "high"`}, `{"passed": "yes"`},
		{"missing field", judgetest.OpenAIText(`{"passed": true, "reason": "ok"}`), judge.KindOutput, []string{"does not fit output_schema: score: missing"}, ""},
		{"not a chat completion", judgetest.Reply{Body: "<html>gateway</html>"}, judge.KindOutput, []string{"not a chat completion"}, "<html>gateway</html>"},
		{"huge prose, raw bounded", judgetest.OpenAIText(huge), judge.KindOutput, []string{"holds no JSON object", "more bytes)"}, "verdict unclear. verdict"},
		{"answer over max_response_bytes", judgetest.OpenAIText(strings.Repeat("x", 2<<20)), judge.KindUpstream, []string{"larger than max_response_bytes (1048576 bytes)"}, ""},
		{"unauthorized, key redacted", judgetest.OpenAIError(401, "Incorrect API key provided: sk-test-secret-key"), judge.KindUpstream,
			[]string{"answered HTTP 401: Incorrect API key provided: [redacted]"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return tc.reply })
			_, err := client(t, srv, judge.TypeOpenAI, func(c *judge.ProviderConfig) { c.MaxRetries = 0 }).Run(context.Background(), spec("p"), input)
			je := mustError(t, err, tc.kind, tc.says...)
			if !strings.HasPrefix(je.Raw, tc.raw) {
				t.Errorf("raw = %.80q, want it to start with %q", je.Raw, tc.raw)
			}
			if len(je.Raw) > judge.RawLimit+40 {
				t.Errorf("raw is %d bytes, more than the bound %d", len(je.Raw), judge.RawLimit)
			}
			if strings.Contains(err.Error(), "sk-test-secret-key") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	t.Run("429 honours Retry-After", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			if r.N == 1 {
				return judgetest.RateLimited(1)
			}
			return judgetest.OpenAIText(goodJSON)
		})
		start := time.Now()
		res, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
		if err != nil || res.Attempts != 2 {
			t.Fatalf("%+v, %v; want success on the second attempt", res, err)
		}
		if waited := time.Since(start); waited < time.Second {
			t.Errorf("retried after %s, before the 1s Retry-After", waited)
		}
	})
	t.Run("429 asking too long a wait", func(t *testing.T) {
		srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.RateLimited(120) })
		start := time.Now()
		_, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
		je := mustError(t, err, judge.KindRateLimited, "answered HTTP 429: Rate limit reached", "asks to wait 2m0s, more than max_retry_wait 3s")
		if je.RetryAfter != 2*time.Minute || len(srv.Requests()) != 1 || time.Since(start) > time.Second {
			t.Errorf("retry after %s, %d requests, %s", je.RetryAfter, len(srv.Requests()), time.Since(start))
		}
	})
	t.Run("500 then success", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			if r.N <= 2 {
				return judgetest.OpenAIError(500, "internal error")
			}
			return judgetest.OpenAIText(goodJSON)
		})
		res, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
		if err != nil || res.Attempts != 3 {
			t.Fatalf("%+v, %v; want success on the third attempt", res, err)
		}
	})
	t.Run("500 every time", func(t *testing.T) {
		srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIError(503, "overloaded") })
		_, err := client(t, srv, judge.TypeOpenAI, nil).Run(context.Background(), spec("p"), input)
		je := mustError(t, err, judge.KindUpstream, "judge provider p: answered HTTP 503: overloaded")
		if je.Status != 503 || len(srv.Requests()) != 3 {
			t.Errorf("status %d after %d requests, want 503 after 3 (1 + 2 retries)", je.Status, len(srv.Requests()))
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		c, err := judge.New([]judge.ProviderConfig{{Name: "p", Type: judge.TypeOpenAI, BaseURL: "http://127.0.0.1:1/v1", MaxRetries: 1, MaxRetryWait: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Run(context.Background(), spec("p"), input)
		mustError(t, err, judge.KindUpstream, "cannot reach the provider")
	})
}

func TestSlowAnswerTimesOut(t *testing.T) {
	srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply {
		r := judgetest.OpenAIText(goodJSON)
		r.Delay = 10 * time.Second
		return r
	})
	start := time.Now()
	_, err := client(t, srv, judge.TypeOpenAI, func(c *judge.ProviderConfig) { c.Timeout = 200 * time.Millisecond }).Run(context.Background(), spec("p"), input)
	mustError(t, err, judge.KindTimeout, "no answer within the timeout (200ms)")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s with a 200ms timeout", d)
	}
}

func TestConcurrencyCap(t *testing.T) {
	srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply {
		r := judgetest.OpenAIText(goodJSON)
		r.Delay = 50 * time.Millisecond
		return r
	})
	c := client(t, srv, judge.TypeOpenAI, func(c *judge.ProviderConfig) { c.MaxConcurrency = 2 })
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Run(context.Background(), spec("p"), input)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if n := srv.MaxInFlight(); n != 2 {
		t.Errorf("%d calls in flight at once, want the cap of 2", n)
	}
	// A cap full for the whole timeout: KindBusy. The first call holds
	// the only slot while it waits out a 1s Retry-After.
	limited := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.RateLimited(1) })
	c = client(t, limited, judge.TypeOpenAI, func(c *judge.ProviderConfig) { c.MaxConcurrency = 1; c.Timeout = 150 * time.Millisecond })
	go func() { _, _ = c.Run(context.Background(), spec("p"), input) }()
	time.Sleep(50 * time.Millisecond)
	_, err := c.Run(context.Background(), spec("p"), input)
	mustError(t, err, judge.KindBusy, "all 1 slots (max_concurrency) stayed busy for 150ms")
}

func TestAnthropic(t *testing.T) {
	t.Run("tool", func(t *testing.T) {
		srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.AnthropicTool(goodJSON) })
		res, err := client(t, srv, judge.TypeAnthropic, nil).Run(context.Background(), spec("p"), input)
		if err != nil || res.Mode != "tool" || res.Output["score"] != 0.9 || res.Usage != (judge.Usage{InputTokens: 30, OutputTokens: 5}) {
			t.Fatalf("%+v, %v", res, err)
		}
		r := srv.Requests()[0]
		if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "sk-test-secret-key" || r.Header.Get("Anthropic-Version") != "2023-06-01" || r.Header.Get("Authorization") != "" {
			t.Errorf("path %s, headers %v", r.Path, r.Header)
		}
		if r.Body["system"] != "You grade support answers." || len(r.Body["messages"].([]any)) != 1 || r.Body["max_tokens"] != 1024.0 || r.Body["temperature"] != 0.0 {
			t.Errorf("body = %v", r.Body)
		}
		if tc := r.Body["tool_choice"].(map[string]any); tc["type"] != "tool" || tc["name"] != "record_evaluation" {
			t.Errorf("tool_choice = %v", tc)
		}
	})
	t.Run("tool refused, text", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			if r.Body["tools"] != nil {
				return judgetest.AnthropicError(400, "tools are not supported by this model")
			}
			return judgetest.AnthropicText(goodJSON)
		})
		res, err := client(t, srv, judge.TypeAnthropic, nil).Run(context.Background(), spec("p"), input)
		if err != nil || res.Mode != "text" {
			t.Fatalf("%+v, %v", res, err)
		}
		if sys := srv.Requests()[1].Body["system"].(string); !strings.Contains(sys, "You grade support answers.") || !strings.Contains(sys, "Answer with one JSON object") {
			t.Errorf("system = %q", sys)
		}
	})
	t.Run("overloaded 529 retried", func(t *testing.T) {
		srv := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
			if r.N == 1 {
				return judgetest.AnthropicError(529, "Overloaded")
			}
			return judgetest.AnthropicTool(goodJSON)
		})
		if res, err := client(t, srv, judge.TypeAnthropic, nil).Run(context.Background(), spec("p"), input); err != nil || res.Attempts != 2 {
			t.Fatalf("%+v, %v", res, err)
		}
	})
}

func TestInputErrors(t *testing.T) {
	srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText(goodJSON) })
	c := client(t, srv, judge.TypeOpenAI, nil)
	_, err := c.Run(context.Background(), spec("p"), map[string]any{"question": "q"})
	mustError(t, err, judge.KindInput, `messages[1]: input field "answer" is missing (the prompt uses {{answer}})`)
	_, err = c.Run(context.Background(), spec("p"), map[string]any{"question": 3.0, "answer": "a"})
	mustError(t, err, judge.KindInput, "input.question: want a string, got the number 3")
	_, err = c.Run(context.Background(), spec("elsewhere"), input)
	mustError(t, err, judge.KindConfig, `provider "elsewhere" is not configured on this collector (configured: p)`)
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
}

func TestFromEnvironment(t *testing.T) {
	env := map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "ANTHROPIC_API_KEY": "a-key"}
	got := judge.FromEnvironment(func(k string) string { return env[k] })
	if len(got) != 2 || got[0].Name != "openai" || got[0].BaseURL != "http://localhost:11434/v1" || got[0].APIKey != "" ||
		got[1].Name != "anthropic" || got[1].APIKey != "a-key" || got[1].BaseURL != "" {
		t.Errorf("FromEnvironment = %+v", got)
	}
	if got := judge.FromEnvironment(func(string) string { return "" }); len(got) != 0 {
		t.Errorf("an empty environment gives %+v, want no provider", got)
	}
	if _, err := judge.New([]judge.ProviderConfig{{Name: "x", Type: "gemini"}}); err == nil || !strings.Contains(err.Error(), `unknown type "gemini"`) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestRateLimits(t *testing.T) {
	srv := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText(goodJSON) })
	// One request a minute: the second call would wait ~1 minute, past
	// the timeout, so it is refused at once without reaching the server.
	c := client(t, srv, judge.TypeOpenAI, func(c *judge.ProviderConfig) { c.RequestsPerMinute = 1; c.Timeout = 200 * time.Millisecond })
	if _, err := c.Run(context.Background(), spec("p"), input); err != nil {
		t.Fatal(err)
	}
	_, err := c.Run(context.Background(), spec("p"), input)
	mustError(t, err, judge.KindRateLimited, "requests_per_minute 1")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests reached the provider, want 1", n)
	}
	// Tokens a minute: the first call spends the minute's tokens; the next
	// waits for them.
	tokens := judgetest.New(t, func(judgetest.Request) judgetest.Reply { return judgetest.OpenAIText(goodJSON) })
	c = client(t, tokens, judge.TypeOpenAI, func(c *judge.ProviderConfig) { c.TokensPerMinute = 20; c.Timeout = 200 * time.Millisecond })
	res, err := c.Run(context.Background(), spec("p"), input)
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.InputTokens+res.Usage.OutputTokens < 20 {
		t.Skipf("the fake answer used %d tokens, too few to spend the budget", res.Usage.InputTokens+res.Usage.OutputTokens)
	}
	_, err = c.Run(context.Background(), spec("p"), input)
	mustError(t, err, judge.KindRateLimited, "tokens_per_minute 20")
	if n := len(tokens.Requests()); n != 1 {
		t.Errorf("%d requests reached the provider, want 1", n)
	}
}
