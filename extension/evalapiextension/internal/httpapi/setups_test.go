package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/monitor"
)

// newSetupServer is newTestServer with a real setups.Service on the same
// SQLite store; monitors receives the compiled setups.
func newSetupServer(t *testing.T) (*testServer, *monitor.Set) {
	t.Helper()
	monitors := &monitor.Set{}
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	var svc *setups.Service
	s := newTestServer(t, func(o *Options) {
		svc = setups.NewService(setups.Options{Store: o.Store, Compiler: compiler, Monitors: monitors, Poll: time.Hour})
		svc.Start(context.Background())
		o.Setups = svc
	})
	t.Cleanup(svc.Shutdown)
	return s, monitors
}

func TestSetupsCRUD(t *testing.T) {
	s, monitors := newSetupServer(t)
	create := func(auth, body string) (int, map[string]any) {
		return s.do(t, "POST", "/v2/auto-monitor-setups", auth, []byte(body))
	}
	status, a := create(authA, `{"entity_type":"workflow","entity_value":"checkout","external_id":"ext-a","evaluators":["char-count"]}`)
	if status != http.StatusCreated || a["status"] != "pending" || a["env_project_id"] != "p-a/env-a" {
		t.Fatalf("create = %d %v", status, a)
	}
	id := a["id"].(string)
	waitFor(t, func() bool { return len(monitors.Monitors()) == 1 }, "the setup compiled into a monitor")
	for i := 0; i < 3; i++ {
		if st, _ := create(authA, fmt.Sprintf(`{"entity_type":"agent","entity_value":"planner-%d","external_id":"ext-%d","evaluators":["word-count"]}`, i, i)); st != 201 {
			t.Fatalf("create %d = %d", i, st)
		}
	}
	// The same external_id in another tenant is fine; in the same one it is a 409.
	if st, _ := create(authB, `{"entity_type":"workflow","entity_value":"checkout","external_id":"ext-a","evaluators":["char-count"]}`); st != 201 {
		t.Errorf("same external_id in another environment = %d, want 201", st)
	}
	if st, got := create(authA, `{"entity_type":"span","entity_value":"x","external_id":"ext-a","evaluators":["char-count"]}`); st != 409 || !strings.Contains(got["error"].(string), `"ext-a"`) {
		t.Errorf("repeated external_id = %d %v, want 409 naming it", st, got)
	}

	// List: filters, paging, tenancy.
	status, list := s.do(t, "GET", "/v2/auto-monitor-setups?entity_type=agent&limit=2", authA, nil)
	if status != 200 || len(list["data"].([]any)) != 2 || list["next_cursor"] == "" {
		t.Fatalf("list page 1 = %d %v", status, list)
	}
	_, list2 := s.do(t, "GET", "/v2/auto-monitor-setups?entity_type=agent&limit=2&cursor="+list["next_cursor"].(string), authA, nil)
	if len(list2["data"].([]any)) != 1 || list2["next_cursor"] != "" {
		t.Errorf("list page 2 = %v", list2)
	}
	_, byExt := s.do(t, "GET", "/v2/auto-monitor-setups?external_id=ext-a", authB, nil)
	if d := byExt["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] == id {
		t.Errorf("tenant B's listing = %v, want only its own setup", byExt)
	}
	if st, _ := s.do(t, "GET", "/v2/auto-monitor-setups/"+id, authB, nil); st != 404 {
		t.Errorf("tenant B reading A's setup = %d, want 404", st)
	}
	if st, got := s.do(t, "GET", "/v2/auto-monitor-setups?limit=0", authA, nil); st != 400 || !strings.Contains(got["error"].(string), "limit") {
		t.Errorf("limit=0 = %d %v", st, got)
	}

	// PUT replaces evaluators and selector and resets the status.
	waitFor(t, func() bool {
		_, got := s.do(t, "GET", "/v2/auto-monitor-setups/"+id, authA, nil)
		return got["status"] == "waiting_for_spans"
	}, "setup loaded")
	status, put := s.do(t, "PUT", "/v2/auto-monitor-setups/"+id, authA, []byte(
		`{"entity_type":"workflow","entity_value":"checkout","external_id":"ext-a","evaluators":["toxicity-detector","word-count"],"selector":{"tier":"gold"}}`))
	if status != 200 || put["status"] != "pending" || put["id"] != id || put["created_at"] != a["created_at"] || len(put["evaluators"].([]any)) != 2 {
		t.Fatalf("put = %d %v", status, put)
	}
	if rules := put["init_rules"].([]any); len(rules) != 2 || rules[1].(map[string]any)["key"] != "tier" {
		t.Errorf("init_rules after put = %v", rules)
	}
	if st, got := s.do(t, "PUT", "/v2/auto-monitor-setups/"+id, authA, []byte(`{"entity_type":"workflow"}`)); st != 400 || !strings.Contains(got["error"].(string), "entity_value") {
		t.Errorf("bad put = %d %v", st, got)
	}
	if st, _ := s.do(t, "PUT", "/v2/auto-monitor-setups/nope", authA, []byte(`{"entity_type":"workflow","entity_value":"x","external_id":"y","evaluators":["char-count"]}`)); st != 404 {
		t.Errorf("put of a missing setup = %d, want 404", st)
	}
	waitFor(t, func() bool {
		for _, m := range monitors.Monitors() {
			if m.ID == id && len(m.Evaluators) == 2 {
				return true
			}
		}
		return false
	}, "the monitor to follow the update")

	// DELETE stops the monitor at once.
	if st, _ := rawDelete(t, s, "/v2/auto-monitor-setups/"+id, authA); st != 204 {
		t.Fatalf("delete = %d", st)
	}
	for _, m := range monitors.Monitors() {
		if m.ID == id {
			t.Errorf("monitor %s still applied after DELETE", id)
		}
	}
	if st, _ := rawDelete(t, s, "/v2/auto-monitor-setups/"+id, authA); st != 404 {
		t.Errorf("second delete = %d, want 404", st)
	}
}

func rawDelete(t *testing.T, s *testServer, path, auth string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", s.URL+path, nil)
	req.Header.Set("Authorization", auth)
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type")
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
