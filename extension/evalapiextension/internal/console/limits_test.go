package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
)

// TestPlaygroundUnderKeyLimits: the playground's runs are charged to the
// evaluator limits of the key that logged in, shared with the key's /v2
// executions: while key A's one allowed evaluation runs through the API,
// A's playground answers 429 with Retry-After and the limit's name, and
// runs nothing; key B's playground still runs; A's runs again once its
// evaluation ended.
func TestPlaygroundUnderKeyLimits(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	s := newTestServerAPI(t, false, nil, func(o *httpapi.Options) {
		o.EvaluatorLimits = httpapi.EvaluatorLimits{MaxConcurrent: 1, MaxWait: 100 * time.Millisecond}
		o.RunEvaluator = func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
			if req.Text("text") == "block" {
				once.Do(func() { close(started) })
				<-release
			}
			return def.Run(ctx, req)
		}
	})
	done := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.URL+"/v2/evaluators/execute/char-count", strings.NewReader(`{"input":{"text":"block"}}`))
		req.Header.Set("Authorization", "Bearer "+keyA)
		resp, err := s.Client().Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	<-started

	run := func(c *http.Client, text string) answer {
		token := csrf(t, do(t, c, "GET", s.URL+"/ui/evaluators/char-count", nil).body)
		return do(t, c, "POST", s.URL+"/ui/evaluators/char-count", url.Values{"csrf": {token}, "input.text": {text}})
	}
	a, b := s.client(t), s.client(t)
	s.login(t, a, keyA)
	s.login(t, b, keyB)

	got := run(a, "seven c")
	if got.status != http.StatusTooManyRequests {
		t.Fatalf("key A's playground while A's evaluation runs: %d, want 429\n%s", got.status, got.body)
	}
	if ra := got.header.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After = %q, want 1", ra)
	}
	const msg = "concurrent evaluations limit of this API key exceeded: at most 1 at once (evaluator_limits.max_concurrent_per_key)"
	if !strings.Contains(got.body, msg) {
		t.Errorf("the refused run's page does not name the limit (%q):\n%s", msg, got.body)
	}
	if strings.Contains(got.body, `id="verdict"`) {
		t.Errorf("the refused run shows a result:\n%s", got.body)
	}

	if got := run(b, "seven c"); got.status != http.StatusOK || !strings.Contains(got.body, ">7<") {
		t.Errorf("key B's playground while A is busy: %d\n%s", got.status, got.body)
	}

	close(release)
	if status := <-done; status != http.StatusOK {
		t.Errorf("key A's API evaluation answered %d", status)
	}
	if got := run(a, "seven c"); got.status != http.StatusOK || !strings.Contains(got.body, ">7<") {
		t.Errorf("key A's playground after its evaluation ended: %d\n%s", got.status, got.body)
	}
}
