package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/monitor"
)

// newSetupServer is newTestServer with a real setups.Service on the same
// SQLite store; monitors receives the compiled setups.
func newSetupServer(t *testing.T, opts ...func(*setups.Options)) (*testServer, *monitor.Set) {
	t.Helper()
	monitors := &monitor.Set{}
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	var svc *setups.Service
	s := newTestServer(t, func(o *Options) {
		so := setups.Options{Store: o.Store, Compiler: compiler, Monitors: monitors, Poll: time.Hour}
		for _, f := range opts {
			f(&so)
		}
		svc = setups.NewService(so)
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

	// List: a bare array, filters, paging with X-Next-Cursor, tenancy.
	status, list, next := s.list(t, "/v2/auto-monitor-setups?entity_type=agent&limit=2", authA)
	if status != 200 || len(list) != 2 || next == "" {
		t.Fatalf("list page 1 = %d %v, next %q", status, list, next)
	}
	_, list2, next2 := s.list(t, "/v2/auto-monitor-setups?entity_type=agent&limit=2&cursor="+url.QueryEscape(next), authA)
	if len(list2) != 1 || next2 != "" {
		t.Errorf("list page 2 = %v, next %q (want no X-Next-Cursor on the last page)", list2, next2)
	}
	_, byExt, _ := s.list(t, "/v2/auto-monitor-setups?external_id=ext-a", authB)
	if len(byExt) != 1 || byExt[0]["id"] == id {
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

// list GETs a setup listing: the status, the bare JSON array and the
// X-Next-Cursor header.
func (s *testServer) list(t *testing.T, path, auth string) (int, []map[string]any, string) {
	t.Helper()
	status, header, body := s.send(t, "GET", path, auth, nil)
	var out []map[string]any
	if status == http.StatusOK {
		if err := json.Unmarshal(body, &out); err != nil || out == nil {
			t.Fatalf("GET %s: body is not a JSON array: %v: %.300s", path, err, body)
		}
	}
	return status, out, header.Get("X-Next-Cursor")
}

// send sends a request with the raw Authorization value auth and returns
// the status, headers and body.
func (s *testServer) send(t *testing.T, method, path, auth string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
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
