package e2etest

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// forwardExample is examples/forward.yaml as a testcollector template:
// its endpoints, warehouse and API key moved onto the harness's, failing
// the test when the file no longer has the values it replaces.
func forwardExample(t *testing.T) string {
	t.Helper()
	return exampleTemplate(t, "forward.yaml",
		[2]string{"limit_mib: 1024", "limit_mib: 4096"}, // the test process holds several collectors
		[2]string{"batch/forward: {}", "batch/forward: {timeout: 50ms}"})
}

// backendKey is the API key of the collector spans are forwarded to.
const backendKey = "key-of-the-backend"

// TestForwardWithEvaluations runs examples/forward.yaml in front of a
// second evalcol collector: a chat span sent to the first is stored there
// and arrives at the second with the first's gen_ai.evaluation.result
// events (which the second stores as the span's evaluations). While the
// second is down, the first still acknowledges and stores spans at once.
func TestForwardWithEvaluations(t *testing.T) {
	backend := testcollector.Start(t, strings.ReplaceAll(testcollector.DefaultConfig, testcollector.DefaultAPIKey, backendKey))
	t.Setenv("EVALCOL_FORWARD_ENDPOINT", "http://"+backend.OTLPHTTP)
	t.Setenv("EVALCOL_FORWARD_AUTHORIZATION", "Bearer "+backendKey)
	c := testcollector.Start(t, forwardExample(t))

	chat(t, c, "forwarded", "You are a worthless idiot.")

	check := func(who string, col *testcollector.Collector, key string) {
		t.Helper()
		var got spansResponse
		testcollector.Eventually(t, 15*time.Second, func() bool {
			_, got = querySpans(t, col, key, url.Values{"workflow": {"forwarded"}})
			return len(got.Spans.Data) == 1 && len(got.Spans.Data[0].Evaluations) == 2
		}, "%s has the span with its 2 evaluations", who)
		byName := map[string]map[string]any{}
		for _, e := range got.Spans.Data[0].Evaluations {
			byName[e["name"].(string)] = e
		}
		tox, pii := byName["toxicity-detector"], byName["pii-detector"]
		if tox == nil || pii == nil || tox["monitor_id"] != "safety" || pii["monitor_id"] != "safety" || tox["score_label"] != "unsafe" {
			t.Errorf("%s: evaluations %v, want toxicity-detector (unsafe) and pii-detector of monitor safety", who, got.Spans.Data[0].Evaluations)
		}
	}
	check("the first collector's warehouse", c, testcollector.DefaultAPIKey)
	check("the backend", backend, backendKey)

	// The backend goes down: the first collector keeps acknowledging and
	// storing; the forward exporter retries in the background.
	backend.Stop()
	begin := time.Now()
	_, err := c.Send(testcollector.HTTP, testcollector.DefaultAPIKey, nil, func(tr trace.Tracer) {
		_, span := tr.Start(context.Background(), "while the backend is down")
		span.SetAttributes(attribute.String("traceloop.workflow.name", "backend-down"))
		span.End()
	})
	if err != nil {
		t.Fatalf("send while the backend is down: %v", err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("the acknowledgement took %s while the backend was down", d)
	}
	// The warehouse path is durable: the acknowledgement means the span is
	// committed, so it is there at once.
	if _, got := querySpans(t, c, testcollector.DefaultAPIKey, url.Values{"workflow": {"backend-down"}}); len(got.Spans.Data) != 1 {
		t.Errorf("right after the acknowledgement, %d spans of workflow backend-down stored, want 1", len(got.Spans.Data))
	}
}
