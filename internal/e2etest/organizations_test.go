package e2etest

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// adminKey is the admin key withAdminKey adds to a config.
const adminKey = "test-admin-key-ops"

// withAdminKey adds an admin key (environment ops) to a config's api_keys.
func withAdminKey(t *testing.T, cfg string) string {
	t.Helper()
	const anchor = "    api_keys:\n"
	if !strings.Contains(cfg, anchor) {
		t.Fatalf("config has no api_keys list to extend")
	}
	return strings.Replace(cfg, anchor, anchor+"      - {key: "+adminKey+", environment: ops, role: admin}\n", 1)
}

type createdOrganization struct {
	OrgID        string `json:"org_id"`
	Environments []struct {
		Slug   string `json:"slug"`
		APIKey string `json:"api_key"`
		KeyID  string `json:"key_id"`
	} `json:"environments"`
}

func createOrganization(t *testing.T, c *testcollector.Collector, name string, envs ...string) createdOrganization {
	t.Helper()
	resp := c.Call("POST", "/v2/organizations", adminKey, map[string]any{"org_name": name, "envs": envs})
	if resp.Status != 201 {
		t.Fatalf("POST /v2/organizations = %d %s", resp.Status, resp.Body)
	}
	var out createdOrganization
	resp.JSON(t, &out)
	if len(out.Environments) != len(envs) {
		t.Fatalf("created %+v, want %d environments", out, len(envs))
	}
	return out
}

// exportRefused sends one span with key over proto and reports whether the
// receiver refused it as unauthenticated.
func exportRefused(t *testing.T, c *testcollector.Collector, proto testcollector.Protocol, key string) bool {
	t.Helper()
	_, err := c.Send(proto, key, nil, func(tr trace.Tracer) {
		_, span := tr.Start(context.Background(), "after-revocation")
		span.End()
	})
	return err != nil && (strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "Unauthenticated"))
}

// TestRuntimeKeysIngestAndIsolation: the keys of an organization created
// at run time authenticate OTLP ingest (HTTP and gRPC) and /v2 at once,
// file and read spans of their environment only, label metric points with
// the organization, and are refused at once when revoked.
func TestRuntimeKeysIngestAndIsolation(t *testing.T) {
	c := testcollector.Start(t, withAdminKey(t, testcollector.DefaultConfig))
	org := createOrganization(t, c, "Runtime Co", "dev", "prd")
	dev, prd := org.Environments[0], org.Environments[1]

	setup := c.Call("POST", "/v2/auto-monitor-setups", dev.APIKey, map[string]any{
		"entity_type": "workflow", "entity_value": "pirate_joke_generator", "evaluators": []string{"char-count"}})
	if setup.Status != 201 {
		t.Fatalf("setup with the dev key = %d %s", setup.Status, setup.Body)
	}
	time.Sleep(300 * time.Millisecond) // the setup compiles into a monitor
	sendChatSpan(t, c, testcollector.HTTP, dev.APIKey, "dev-over-http", nil)
	sendChatSpan(t, c, testcollector.GRPC, dev.APIKey, "dev-over-grpc", nil)
	sendChatSpan(t, c, testcollector.HTTP, testcollector.DefaultAPIKey, "yaml-tenant", nil)

	var got spansResponse
	testcollector.Eventually(t, 15*time.Second, func() bool {
		_, got = querySpans(t, c, dev.APIKey, nil)
		return len(got.Spans.Data) == 2
	}, "the dev key's two spans")
	for _, s := range got.Spans.Data {
		if s.Environment != org.OrgID+"/dev" || !strings.HasPrefix(s.SpanName, "dev-") || len(s.Evaluations) != 1 {
			t.Errorf("dev span %s: environment %q, %d evaluations; want %s/dev and one", s.SpanName, s.Environment, len(s.Evaluations), org.OrgID)
		}
	}
	for name, key := range map[string]string{"prd": prd.APIKey, "YAML": testcollector.DefaultAPIKey, "admin": adminKey} {
		_, other := querySpans(t, c, key, url.Values{"span_name": {"dev-over-http"}})
		if len(other.Spans.Data) != 0 {
			t.Errorf("the %s key reads a dev span", name)
		}
	}
	resp := c.Call("POST", "/v2/metrics", dev.APIKey, map[string]any{"from_timestamp_sec": time.Now().Add(-time.Hour).Unix(), "metric_name": "char-count.char_count"})
	var m metricsResponse
	resp.JSON(t, &m)
	if len(m.Metrics.Data) != 1 || len(m.Metrics.Data[0].Points) != 2 || m.Metrics.Data[0].OrganizationID != org.OrgID {
		t.Errorf("dev's char-count metrics = %+v, want two points of organization %s", m.Metrics.Data, org.OrgID)
	}

	// Revoked: refused at once for ingest and /v2.
	if r := c.Call("DELETE", "/v2/organizations/"+org.OrgID+"/keys/"+dev.KeyID, adminKey, nil); r.Status != 204 {
		t.Fatalf("revoke = %d %s", r.Status, r.Body)
	}
	for _, proto := range []testcollector.Protocol{testcollector.HTTP, testcollector.GRPC} {
		if !exportRefused(t, c, proto, dev.APIKey) {
			t.Errorf("a revoked key's OTLP export over protocol %d was not refused as unauthenticated", proto)
		}
	}
	if r, _ := querySpans(t, c, dev.APIKey, nil); r.Status != 401 {
		t.Errorf("span query with a revoked key = %d, want 401", r.Status)
	}
	if _, err := c.Send(testcollector.HTTP, prd.APIKey, nil, func(tr trace.Tracer) {
		_, span := tr.Start(context.Background(), "prd-still-fine")
		span.End()
	}); err != nil {
		t.Errorf("the prd key after dev's revocation: %v", err)
	}
}

// TestRuntimeKeysAcrossClickHouseCollectors: two collectors share one
// ClickHouse warehouse. A key made through A authenticates ingest and /v2
// on B at once; a key revoked through A is refused by B within seconds.
func TestRuntimeKeysAcrossClickHouseCollectors(t *testing.T) {
	addr := clickhouseAddr(t)
	db := testDatabase(t, addr)
	a := testcollector.Start(t, withAdminKey(t, clickhouseConfig(addr, db)))
	b := testcollector.Start(t, withAdminKey(t, clickhouseConfig(addr, db)))

	org := createOrganization(t, a, "Shared Co", "prd")
	key := org.Environments[0]
	// At once on B: no wait for B's refresh.
	if r := b.Call("GET", "/v2/auto-monitor-setups", key.APIKey, nil); r.Status != 200 || string(r.Body) != "[]\n" {
		t.Errorf("B: setups with A's new key = %d %s, want 200 []", r.Status, r.Body)
	}
	sendChatSpan(t, b, testcollector.GRPC, key.APIKey, "via-b", nil)
	testcollector.Eventually(t, 15*time.Second, func() bool {
		_, got := querySpans(t, a, key.APIKey, nil)
		return len(got.Spans.Data) == 1 && got.Spans.Data[0].Environment == org.OrgID+"/prd"
	}, "the span B took with A's new key, read through A")
	if _, got := querySpans(t, b, testcollector.DefaultAPIKey, nil); len(got.Spans.Data) != 0 {
		t.Errorf("the YAML key reads the runtime organization's span")
	}

	if r := a.Call("DELETE", "/v2/organizations/"+org.OrgID+"/keys/"+key.KeyID, adminKey, nil); r.Status != 204 {
		t.Fatalf("revoke through A = %d %s", r.Status, r.Body)
	}
	start := time.Now()
	testcollector.Eventually(t, 10*time.Second, func() bool {
		return b.Call("GET", "/v2/auto-monitor-setups", key.APIKey, nil).Status == 401
	}, "B refuses the key A revoked")
	t.Logf("B refused the revoked key %s after the revocation", time.Since(start).Round(time.Millisecond))
	if !exportRefused(t, b, testcollector.HTTP, key.APIKey) {
		t.Error("B accepted OTLP with the revoked key")
	}
}
