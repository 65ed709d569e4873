package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
	"github.com/evalcol/evalcol/internal/tenant"
)

// prebuiltOnly runs prebuilt evaluators only.
func prebuiltOnly(ctx context.Context, _ tenant.Tenant, slug string, input, config map[string]any) (experimentapi.Result, error) {
	res, ok, err := experimentapi.RunPrebuilt(ctx, slug, input, config)
	if !ok {
		return res, fmt.Errorf("unknown evaluator %q", slug)
	}
	return res, err
}

func TestExperiments(t *testing.T) {
	onBothBackendsWith(t, func(o *Options) {
		mountDatasets(o)
		o.Mounts = append(o.Mounts, experimentapi.New(o.Store, prebuiltOnly))
	}, testExperiments)
}

// testExperiments: a run over a published dataset version records tasks
// and executions; an evaluator that fails to run is recorded as an error
// at its stream URL; the summary counts verdicts; bad input is named;
// another organization reaches none of it.
func testExperiments(t *testing.T, s *testServer) {
	a, b := "Bearer "+keyA, "Bearer "+keyB
	if status, body := s.do(t, http.MethodPost, "/v2/datasets", a, []byte(`{"name":"qs","columns":[{"name":"q"}],"rows":[{"q":"hi"}]}`)); status != http.StatusCreated {
		t.Fatalf("dataset: %d %v", status, body)
	}
	if status, body := s.do(t, http.MethodPut, "/v2/experiments/initialize", a, []byte(`{"slug":"exp-1","dataset_slug":"qs","dataset_version":"v1"}`)); status != http.StatusNotFound ||
		!strings.Contains(body["error"].(string), `version "v1" of dataset "qs" (publish it first) not found`) {
		t.Errorf("an unpublished version: %d %v", status, body)
	}
	if status, _ := s.do(t, http.MethodPost, "/v2/datasets/qs/publish", a, []byte(`{}`)); status != http.StatusOK {
		t.Fatal("publish")
	}
	if status, body := s.do(t, http.MethodPut, "/v2/experiments/initialize", a, []byte(`{"slug":"Not A Slug"}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), "slug:") {
		t.Errorf("a bad slug: %d %v", status, body)
	}
	status, init := s.do(t, http.MethodPut, "/v2/experiments/initialize", a, []byte(`{"slug":"exp-1","dataset_slug":"qs","dataset_version":"v1","evaluator_slugs":["char-count"]}`))
	if status != http.StatusOK {
		t.Fatalf("initialize: %d %v", status, init)
	}
	run := init["run"].(map[string]any)["id"].(string)
	base := "/v2/experiments/exp-1/runs/" + run
	status, task := s.do(t, http.MethodPost, base+"/tasks", a, []byte(`{"input":{"q":"hi"},"output":{"text":"hello there"}}`))
	if status != http.StatusCreated {
		t.Fatalf("task: %d %v", status, task)
	}
	taskID := task["id"].(string)
	for _, tc := range []struct {
		slug    string
		wantErr string
	}{{"char-count", ""}, {"no-such-evaluator", `unknown evaluator "no-such-evaluator"`}} {
		status, ex := s.do(t, http.MethodPost, base+"/tasks/"+taskID, a, []byte(`{"evaluator_slug":"`+tc.slug+`","input_schema_mapping":{"text":{"source":"hello there"}}}`))
		if status != http.StatusOK || !strings.HasPrefix(ex["stream_url"].(string), "/experiments/exp-1/runs/"+run+"/executions/") {
			t.Fatalf("execute %s: %d %v", tc.slug, status, ex)
		}
		status, res := s.do(t, http.MethodGet, "/v2"+ex["stream_url"].(string), a, nil)
		switch {
		case status != http.StatusOK || res["execution_id"] != ex["execution_id"]:
			t.Errorf("the result of %s: %d %v", tc.slug, status, res)
		case tc.wantErr == "" && res["result"].(map[string]any)["evaluator_result"].(map[string]any)["char_count"] != 11.0:
			t.Errorf("char-count result %v", res)
		case tc.wantErr != "" && (res["status"] != "failed" || res["error"] != tc.wantErr):
			t.Errorf("a failed execution: %v", res)
		}
		if status, _ := s.do(t, http.MethodGet, "/v2"+ex["stream_url"].(string), b, nil); status != http.StatusNotFound {
			t.Errorf("another organization reads the execution: %d", status)
		}
	}
	// The results are metric points of source experiment, in the key's
	// environment only.
	status, m := s.do(t, http.MethodPost, "/v2/metrics", a, []byte(`{"metric_source":"experiment","metric_name":"char-count.char_count"}`))
	if status != http.StatusOK || m["metrics"].(map[string]any)["total_results"] != 1.0 {
		t.Errorf("experiment points: %d %v", status, m)
	} else if labels := m["metrics"].(map[string]any)["data"].([]any)[0].(map[string]any)["points"].([]any)[0].(map[string]any)["labels"].(map[string]any); labels["experiment"] != "exp-1" || labels["experiment_run"] != run {
		t.Errorf("experiment point labels %v", labels)
	}
	if status, m := s.do(t, http.MethodPost, "/v2/metrics", b, []byte(`{"metric_source":"experiment"}`)); status != http.StatusOK || m["metrics"].(map[string]any)["total_results"] != 0.0 {
		t.Errorf("another environment sees experiment points: %v", m)
	}
	if status, body := s.do(t, http.MethodPost, base+"/tasks/"+taskID, a, []byte(`{}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), "evaluator_slug") {
		t.Errorf("no evaluator: %d %v", status, body)
	}
	if status, _ := s.do(t, http.MethodPost, base+"/tasks/nope", a, []byte(`{"evaluator_slug":"char-count"}`)); status != http.StatusNotFound {
		t.Errorf("an unknown task: %d", status)
	}
	status, sum := s.do(t, http.MethodGet, "/v2/experiments/exp-1", a, nil)
	runs := sum["runs"].([]any)
	if status != http.StatusOK || len(runs) != 1 {
		t.Fatalf("summary: %d %v", status, sum)
	}
	evs := runs[0].(map[string]any)["evaluators"].(map[string]any)
	if cc := evs["char-count"].(map[string]any); cc["count"] != 1.0 || cc["mean_score"] != 11.0 || evs["no-such-evaluator"].(map[string]any)["errors"] != 1.0 {
		t.Errorf("summary evaluators %v", evs)
	}
	for _, p := range []string{"/v2/experiments/exp-1", base + "/export/json"} {
		if status, _, _ := s.send(t, http.MethodGet, p, b, nil); status != http.StatusNotFound {
			t.Errorf("another organization GET %s: %d", p, status)
		}
	}
	if status, body := s.do(t, http.MethodPost, base+"/tasks", b, []byte(`{"input":{},"output":{}}`)); status != http.StatusNotFound {
		t.Errorf("another organization adds a task: %d %v", status, body)
	}
	if status, list := s.do(t, http.MethodGet, "/v2/experiments", b, nil); status != http.StatusOK || list["total"] != 0.0 {
		t.Errorf("another organization lists %v", list)
	}

	// One evaluator run on a mapped input (the SDK's customEvaluatorGuard):
	// the result is read once at its stream URL, by its tenant only.
	status, trig := s.do(t, http.MethodPost, "/v2/evaluators/char-count/executions", a, []byte(`{"input_schema_mapping":{"text":{"source":"abcd"}}}`))
	if status != http.StatusOK || !strings.HasPrefix(fmt.Sprint(trig["stream_url"]), "/v2/evaluators/char-count/executions/") {
		t.Fatalf("executions: %d %v", status, trig)
	}
	stream := trig["stream_url"].(string)
	if status, _ := s.do(t, http.MethodGet, stream, b, nil); status != http.StatusNotFound {
		t.Errorf("another organization reads the execution: %d", status)
	}
	status, res := s.do(t, http.MethodGet, stream, a, nil)
	if status != http.StatusOK || res["result"].(map[string]any)["evaluator_result"].(map[string]any)["char_count"] != 4.0 {
		t.Errorf("the execution: %d %v", status, res)
	}
	if status, _ := s.do(t, http.MethodGet, stream, a, nil); status != http.StatusNotFound {
		t.Errorf("an execution read twice: %d", status)
	}
}
