package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// runVerified sends for 2 s to c with -verify-api and returns the report.
func runVerified(t *testing.T, c *testcollector.Collector) Report {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), []string{"-endpoint", c.OTLPHTTP, "-api-key", testcollector.DefaultAPIKey,
		"-duration", "2s", "-batch", "20", "-min-bytes", "100", "-max-bytes", "200",
		"-verify-api", c.API, "-verify-wait", "10s"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report %q: %v", out.String(), err)
	}
	if rep.Acknowledged == 0 || !rep.Verified {
		t.Fatalf("report %+v: want acknowledged spans, verified", rep)
	}
	return rep
}

// TestVerifyFindsEveryAcknowledgedSpan: against the default (durable)
// pipeline every acknowledged span is found stored.
func TestVerifyFindsEveryAcknowledgedSpan(t *testing.T) {
	rep := runVerified(t, testcollector.Start(t, testcollector.DefaultConfig))
	if rep.AcknowledgedLost != 0 || rep.StoredSpans < rep.Acknowledged {
		t.Errorf("report %+v: want every acknowledged span stored", rep)
	}
}

// TestVerifyCountsLostSpans: a pipeline that acknowledges spans it holds
// in memory (a batch processor with a 1 h timeout) has stored none of
// them when verify looks: all count as lost.
func TestVerifyCountsLostSpans(t *testing.T) {
	cfg := testcollector.DefaultConfig
	for _, r := range [][2]string{
		{"  evaluator: {api: evalapi}\n", "  evaluator: {api: evalapi}\n  batch: {timeout: 1h, send_batch_size: 10000000}\n"},
		{"warehouse: {api: evalapi}", "warehouse: {api: evalapi, sending_queue: {enabled: true}}"},
		{"processors: [tenant, evaluator]", "processors: [tenant, evaluator, batch]"},
	} {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("testcollector.DefaultConfig no longer contains %q", r[0])
		}
		cfg = strings.Replace(cfg, r[0], r[1], 1)
	}
	rep := runVerified(t, testcollector.Start(t, cfg))
	if rep.AcknowledgedLost != rep.Acknowledged || rep.StoredSpans != 0 {
		t.Errorf("report %+v: want all %d acknowledged spans counted lost", rep, rep.Acknowledged)
	}
}
