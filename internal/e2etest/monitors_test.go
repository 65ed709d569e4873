package e2etest

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// chat sends one chat span per completion, of workflow wf, in one request.
func chat(t *testing.T, c *testcollector.Collector, wf string, completions ...string) {
	t.Helper()
	chatWithPrompt(t, c, wf, "Say something about my neighbour.", completions...)
}

// chatWithPrompt is chat with the user prompt given.
func chatWithPrompt(t *testing.T, c *testcollector.Collector, wf, prompt string, completions ...string) {
	t.Helper()
	_, err := c.Send(testcollector.HTTP, testcollector.DefaultAPIKey, nil, func(tr trace.Tracer) {
		for i, text := range completions {
			_, span := tr.Start(context.Background(), fmt.Sprintf("openai.chat %s %d", wf, i))
			span.SetAttributes(
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("traceloop.workflow.name", wf),
				attribute.String("gen_ai.request.model", "gpt-4o"),
				attribute.String("gen_ai.prompt.0.role", "user"),
				attribute.String("gen_ai.prompt.0.content", prompt),
				attribute.String("gen_ai.completion.0.role", "assistant"),
				attribute.String("gen_ai.completion.0.content", text),
			)
			span.End()
		}
	})
	if err != nil {
		t.Fatalf("send chat spans: %v", err)
	}
}

type metricsResponse struct {
	Metrics struct {
		Data []struct {
			MetricName     string `json:"metric_name"`
			OrganizationID string `json:"organization_id"`
			Points         []struct {
				BoolValue    *bool             `json:"bool_value"`
				EnumValue    *string           `json:"enum_value"`
				NumericValue *float64          `json:"numeric_value"`
				EventTime    int64             `json:"event_time"`
				Labels       map[string]string `json:"labels"`
			} `json:"points"`
		} `json:"data"`
		NextCursor   string `json:"next_cursor"`
		TotalPoints  int64  `json:"total_points"`
		TotalResults int64  `json:"total_results"`
	} `json:"metrics"`
}

func queryMetrics(t *testing.T, c *testcollector.Collector, body map[string]any) metricsResponse {
	t.Helper()
	if _, ok := body["from_timestamp_sec"]; !ok {
		body["from_timestamp_sec"] = time.Now().Add(-time.Hour).Unix()
	}
	resp := c.Call("POST", "/v2/metrics", testcollector.DefaultAPIKey, body)
	if resp.Status != 200 {
		t.Fatalf("POST /v2/metrics = %d %s", resp.Status, resp.Body)
	}
	var out metricsResponse
	resp.JSON(t, &out)
	return out
}

const staticMonitorConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: ` + testcollector.DefaultAPIKey + `, environment: production, organization_id: org-1, project_id: proj-1}
receivers:
  otlp:
    protocols:
      http: {endpoint: {{.OTLPHTTP}}, auth: {authenticator: evalapi}}
processors:
  tenant: {}
  evaluator:
    api: evalapi
    monitors:
      - name: safety
        evaluators: [toxicity-detector, pii-detector]
        condition: 'attributes["gen_ai.operation.name"] == "chat"'
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant, evaluator], exporters: [warehouse]}
`

// TestStaticMonitorMetrics: toxic and clean completions go in over OTLP, a
// static monitor runs toxicity-detector and pii-detector, and /v2/metrics
// returns the expected points with the right labels; the stored spans carry
// the evaluations.
func TestStaticMonitorMetrics(t *testing.T) {
	c := testcollector.Start(t, staticMonitorConfig)
	chat(t, c, "neighbours",
		"You are a worthless idiot and I will kill you.",
		"Your neighbour seems friendly; you could invite them for tea.")
	// pii-detector judges the user's prompt (an input-side evaluator).
	chatWithPrompt(t, c, "neighbours", "Write to my neighbour at jane.doe@example.com about the fence.", "Here is a polite draft.")

	var tox metricsResponse
	testcollector.Eventually(t, 10*time.Second, func() bool {
		tox = queryMetrics(t, c, map[string]any{"metric_name": "toxicity-detector.is_safe", "sort_by": "event_time", "sort_order": "asc"})
		return tox.Metrics.TotalResults == 3
	}, "3 toxicity points")
	if len(tox.Metrics.Data) != 1 || tox.Metrics.Data[0].MetricName != "toxicity-detector.is_safe" || tox.Metrics.Data[0].OrganizationID != "org-1" {
		t.Fatalf("groups = %+v", tox.Metrics.Data)
	}
	verdicts := map[string]string{}
	for _, p := range tox.Metrics.Data[0].Points {
		if p.EnumValue == nil || p.BoolValue != nil || p.NumericValue != nil {
			t.Errorf("toxicity point has values %v %v %v, want only enum_value", p.EnumValue, p.BoolValue, p.NumericValue)
			continue
		}
		l := p.Labels
		if l["evaluator_name"] != "toxicity-detector" || l["metric_source"] != "evaluator" || l["monitor_id"] != "safety" ||
			l["environment"] != "production" || l["workflow"] != "neighbours" || l["model"] != "gpt-4o" || len(l["trace_id"]) != 32 {
			t.Errorf("labels = %v", l)
		}
		verdicts[l["span_id"]] = *p.EnumValue
	}
	unsafe := 0
	for _, v := range verdicts {
		if v == "unsafe" {
			unsafe++
		}
	}
	if unsafe != 1 || len(verdicts) != 3 {
		t.Errorf("toxicity verdicts %v, want exactly one unsafe of 3", verdicts)
	}

	pii := queryMetrics(t, c, map[string]any{
		"metric_name": "pii-detector.has_pii",
		"filters":     []map[string]any{{"field": "bool_value", "operator": "equals", "value": "true", "valueType": "boolean"}},
	})
	if pii.Metrics.TotalResults != 1 {
		t.Errorf("has_pii=true points = %d, want 1 (the email)", pii.Metrics.TotalResults)
	}

	_, spans := querySpans(t, c, testcollector.DefaultAPIKey, url.Values{"workflow": {"neighbours"}})
	if len(spans.Spans.Data) != 3 {
		t.Fatalf("got %d spans, want 3", len(spans.Spans.Data))
	}
	for _, s := range spans.Spans.Data {
		names := []string{}
		for _, e := range s.Evaluations {
			names = append(names, fmt.Sprint(e["name"]))
			if e["monitor_id"] != "safety" {
				t.Errorf("evaluation %v lacks monitor_id safety", e)
			}
		}
		if strings.Join(names, ",") != "toxicity-detector,pii-detector" {
			t.Errorf("span %s evaluations = %v", s.SpanName, names)
		}
	}
}

type setupObject struct {
	ID          string `json:"id"`
	ExternalID  string `json:"external_id"`
	EntityType  string `json:"entity_type"`
	EntityValue string `json:"entity_value"`
	OrgID       string `json:"org_id"`
	ProjectID   string `json:"project_id"`
	EnvProject  string `json:"env_project_id"`
	Status      string `json:"status"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
	Evaluators  []struct {
		BindingID     string           `json:"binding_id"`
		EvaluatorType string           `json:"evaluator_type"`
		Status        string           `json:"status"`
		ErrorMessage  string           `json:"error_message"`
		ProcessedAt   *string          `json:"processed_at"`
		InputSchema   []map[string]any `json:"input_schema"`
		OutputSchema  []map[string]any `json:"output_schema"`
	} `json:"evaluators"`
	InitRules []map[string]string `json:"init_rules"`
}

// TestAutoMonitorSetupLifecycle is the way a user works: create a setup for
// a workflow with toxicity-detector, char-count and one unknown slug; send
// spans of that workflow and of another; the setup becomes partial, then
// in_progress; only the matching spans are evaluated; /v2/metrics with
// labels.monitor_id returns their points; DELETE stops new evaluations.
func TestAutoMonitorSetupLifecycle(t *testing.T) {
	c := testcollector.Start(t, testcollector.DefaultConfig)
	key := testcollector.DefaultAPIKey
	resp := c.Call("POST", "/v2/auto-monitor-setups", key, map[string]any{
		"entity_type": "workflow", "entity_value": "pirate_joke_generator", "external_id": "pirates-1",
		"evaluators": []any{"toxicity-detector", map[string]any{"evaluator_type": "char-count"}, "no-such-evaluator"},
	})
	if resp.Status != 201 {
		t.Fatalf("create = %d %s", resp.Status, resp.Body)
	}
	var created setupObject
	resp.JSON(t, &created)
	if created.Status != "partial" || created.OrgID != "org-1" || created.ProjectID != "proj-1" || created.EntityValue != "pirate_joke_generator" {
		t.Errorf("created = %+v", created)
	}
	if _, err := time.Parse(time.RFC3339, created.CreatedAt); err != nil || !strings.HasSuffix(created.CreatedAt, "Z") {
		t.Errorf("created_at %q is not RFC 3339 UTC", created.CreatedAt)
	}
	if len(created.Evaluators) != 3 || created.Evaluators[2].Status != "failed" || !strings.Contains(created.Evaluators[2].ErrorMessage, "no-such-evaluator") ||
		created.Evaluators[1].OutputSchema[0]["name"] != "char_count" || created.Evaluators[1].OutputSchema[0]["type"] != "integer" {
		t.Errorf("bindings = %+v", created.Evaluators)
	}
	if len(created.InitRules) != 1 || created.InitRules[0]["key"] != "traceloop.workflow.name" || created.InitRules[0]["op"] != "equals" {
		t.Errorf("init_rules = %v", created.InitRules)
	}
	if dup := c.Call("POST", "/v2/auto-monitor-setups", key, map[string]any{
		"entity_type": "workflow", "entity_value": "x", "external_id": "pirates-1", "evaluators": []string{"char-count"},
	}); dup.Status != 409 || !strings.Contains(string(dup.Body), "pirates-1") {
		t.Errorf("repeated external_id = %d %s, want 409", dup.Status, dup.Body)
	}

	get := func() setupObject {
		var s setupObject
		r := c.Call("GET", "/v2/auto-monitor-setups/"+created.ID, key, nil)
		if r.Status != 200 {
			t.Fatalf("get = %d %s", r.Status, r.Body)
		}
		r.JSON(t, &s)
		return s
	}
	testcollector.Eventually(t, 5*time.Second, func() bool { return get().Status == "waiting_for_spans" }, "setup loaded (waiting_for_spans)")
	if s := get(); s.Evaluators[0].Status != "active" || s.Evaluators[0].ProcessedAt == nil || s.Evaluators[2].Status != "failed" {
		t.Errorf("bindings after load = %+v", s.Evaluators)
	}

	chat(t, c, "pirate_joke_generator", "Arr, why did the pirate cross the sea? To get to the other tide.")
	chat(t, c, "weather_bot", "It will rain tomorrow.")
	testcollector.Eventually(t, 10*time.Second, func() bool { return get().Status == "in_progress" }, "setup in_progress after a matching span")

	byMonitor := func() metricsResponse {
		return queryMetrics(t, c, map[string]any{
			"filters": []map[string]any{{"field": "labels.monitor_id", "operator": "equals", "value": created.ID}},
		})
	}
	var m metricsResponse
	testcollector.Eventually(t, 10*time.Second, func() bool { m = byMonitor(); return m.Metrics.TotalResults == 2 }, "2 points of the setup")
	names := map[string]bool{}
	for _, g := range m.Metrics.Data {
		names[g.MetricName] = true
		for _, p := range g.Points {
			if p.Labels["workflow"] != "pirate_joke_generator" {
				t.Errorf("point of workflow %q", p.Labels["workflow"])
			}
		}
	}
	if !names["toxicity-detector.is_safe"] || !names["char-count.char_count"] {
		t.Errorf("metric names = %v", names)
	}
	_, other := querySpans(t, c, key, url.Values{"workflow": {"weather_bot"}})
	if len(other.Spans.Data) != 1 || len(other.Spans.Data[0].Evaluations) != 0 {
		t.Errorf("the other workflow's span was evaluated: %+v", other.Spans.Data)
	}

	if r := c.Call("DELETE", "/v2/auto-monitor-setups/"+created.ID, key, nil); r.Status != 204 {
		t.Fatalf("delete = %d %s", r.Status, r.Body)
	}
	if r := c.Call("GET", "/v2/auto-monitor-setups/"+created.ID, key, nil); r.Status != 404 {
		t.Errorf("get after delete = %d", r.Status)
	}
	chat(t, c, "pirate_joke_generator", "Another pirate joke.")
	testcollector.Eventually(t, 10*time.Second, func() bool {
		_, s := querySpans(t, c, key, url.Values{"workflow": {"pirate_joke_generator"}})
		return len(s.Spans.Data) == 2
	}, "second pirate span stored")
	if got := byMonitor().Metrics.TotalResults; got != 2 {
		t.Errorf("after DELETE the setup's points grew to %d, want 2", got)
	}
}
