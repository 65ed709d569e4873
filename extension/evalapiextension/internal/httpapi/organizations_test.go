package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestOrganizations: an admin key creates an organization (Traceloop's
// request and response), its keys work at once and see only their own
// environment, listings never show a secret, environments are added and
// keys rotated and revoked; other keys get 403.
func TestOrganizations(t *testing.T) {
	s, _ := newSetupServer(t)
	admin := "Bearer " + keyAdmin

	// Not an admin: 403 with {error}, and nothing created.
	st, got := s.do(t, "POST", "/v2/organizations", authA, []byte(`{"org_name":"Sneaky","envs":["prd"]}`))
	if st != http.StatusForbidden || !strings.Contains(got["error"].(string), "role: admin") {
		t.Errorf("POST by a tenant key = %d %v, want 403", st, got)
	}
	if st, _, body := s.send(t, "GET", "/v2/organizations", admin, nil); st != 200 || string(body) != "[]\n" {
		t.Errorf("organizations after a refused create = %d %s, want []", st, body)
	}
	if st, _, _ := s.send(t, "GET", "/v2/organizations", authB, nil); st != http.StatusForbidden {
		t.Errorf("GET by a tenant key = %d, want 403", st)
	}

	st, created := s.do(t, "POST", "/v2/organizations", admin, []byte(`{"org_name":"Demo Organization","envs":["dev","prd"]}`))
	if st != http.StatusCreated {
		t.Fatalf("create = %d %v", st, created)
	}
	orgID := created["org_id"].(string)
	envs := created["environments"].([]any)
	if len(envs) != 2 {
		t.Fatalf("environments = %v", envs)
	}
	dev, prd := envs[0].(map[string]any), envs[1].(map[string]any)
	devKey, prdKey := dev["api_key"].(string), prd["api_key"].(string)
	if dev["slug"] != "dev" || prd["slug"] != "prd" || !strings.HasPrefix(devKey, "evalcol_") || devKey == prdKey {
		t.Fatalf("environments = %v", envs)
	}

	// The new keys work at once, each in its own environment only.
	devAuth, prdAuth := "Bearer "+devKey, "Bearer "+prdKey
	st, setup := s.do(t, "POST", "/v2/auto-monitor-setups", devAuth, []byte(`{"external_id":"x","evaluators":["char-count"]}`))
	if st != 201 || setup["org_id"] != orgID || setup["project_id"] != "default" || setup["env_project_id"] != "default/"+orgID+"/dev" {
		t.Fatalf("setup with the new dev key = %d %v", st, setup)
	}
	for name, auth := range map[string]string{"prd": prdAuth, "YAML key A": authA, "admin": admin} {
		if st, list, _ := s.list(t, "/v2/auto-monitor-setups", auth); st != 200 || len(list) != 0 {
			t.Errorf("%s sees %d setups of dev (status %d), want none", name, len(list), st)
		}
	}
	// The metrics query accepts the environment's slug as its name.
	if st, got := s.do(t, "POST", "/v2/metrics", devAuth, []byte(`{"from_timestamp_sec":1,"environments":["dev"]}`)); st != 200 {
		t.Errorf("metrics of environments [dev] with the dev key = %d %v", st, got)
	}
	if st, got := s.do(t, "POST", "/v2/metrics", devAuth, []byte(`{"from_timestamp_sec":1,"environments":["prd"]}`)); st != 403 {
		t.Errorf("metrics of environments [prd] with the dev key = %d %v, want 403", st, got)
	}

	// Listings never hold a secret.
	st, _, body := s.send(t, "GET", "/v2/organizations", admin, nil)
	if st != 200 || !strings.Contains(string(body), orgID) || strings.Contains(string(body), devKey) || strings.Contains(string(body), prdKey) || strings.Contains(string(body), "api_key") {
		t.Errorf("listing = %d %s", st, body)
	}
	st, one := s.do(t, "GET", "/v2/organizations/"+orgID, admin, nil)
	if st != 200 || one["org_name"] != "Demo Organization" || len(one["environments"].([]any)) != 2 {
		t.Errorf("GET organization = %d %v", st, one)
	}
	if st, got := s.do(t, "GET", "/v2/organizations/nope", admin, nil); st != 404 || !strings.Contains(got["error"].(string), "nope") {
		t.Errorf("GET unknown organization = %d %v", st, got)
	}

	// A new environment.
	st, stg := s.do(t, "POST", "/v2/organizations/"+orgID+"/environments", admin, []byte(`{"slug":"stg"}`))
	if st != 201 || stg["slug"] != "stg" || stg["environment"] != orgID+"/stg" {
		t.Fatalf("add environment = %d %v", st, stg)
	}
	if st, _ := s.do(t, "GET", "/v2/auto-monitor-setups/x", "Bearer "+stg["api_key"].(string), nil); st != 404 {
		t.Errorf("stg key reading dev's setup = %d, want 404", st)
	}
	if st, got := s.do(t, "POST", "/v2/organizations/"+orgID+"/environments", admin, []byte(`{"slug":"stg"}`)); st != 409 {
		t.Errorf("adding stg twice = %d %v, want 409", st, got)
	}
	if st, got := s.do(t, "POST", "/v2/organizations/"+orgID+"/environments", admin, []byte(`{"slug":"Bad Slug"}`)); st != 400 || !strings.Contains(got["error"].(string), "slug:") {
		t.Errorf("bad slug = %d %v, want 400 naming slug", st, got)
	}

	// Rotation: the old dev key is refused at once, the new one works.
	st, rotated := s.do(t, "POST", "/v2/organizations/"+orgID+"/keys/"+dev["key_id"].(string)+"/rotate", admin, nil)
	if st != 201 || rotated["slug"] != "dev" {
		t.Fatalf("rotate = %d %v", st, rotated)
	}
	if st, got := s.do(t, "GET", "/v2/auto-monitor-setups/x", devAuth, nil); st != 401 || got["error"] != "invalid API key" {
		t.Errorf("rotated-out key = %d %v, want 401", st, got)
	}
	if st, got := s.do(t, "GET", "/v2/auto-monitor-setups/x", "Bearer "+rotated["api_key"].(string), nil); st != 200 || got["org_id"] != orgID {
		t.Errorf("rotated-in key reading dev's setup = %d %v", st, got)
	}
	// Revocation.
	if st, _ := rawDelete(t, s, "/v2/organizations/"+orgID+"/keys/"+prd["key_id"].(string), admin); st != 204 {
		t.Errorf("revoke = %d, want 204", st)
	}
	if st, got := s.do(t, "GET", "/v2/auto-monitor-setups", prdAuth, nil); st != 401 {
		t.Errorf("revoked key = %d %v, want 401", st, got)
	}
	if st, _ := rawDelete(t, s, "/v2/organizations/"+orgID+"/keys/key_nope", admin); st != 404 {
		t.Errorf("revoking an unknown key = %d, want 404", st)
	}
	if st, _ := rawDelete(t, s, "/v2/organizations/"+orgID+"/keys/"+prd["key_id"].(string), authA); st != 403 {
		t.Errorf("revoke by a tenant key = %d, want 403", st)
	}
	// A key for prd again.
	st, prd2 := s.do(t, "POST", "/v2/organizations/"+orgID+"/environments/prd/keys", admin, nil)
	if st != 201 || prd2["slug"] != "prd" {
		t.Fatalf("issue key = %d %v", st, prd2)
	}
	if st, _, _ := s.list(t, "/v2/auto-monitor-setups", "Bearer "+prd2["api_key"].(string)); st != 200 {
		t.Errorf("new prd key = %d, want 200", st)
	}
}

func TestOrganizationBadRequests(t *testing.T) {
	s, _ := newSetupServer(t)
	admin := "Bearer " + keyAdmin
	for _, tc := range []struct{ body, want string }{
		{`{"org_name":"x","enviroments":["dev"]}`, `unknown field "enviroments"`},
		{`{"envs":["dev"]}`, "org_name: is required"},
		{`{"org_name":"x","envs":["dev","dev"]}`, `envs[1]: "dev" is listed twice`},
		{`{"org_name":"x","retention_hours":0}`, "retention_hours: must be between 1 and 720"},
		{``, "request body is empty"},
		{`{"org_name":1}`, "org_name"},
	} {
		st, got := s.do(t, "POST", "/v2/organizations", admin, []byte(tc.body))
		if st != 400 || !strings.Contains(got["error"].(string), tc.want) {
			t.Errorf("POST %s = %d %v, want 400 containing %q", tc.body, st, got, tc.want)
		}
	}
	// Defaults: one environment, prd.
	st, created := s.do(t, "POST", "/v2/organizations", admin, []byte(`{"org_name":"Defaults"}`))
	if envs, _ := created["environments"].([]any); st != 201 || len(envs) != 1 || envs[0].(map[string]any)["slug"] != "prd" {
		t.Errorf("create with defaults = %d %v", st, created)
	}
	if st, _, body := s.send(t, "GET", "/v2/organizations", admin, nil); st != 200 || strings.Count(string(body), `"org_id"`) != 1 {
		t.Errorf("after bad requests the listing = %d %s, want one organization", st, body)
	}
}

// TestProjectMetricsPath: Traceloop's metrics client posts to
// /v2/projects/<project_id>/metrics with an empty environments list and
// cursor 0; the path's project must be the key's.
func TestProjectMetricsPath(t *testing.T) {
	s, _ := newSetupServer(t)
	body := []byte(`{"from_timestamp_sec":1700000000,"to_timestamp_sec":1900000000,"environments":[],"sort_by":"event_time","sort_order":"DESC","limit":50,"cursor":0,"logical_operator":"AND"}`)
	st, got := s.do(t, "POST", "/v2/projects/p-a/metrics", authA, body)
	if m, ok := got["metrics"].(map[string]any); st != 200 || !ok || m["next_cursor"] != "" {
		t.Errorf("POST /v2/projects/p-a/metrics = %d %v", st, got)
	}
	if st, got := s.do(t, "POST", "/v2/projects/p-b/metrics", authA, body); st != 404 || !strings.Contains(got["error"].(string), `this API key's project is "p-a"`) {
		t.Errorf("another project's path = %d %v, want 404", st, got)
	}
	if st, _ := s.do(t, "GET", "/v2/projects/p-a/metrics?from_timestamp_sec=1700000000", authA, nil); st != 200 {
		t.Errorf("GET /v2/projects/p-a/metrics = %d", st)
	}
}
