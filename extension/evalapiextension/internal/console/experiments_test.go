package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/datasetapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpapi"
	"github.com/evalcol/evalcol/internal/tenant"
)

// TestExperimentPagesCompareRuns: two runs of an experiment, made through
// the API as Traceloop's SDK makes them, show side by side per evaluator
// with the change in pass rate; another organization sees neither.
func TestExperimentPagesCompareRuns(t *testing.T) {
	run := func(ctx context.Context, _ tenant.Tenant, slug string, input, config map[string]any) (experimentapi.Result, error) {
		res, ok, err := experimentapi.RunPrebuilt(ctx, slug, input, config)
		if !ok {
			return res, fmt.Errorf("unknown evaluator %q", slug)
		}
		return res, err
	}
	s := newTestServerAPI(t, false, nil, func(o *httpapi.Options) {
		o.Mounts = append(o.Mounts, datasetapi.New(o.Store), experimentapi.New(o.Store, run))
	})
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+keyA)
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
		}
		return out
	}
	call("POST", "/v2/datasets", map[string]any{"name": "greetings", "columns": []any{map[string]any{"name": "who"}},
		"rows": []any{map[string]any{"who": "Ann"}, map[string]any{"who": "Bob"}}})
	call("POST", "/v2/datasets/greetings/publish", map[string]any{})
	for _, reply := range []string{"You are a stupid idiot, %s.", "Hello, %s! Nice to meet you."} { // the older run is rude
		init := call("PUT", "/v2/experiments/initialize", map[string]any{"slug": "greeter", "dataset_slug": "greetings", "dataset_version": "v1",
			"evaluator_slugs": []string{"toxicity-detector"}})
		runID := init["run"].(map[string]any)["id"].(string)
		for _, who := range []string{"Ann", "Bob"} {
			text := fmt.Sprintf(reply, who)
			task := call("POST", "/v2/experiments/greeter/runs/"+runID+"/tasks", map[string]any{"input": map[string]any{"who": who}, "output": map[string]any{"text": text}})
			call("POST", "/v2/experiments/greeter/runs/"+runID+"/tasks/"+task["id"].(string), map[string]any{"evaluator_slug": "toxicity-detector",
				"input_schema_mapping": map[string]any{"text": map[string]any{"source": text}}})
		}
	}
	c := s.client(t)
	s.login(t, c, keyA)
	list := do(t, c, "GET", s.URL+"/ui/experiments", nil)
	if list.status != 200 || !strings.Contains(list.body, `<a href="/ui/experiments/greeter">greeter</a>`) || !strings.Contains(list.body, "<b>greetings</b>") {
		t.Fatalf("experiments page: %d\n%s", list.status, list.body)
	}
	page := do(t, c, "GET", s.URL+"/ui/experiments/greeter", nil)
	if page.status != 200 {
		t.Fatalf("experiment page: %d", page.status)
	}
	row := page.body[strings.Index(page.body, `data-evaluator="toxicity-detector"`):]
	row = row[:strings.Index(row, "</tr>")]
	// Latest (polite) run first: 100 % pass, +100 points on the rude one.
	if !strings.Contains(row, "<b>100.0%</b> pass") || !strings.Contains(row, `<span class="delta v-pass">&#43;100.0 pts</span>`) || !strings.Contains(row, "<b>0.0%</b> pass") {
		t.Errorf("toxicity row:\n%s", row)
	}
	other := s.client(t)
	s.login(t, other, keyB)
	if a := do(t, other, "GET", s.URL+"/ui/experiments/greeter", nil); a.status != 404 {
		t.Errorf("another organization opens the experiment: %d", a.status)
	}
	if a := do(t, other, "GET", s.URL+"/ui/experiments", nil); strings.Contains(a.body, "greeter") {
		t.Error("another organization lists the experiment")
	}
}
