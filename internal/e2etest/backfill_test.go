package e2etest

import (
	"net/url"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// backfillObject is the backfill state of a setup.
type backfillObject struct {
	FromTimestampSec int64  `json:"from_timestamp_sec"`
	ToTimestampSec   int64  `json:"to_timestamp_sec"`
	Status           string `json:"status"`
	Scanned          int64  `json:"scanned"`
	Evaluated        int64  `json:"evaluated"`
	Error            string `json:"error"`
	FinishedAt       string `json:"finished_at"`
}

// TestSetupBackfill: spans of a workflow are ingested first; a setup
// created afterwards with backfill_from_timestamp_sec evaluates them in the
// background, and its results land on the stored spans and in /v2/metrics
// like live ones.
func TestSetupBackfill(t *testing.T) {
	c := testcollector.Start(t, testcollector.DefaultConfig)
	key := testcollector.DefaultAPIKey
	chat(t, c, "pirate_joke_generator", "Arr, why did the pirate cross the sea? To get to the other tide.", "Yo ho ho.")
	chat(t, c, "weather_bot", "It will rain tomorrow.")
	testcollector.Eventually(t, 10*time.Second, func() bool {
		_, s := querySpans(t, c, key, url.Values{})
		return s.Spans.TotalResults == 3
	}, "3 spans stored")

	from := time.Now().Add(-time.Hour).Unix()
	resp := c.Call("POST", "/v2/auto-monitor-setups", key, map[string]any{
		"entity_type": "workflow", "entity_value": "pirate_joke_generator", "external_id": "pirates-backfill",
		"evaluators": []string{"char-count", "toxicity-detector"}, "backfill_from_timestamp_sec": from,
	})
	if resp.Status != 201 {
		t.Fatalf("create = %d %s", resp.Status, resp.Body)
	}
	var created struct {
		ID       string          `json:"id"`
		Backfill *backfillObject `json:"backfill"`
	}
	resp.JSON(t, &created)
	if created.Backfill == nil || created.Backfill.Status != "pending" || created.Backfill.FromTimestampSec != from ||
		created.Backfill.ToTimestampSec < from {
		t.Fatalf("created backfill = %+v, want pending from %d", created.Backfill, from)
	}

	var got struct {
		Status   string          `json:"status"`
		Backfill *backfillObject `json:"backfill"`
	}
	testcollector.Eventually(t, 20*time.Second, func() bool {
		r := c.Call("GET", "/v2/auto-monitor-setups/"+created.ID, key, nil)
		if r.Status != 200 {
			t.Fatalf("get = %d %s", r.Status, r.Body)
		}
		r.JSON(t, &got)
		return got.Backfill != nil && (got.Backfill.Status == "done" || got.Backfill.Status == "failed")
	}, "backfill finished")
	if b := got.Backfill; b.Status != "done" || b.Scanned != 2 || b.Evaluated != 2 || b.Error != "" || b.FinishedAt == "" {
		t.Fatalf("backfill = %+v, want done with 2 scanned and evaluated", b)
	}

	_, pirates := querySpans(t, c, key, url.Values{"workflow": {"pirate_joke_generator"}})
	if len(pirates.Spans.Data) != 2 {
		t.Fatalf("got %d pirate spans, want 2", len(pirates.Spans.Data))
	}
	for _, sp := range pirates.Spans.Data {
		names := map[any]bool{}
		for _, ev := range sp.Evaluations {
			if ev["monitor_id"] != created.ID {
				t.Errorf("span %s: evaluation %v of another monitor", sp.SpanID, ev)
			}
			names[ev["name"]] = true
		}
		if len(sp.Evaluations) != 2 || !names["char-count"] || !names["toxicity-detector"] {
			t.Errorf("span %s evaluations = %v, want char-count and toxicity-detector", sp.SpanID, sp.Evaluations)
		}
	}
	_, weather := querySpans(t, c, key, url.Values{"workflow": {"weather_bot"}})
	if len(weather.Spans.Data) != 1 || len(weather.Spans.Data[0].Evaluations) != 0 {
		t.Errorf("the other workflow's span was evaluated: %+v", weather.Spans.Data)
	}

	m := queryMetrics(t, c, map[string]any{
		"filters": []map[string]any{{"field": "labels.monitor_id", "operator": "equals", "value": created.ID}},
	})
	perName := map[string]int{}
	for _, g := range m.Metrics.Data {
		for _, p := range g.Points {
			perName[g.MetricName]++
			if p.Labels["workflow"] != "pirate_joke_generator" || p.Labels["monitor_id"] != created.ID {
				t.Errorf("point %s labels = %v", g.MetricName, p.Labels)
			}
		}
	}
	if perName["char-count.char_count"] != 2 || perName["toxicity-detector.is_safe"] != 2 {
		t.Errorf("points per metric = %v, want 2 char-count.char_count and 2 toxicity-detector.is_safe", perName)
	}
}
