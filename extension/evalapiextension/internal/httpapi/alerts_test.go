package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/alertapi"
	"github.com/evalcol/evalcol/internal/alerting"
	"github.com/evalcol/evalcol/internal/alerting/alertingtest"
)

// TestAlertRules: rules are created, read, replaced, silenced, tested
// against a real receiver and deleted through the API; notify may only
// name configured webhooks; another environment sees none of it.
func TestAlertRules(t *testing.T) {
	rc := alertingtest.NewReceiver(t, "hook-secret")
	notifier := &alerting.Notifier{Webhooks: map[string]alerting.Webhook{"ops": {URL: rc.URL + "/hook?token=url-secret", Secret: "hook-secret"}}}
	s := newTestServer(t, func(o *Options) { o.Mounts = append(o.Mounts, alertapi.New(o.Store, notifier)) })
	a, b := "Bearer "+keyA, "Bearer "+keyB

	rule := `{"name":"toxicity drops","kind":"pass_rate","evaluator":"toxicity-detector","threshold":90,"window_minutes":15,"min_evaluations":10,"repeat_minutes":60,"notify":["ops"]}`
	status, created := s.do(t, http.MethodPost, "/v2/alerts", a, []byte(rule))
	if status != http.StatusCreated || created["id"] == "" || created["state"].(map[string]any)["status"] != "unknown" {
		t.Fatalf("create: %d %v", status, created)
	}
	id := created["id"].(string)
	for _, tc := range []struct{ name, body, want string }{
		{"a webhook not configured", strings.Replace(rule, `["ops"]`, `["https://attacker.example/x"]`, 1), `notify[0]: "https://attacker.example/x" is not a webhook of this collector's configuration`},
		{"a bad kind", strings.Replace(rule, "pass_rate", "latency", 1), `kind: "latency" is not one of pass_rate, mean_score, no_spans`},
		{"a threshold out of range", strings.Replace(rule, `"threshold":90`, `"threshold":190`, 1), "threshold: a pass rate threshold is a percentage from 0 to 100"},
		{"an unknown field", strings.Replace(rule, `"name"`, `"nmae"`, 1), `unknown field "nmae"`},
	} {
		status, body := s.do(t, http.MethodPost, "/v2/alerts", a, []byte(tc.body))
		if status != http.StatusBadRequest || !strings.Contains(body["error"].(string), tc.want) {
			t.Errorf("%s: %d %v, want 400 with %q", tc.name, status, body, tc.want)
		}
	}
	status, list := s.do(t, http.MethodGet, "/v2/alerts", a, nil)
	if alerts := list["alerts"].([]any); status != http.StatusOK || len(alerts) != 1 || list["webhooks"].([]any)[0] != "ops" {
		t.Fatalf("list: %d %v", status, list)
	}
	raw, _ := json.Marshal(list)
	if strings.Contains(string(raw), "url-secret") || strings.Contains(string(raw), "hook-secret") || strings.Contains(string(raw), rc.URL) {
		t.Errorf("the listing shows a webhook's address or secret: %s", raw)
	}

	// Another environment sees and changes none of it.
	if status, body := s.do(t, http.MethodGet, "/v2/alerts", b, nil); status != http.StatusOK || len(body["alerts"].([]any)) != 0 {
		t.Errorf("env-b lists env-a's rules: %v", body)
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		if status, _ := s.do(t, m, "/v2/alerts/"+id, b, nil); status != http.StatusNotFound {
			t.Errorf("env-b %s env-a's rule: %d", m, status)
		}
	}
	if status, _ := s.do(t, http.MethodPost, "/v2/alerts/"+id+"/test", b, nil); status != http.StatusNotFound {
		t.Errorf("env-b tests env-a's rule: %d", status)
	}

	// Replace, silence, test.
	status, updated := s.do(t, http.MethodPut, "/v2/alerts/"+id, a, []byte(strings.Replace(rule, `"threshold":90`, `"threshold":80`, 1)))
	if status != http.StatusOK || updated["threshold"] != 80.0 || updated["id"] != id {
		t.Errorf("update: %d %v", status, updated)
	}
	status, silenced := s.do(t, http.MethodPost, "/v2/alerts/"+id+"/silence", a, []byte(`{"minutes":60}`))
	if status != http.StatusOK || silenced["silenced_until"] == nil {
		t.Errorf("silence: %d %v", status, silenced)
	}
	if status, body := s.do(t, http.MethodPost, "/v2/alerts/"+id+"/silence", a, []byte(`{"minutes":-1}`)); status != http.StatusBadRequest || !strings.Contains(body["error"].(string), "minutes") {
		t.Errorf("silence -1: %d %v", status, body)
	}
	status, tested := s.do(t, http.MethodPost, "/v2/alerts/"+id+"/test", a, nil)
	deliveries := tested["deliveries"].([]any)
	if status != http.StatusOK || len(deliveries) != 1 || deliveries[0].(map[string]any)["status"] != 200.0 {
		t.Errorf("test: %d %v", status, tested)
	}
	if got := rc.Payloads(); len(got) != 1 || got[0].Event != "test" || got[0].RuleName != "toxicity drops" || got[0].Environment != "env-a" {
		t.Errorf("the receiver got %+v", got)
	}
	if status, _, _ := s.send(t, http.MethodDelete, "/v2/alerts/"+id, a, nil); status != http.StatusNoContent {
		t.Errorf("delete: %d", status)
	}
	if status, _ := s.do(t, http.MethodGet, "/v2/alerts/"+id, a, nil); status != http.StatusNotFound {
		t.Errorf("a deleted rule: %d", status)
	}
}
