package e2etest

import (
	"net/url"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/testcollector"
)

// monitoringStatus is the answer of GET /v2/monitoring/status.
type monitoringStatus = monitoringstatus.Status

func getStatus(t *testing.T, c *testcollector.Collector, key string) monitoringStatus {
	t.Helper()
	resp := c.Call("GET", "/v2/monitoring/status", key, nil)
	if resp.Status != 200 {
		t.Fatalf("GET /v2/monitoring/status = %d %s", resp.Status, resp.Body)
	}
	var s monitoringStatus
	resp.JSON(t, &s)
	return s
}

// TestMonitoringStatus: a collector reports, per API key environment,
// whether evaluation keeps up: nothing evaluated yet (null), evaluated and
// caught up (OK), and ERROR when every binding of the environment's
// setups failed.
func TestMonitoringStatus(t *testing.T) {
	c := testcollector.Start(t, withAdminKey(t, testcollector.DefaultConfig))
	key := testcollector.DefaultAPIKey
	s := getStatus(t, c, key)
	if s.Status != "OK" || s.EvaluatedUpTo != nil || s.LatestSpanReceived != nil || s.Environment != "production" ||
		s.OrganizationID != "org-1" || s.Project != "proj-1" || s.Reasons == nil || len(s.Reasons) != 0 {
		t.Errorf("status of a new collector = %+v", s)
	}
	if r := c.Call("GET", "/v2/monitoring/status", "", nil); r.Status != 401 {
		t.Errorf("status without a key = %d, want 401", r.Status)
	}

	if r := c.Call("POST", "/v2/auto-monitor-setups", key, map[string]any{
		"entity_type": "workflow", "entity_value": "pirate_joke_generator", "evaluators": []string{"char-count", "toxicity"}}); r.Status != 201 {
		t.Fatalf("create setup = %d %s", r.Status, r.Body)
	}
	time.Sleep(300 * time.Millisecond)
	before := time.Now().Add(-time.Second)
	for i := range 3 {
		sendChatSpan(t, c, testcollector.HTTP, key, "chat-"+string(rune('a'+i)), nil)
	}
	// The three spans are stored with their evaluations before the status
	// is read; the exporter reports them right after the commit, so the
	// status catches up within the poll.
	testcollector.Eventually(t, 15*time.Second, func() bool {
		_, page := querySpans(t, c, key, url.Values{"workflow": {"pirate_joke_generator"}})
		if page.Spans.TotalResults != 3 {
			return false
		}
		for _, sp := range page.Spans.Data {
			if len(sp.Evaluations) != 2 {
				return false
			}
		}
		s = getStatus(t, c, key)
		return s.EvaluatedUpTo != nil && s.LagInSpans == 0
	}, "the three spans stored with their evaluations and the status caught up")
	if s.Status != "OK" || s.LagInSeconds != 0 || s.LagInSpans != 0 || s.LatestSpanReceived == nil ||
		s.LatestSpanReceived.Before(before.Truncate(time.Second)) || s.EvaluatedUpTo.After(*s.LatestSpanReceived) {
		t.Errorf("status after evaluated spans = %+v", s)
	}

	// A runtime environment whose only setup binds no known evaluator.
	org := createOrganization(t, c, "Broken Co", "prd")
	prd := org.Environments[0].APIKey
	if r := c.Call("POST", "/v2/auto-monitor-setups", prd, map[string]any{"evaluators": []string{"hallucinations"}}); r.Status != 201 {
		t.Fatalf("create setup = %d %s", r.Status, r.Body)
	}
	testcollector.Eventually(t, 10*time.Second, func() bool { return getStatus(t, c, prd).Status == "ERROR" }, "ERROR for an environment whose setups all failed")
	s = getStatus(t, c, prd)
	if len(s.Reasons) != 1 || s.Environment != org.OrgID+"/prd" || s.OrganizationID != org.OrgID {
		t.Errorf("status of the broken environment = %+v", s)
	}
	if got := getStatus(t, c, key); got.Status != "OK" {
		t.Errorf("the other environment's status = %+v, want OK", got)
	}
}

// TestMonitoringStatusAcrossClickHouseCollectors: a span evaluated and
// stored by collector A shows in the status collector B answers (A's
// counters reach B through the warehouse).
func TestMonitoringStatusAcrossClickHouseCollectors(t *testing.T) {
	addr := clickhouseAddr(t)
	db := testDatabase(t, addr)
	a := testcollector.Start(t, clickhouseConfig(addr, db))
	b := testcollector.Start(t, clickhouseConfig(addr, db))
	key := testcollector.DefaultAPIKey
	if s := getStatus(t, b, key); s.EvaluatedUpTo != nil || s.Status != "OK" {
		t.Fatalf("B before anything = %+v", s)
	}
	if r := a.Call("POST", "/v2/auto-monitor-setups", key, map[string]any{
		"entity_type": "workflow", "entity_value": "pirate_joke_generator", "evaluators": []string{"char-count"}}); r.Status != 201 {
		t.Fatalf("create setup = %d %s", r.Status, r.Body)
	}
	time.Sleep(500 * time.Millisecond)
	sendChatSpan(t, a, testcollector.HTTP, key, "evaluated-by-a", nil)
	var s monitoringStatus
	testcollector.Eventually(t, 15*time.Second, func() bool {
		s = getStatus(t, b, key)
		return s.EvaluatedUpTo != nil && s.LatestSpanReceived != nil
	}, "B's status covers the span A evaluated")
	if s.Status != "OK" || s.LagInSpans != 0 {
		t.Errorf("B's status = %+v", s)
	}
}
