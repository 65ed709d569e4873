package evalapiextension_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/evalcol/evalcol/internal/judge/judgetest"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/extension/evalapiextension"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/metadata"
	"github.com/evalcol/evalcol/internal/evalapitest"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/telemetrytest"
)

var updateDocs = flag.Bool("update", false, "rewrite documentation.md from metadata.yaml")

func TestDocumentation(t *testing.T) { telemetrytest.Documentation(t, ".", *updateDocs) }

// workflowSpans are n stored spans of workflow w in the test environment,
// started a minute ago.
func workflowSpans(t *testing.T, api *evalapitest.API, w string, n int) {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("deployment.environment.name", evalapitest.Environment)
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	start := pcommon.NewTimestampFromTime(time.Now().Add(-time.Minute))
	for i := range n {
		s := spans.AppendEmpty()
		s.SetName("openai.chat")
		s.SetTraceID(pcommon.TraceID{1, byte(i >> 16), byte(i >> 8), byte(i), 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
		s.SetSpanID(pcommon.SpanID{1, byte(i >> 16), byte(i >> 8), byte(i), 5, 6, 7, 8})
		s.SetStartTimestamp(start)
		s.SetEndTimestamp(start + 1e6)
		s.Attributes().PutStr("traceloop.workflow.name", w)
		s.Attributes().PutStr("gen_ai.completion.0.content", fmt.Sprintf("answer %d", i))
	}
	batch := spanconv.Traces(td, spanconv.Options{DefaultEnvironment: evalapitest.Environment})
	if err := api.Warehouse().WriteSpans(context.Background(), batch.Spans); err != nil {
		t.Fatal(err)
	}
}

// TestTelemetryMatchesMetadata runs a real extension through a setup with
// a backfill of stored spans and compares what it recorded, while the
// backfill runs, with metadata.yaml; then checks the values.
func TestTelemetryMatchesMetadata(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	settings := tel.NewTelemetrySettings()
	fakeJudge(t)
	api := evalapitest.Start(t, evalapitest.Options{Telemetry: &settings})
	exerciseJudge(t, api) // the judge's metrics
	// Enough spans for 5 pages: a backfill rests between pages, so it
	// runs long enough to be seen.
	const stored = 1000
	workflowSpans(t, api, "backfilled", stored)
	status, body := api.Call(t, "POST", "/v2/auto-monitor-setups", map[string]any{
		"external_id": "telemetry-1", "entity_type": "workflow", "entity_value": "backfilled", "evaluators": []string{"char-count"},
		"backfill_from_timestamp_sec": time.Now().Add(-time.Hour).Unix(),
	})
	if status != 201 {
		t.Fatalf("create setup = %d %s, want 201", status, body)
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		t.Fatal(err)
	}

	// Collect until the backfill shows.
	var (
		recorded []metricdata.Metrics
		err      error
	)
	deadline := time.Now().Add(30 * time.Second)
	for !hasMetric(recorded, evalapiextension.MetricBackfillSpansScanned) {
		if time.Now().After(deadline) {
			t.Fatalf("no backfill progress seen; recorded %v", names(recorded))
		}
		time.Sleep(2 * time.Millisecond)
		if recorded, err = telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName); err != nil {
			t.Fatal(err)
		}
	}
	telemetrytest.Verify(t, ".", recorded)
	scanned := gauge(recorded, evalapiextension.MetricBackfillSpansScanned, "setup_id", created.ID)
	remaining := gauge(recorded, evalapiextension.MetricBackfillSpansRemaining, "setup_id", created.ID)
	if scanned <= 0 || scanned+remaining != stored {
		t.Errorf("backfill scanned %d, remaining %d; want scanned > 0 and a sum of %d", scanned, remaining, stored)
	}
	if n := gauge(recorded, evalapiextension.MetricSetups, "status", "waiting_for_spans") + gauge(recorded, evalapiextension.MetricSetups, "status", "in_progress") +
		gauge(recorded, evalapiextension.MetricSetups, "status", "pending"); n != 1 {
		t.Errorf("setups pending, waiting or in progress = %d, want 1", n)
	}
	if n := gauge(recorded, evalapiextension.MetricSetups, "status", "failed"); n != 0 {
		t.Errorf("failed setups = %d, want 0", n)
	}
}

func hasMetric(recorded []metricdata.Metrics, name string) bool {
	for _, m := range recorded {
		if m.Name == name {
			return true
		}
	}
	return false
}

func names(recorded []metricdata.Metrics) []string {
	var out []string
	for _, m := range recorded {
		out = append(out, m.Name)
	}
	return out
}

// gauge returns the value of an int gauge's point with attribute key =
// value (-1 when there is none).
func gauge(recorded []metricdata.Metrics, name, key, value string) int64 {
	for _, m := range recorded {
		if g, ok := m.Data.(metricdata.Gauge[int64]); ok && m.Name == name {
			for _, dp := range g.DataPoints {
				if v, ok := dp.Attributes.Value(attribute.Key(key)); ok && v.AsString() == value {
					return dp.Value
				}
			}
		}
	}
	return -1
}

// fakeJudge points the extension's default openai judge at a fake
// server: answers pass, except for an input saying "please fail" (401).
func fakeJudge(t *testing.T) {
	fake := judgetest.New(t, func(r judgetest.Request) judgetest.Reply {
		if strings.Contains(fmt.Sprint(r.Body["messages"]), "please fail") {
			return judgetest.OpenAIError(http.StatusUnauthorized, "bad key")
		}
		return judgetest.OpenAIText(`{"passed": true, "score": 0.9}`)
	})
	t.Setenv("OPENAI_BASE_URL", fake.OpenAIBaseURL())
	t.Setenv("OPENAI_API_KEY", "sk-test")
}

// exerciseJudge creates a custom evaluator and runs it once well and once
// into a provider error.
func exerciseJudge(t *testing.T, api *evalapitest.API) {
	status, body := api.Call(t, "POST", "/v2/evaluators", json.RawMessage(`{"name": "Polite", "provider": "openai", "model": "judge-1",
		"messages": [{"role": "user", "content": "Is this polite? {{text}}"}],
		"input_schema": [{"name": "text", "type": "string"}], "output_schema": [{"name": "passed", "type": "boolean"}, {"name": "score", "type": "number"}]}`))
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, body)
	}
	for _, text := range []string{"Thank you!", "please fail"} {
		if status, body := api.Call(t, "POST", "/v2/evaluators/polite/execute", json.RawMessage(`{"input": {"text": "`+text+`"}}`)); (status == http.StatusOK) != (text == "Thank you!") {
			t.Fatalf("run %q: %d %s", text, status, body)
		}
	}
}

// TestJudgeMetrics: a custom evaluator's judge calls and tokens are
// counted in the extension's own metrics, by outcome and kind.
func TestJudgeMetrics(t *testing.T) {
	fakeJudge(t)
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	settings := tel.NewTelemetrySettings()
	api := evalapitest.Start(t, evalapitest.Options{Telemetry: &settings})
	exerciseJudge(t, api)
	recorded, err := telemetrytest.Collect(context.Background(), tel.Reader, metadata.ScopeName)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(name string, kv ...string) int64 {
		var n int64
		for _, m := range recorded {
			s, ok := m.Data.(metricdata.Sum[int64])
			if !ok || m.Name != name {
				continue
			}
		points:
			for _, dp := range s.DataPoints {
				for i := 0; i+1 < len(kv); i += 2 {
					if v, ok := dp.Attributes.Value(attribute.Key(kv[i])); !ok || v.AsString() != kv[i+1] {
						continue points
					}
				}
				n += dp.Value
			}
		}
		return n
	}
	if ok, bad := sum(evalapiextension.MetricJudgeCalls, "outcome", "ok", "provider", "openai", "model", "judge-1"), sum(evalapiextension.MetricJudgeCalls, "outcome", "error"); ok != 1 || bad != 1 {
		t.Errorf("judge calls: %d ok, %d errors; want 1 and 1", ok, bad)
	}
	if in, out := sum(evalapiextension.MetricJudgeTokens, "kind", "input"), sum(evalapiextension.MetricJudgeTokens, "kind", "output"); in != 42 || out != 7 {
		t.Errorf("judge tokens: %d input, %d output; want 42 and 7", in, out)
	}
}
