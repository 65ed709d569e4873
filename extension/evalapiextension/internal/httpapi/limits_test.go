package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/evaluators"
)

// callRaw posts body to path with key and returns status, Retry-After and
// the decoded JSON body.
func callRaw(t *testing.T, s *testServer, key, path, body string) (int, string, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("body %q is not JSON: %v", data, err)
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), out
}

// TestEvaluatorTimeLimitPerKey: a key whose regexes run into the 250 ms
// match timeout exhausts its evaluation time and gets 429 with Retry-After
// and an error naming the limit, for any evaluator; another key is not
// affected.
func TestEvaluatorTimeLimitPerKey(t *testing.T) {
	s := newTestServer(t, func(o *Options) {
		o.EvaluatorLimits = EvaluatorLimits{TimePerSecond: 50 * time.Millisecond, Burst: 100 * time.Millisecond, MaxWait: 50 * time.Millisecond}
	})
	catastrophic := `{"input":{"text":"` + strings.Repeat("a", 50000) + `!"},"config":{"regex":"(a+)+$"}}`
	status, _, got := callRaw(t, s, keyA, "/v2/evaluators/execute/regex-validator", catastrophic)
	requireError(t, status, got, http.StatusBadRequest, "config.regex: regex timed out after 250ms")

	for _, path := range []string{"/v2/evaluators/execute/regex-validator", "/v2/evaluators/execute/char-count", "/v2/guardrails/char-count/execute"} {
		body := `{"input":{"text":"abc"},"config":{"regex":"b"}}`
		if !strings.Contains(path, "regex") {
			body = `{"input":{"text":"abc"}}`
		}
		status, retry, got := callRaw(t, s, keyA, path, body)
		requireError(t, status, got, http.StatusTooManyRequests,
			"evaluator time limit of this API key exceeded: at most 50ms of evaluation per second, 100ms at once (evaluator_limits.time_per_second, evaluator_limits.burst)")
		if n, err := strconv.Atoi(retry); err != nil || n < 2 || n > 10 {
			t.Errorf("%s: Retry-After = %q, want the seconds until the key's debt of ~200ms is paid at 50ms/s", path, retry)
		}
	}
	// Another key evaluates at once.
	status, _, got = callRaw(t, s, keyB, "/v2/evaluators/execute/char-count", `{"input":{"text":"abc"}}`)
	if status != http.StatusOK || got["char_count"] != 3.0 {
		t.Errorf("key B: %d %v, want 200 char_count 3", status, got)
	}
}

// TestEvaluatorConcurrencyLimitPerKey: with one evaluation of a key
// running, the key's next one waits max_wait and gets 429 naming the
// limit; another key's evaluation runs meanwhile; once the first ends, the
// key evaluates again.
func TestEvaluatorConcurrencyLimitPerKey(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	started := make(chan struct{})
	s := newTestServer(t, func(o *Options) {
		o.EvaluatorLimits = EvaluatorLimits{MaxConcurrent: 1, MaxWait: 100 * time.Millisecond}
		o.RunEvaluator = func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
			if req.Text("text") == "block" {
				once.Do(func() { close(started) })
				<-release
			}
			return def.Run(ctx, req)
		}
	})
	done := make(chan int)
	go func() {
		status, _, _ := callRaw(t, s, keyA, "/v2/evaluators/execute/char-count", `{"input":{"text":"block"}}`)
		done <- status
	}()
	<-started
	begin := time.Now()
	status, retry, got := callRaw(t, s, keyA, "/v2/evaluators/execute/word-count", `{"input":{"text":"two words"}}`)
	requireError(t, status, got, http.StatusTooManyRequests,
		"concurrent evaluations limit of this API key exceeded: at most 1 at once (evaluator_limits.max_concurrent_per_key)")
	if retry != "1" {
		t.Errorf("Retry-After = %q, want 1", retry)
	}
	if waited := time.Since(begin); waited < 100*time.Millisecond {
		t.Errorf("refused after %s, want after max_wait (100ms)", waited)
	}
	if status, _, got := callRaw(t, s, keyB, "/v2/evaluators/execute/word-count", `{"input":{"text":"two words"}}`); status != http.StatusOK || got["word_count"] != 2.0 {
		t.Errorf("key B while A is busy: %d %v", status, got)
	}
	close(release)
	if status := <-done; status != http.StatusOK {
		t.Errorf("the blocked evaluation answered %d", status)
	}
	if status, _, got := callRaw(t, s, keyA, "/v2/evaluators/execute/word-count", `{"input":{"text":"two words"}}`); status != http.StatusOK || got["word_count"] != 2.0 {
		t.Errorf("key A after its evaluation ended: %d %v", status, got)
	}
}
