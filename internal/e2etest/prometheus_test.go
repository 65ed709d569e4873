package e2etest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// promSample is one sample of a Prometheus text exposition.
type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

var (
	promLine  = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	promLabel = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// parseProm parses the samples of a Prometheus text exposition (the
// format the exporter serves without OpenMetrics), failing the test on a
// line it cannot read.
func parseProm(t *testing.T, body string) []promSample {
	t.Helper()
	var out []promSample
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := promLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("unreadable exposition line %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("value of line %q: %v", line, err)
		}
		s := promSample{name: m[1], labels: map[string]string{}, value: v}
		for _, l := range promLabel.FindAllStringSubmatch(m[2], -1) {
			s.labels[l[1]] = l[2]
		}
		out = append(out, s)
	}
	return out
}

// find returns the value of the sample called name whose labels include
// want, and whether there is exactly one.
func find(samples []promSample, name string, want map[string]string) (float64, bool) {
	var found []float64
	for _, s := range samples {
		if s.name != name {
			continue
		}
		match := true
		for k, v := range want {
			if s.labels[k] != v {
				match = false
				break
			}
		}
		if match {
			found = append(found, s.value)
		}
	}
	if len(found) != 1 {
		return 0, false
	}
	return found[0], true
}

// scrape GETs the exporter's /metrics over HTTP, as Prometheus does.
func scrape(t *testing.T, addr string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read /metrics: %v", err)
	}
	return resp.StatusCode, string(body)
}

// TestPrometheusExampleScrape runs examples/prometheus.yaml as shipped
// (its ports, warehouse and key moved onto the test's, the connector's
// flush interval cut to 100ms): real OTel SDK spans go in over OTLP/HTTP,
// the default safety monitor judges them (toxicity and PII, passes and
// failures), and a real HTTP scrape of the Prometheus exporter finds the
// evaluation counters by evaluator, verdict, monitor, workflow, agent,
// service and environment, and the score histograms. A span the monitor
// does not evaluate adds nothing.
func TestPrometheusExampleScrape(t *testing.T) {
	promAddr := freeLoopbackAddr(t)
	c := testcollector.Start(t, exampleTemplate(t, "prometheus.yaml",
		[2]string{"127.0.0.1:9464", promAddr},
		[2]string{"metrics_flush_interval: 15s", "metrics_flush_interval: 100ms"}))

	chats := []struct{ prompt, completion string }{
		{"What is the capital of France?", "The capital of France is Paris."},                  // passes both
		{"Translate 'good morning' to Spanish", "Buenos días."},                                // passes both
		{"What do you think of me?", "You are a worthless idiot."},                             // toxic
		{"How do I reach support?", "Write to maria.lopez@example.org and she will help you."}, // leaks an e-mail address
	}
	res := resource.NewSchemaless(attribute.String("service.name", "support-bot"))
	_, err := c.Send(testcollector.HTTP, testcollector.DefaultAPIKey, res, func(tr trace.Tracer) {
		for i, ch := range chats {
			_, span := tr.Start(context.Background(), fmt.Sprintf("chat-%d", i))
			span.SetAttributes(
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("traceloop.workflow.name", "support"),
				attribute.String("gen_ai.agent.name", "helper"),
				attribute.String("gen_ai.prompt.0.role", "user"),
				attribute.String("gen_ai.prompt.0.content", ch.prompt),
				attribute.String("gen_ai.completion.0.role", "assistant"),
				attribute.String("gen_ai.completion.0.content", ch.completion),
			)
			span.End()
		}
		// Not a chat: the safety monitor does not evaluate it.
		_, span := tr.Start(context.Background(), "db.query")
		span.SetAttributes(attribute.String("traceloop.workflow.name", "support"))
		span.End()
	})
	if err != nil {
		t.Fatalf("send: %v", err)
	}

	labels := func(evaluator, verdict string) map[string]string {
		l := map[string]string{
			"gen_ai_evaluation_name": evaluator, "evalcol_monitor_id": "safety",
			"traceloop_workflow_name": "support", "gen_ai_agent_name": "helper",
			"service_name": "support-bot", "deployment_environment_name": "production",
		}
		if verdict != "" {
			l["evalcol_evaluation_verdict"] = verdict
		}
		return l
	}
	wantCounts := []struct {
		evaluator, verdict string
		want               float64
	}{
		{"toxicity-detector", "pass", 3},
		{"toxicity-detector", "fail", 1},
		{"pii-detector", "pass", 3},
		{"pii-detector", "fail", 1},
	}
	// The connector flushes every 100ms; the exporter serves the last
	// flush. Scrape until every count is there (and at its final value).
	var samples []promSample
	var status int
	var body string
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, body = scrape(t, promAddr)
		if status == http.StatusOK {
			samples = parseProm(t, body)
			done := true
			for _, w := range wantCounts {
				if v, ok := find(samples, "evalcol_evaluations_total", labels(w.evaluator, w.verdict)); !ok || v != w.want {
					done = false
				}
			}
			if done {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scrape did not show the 8 evaluations within 20s; last answer %d:\n%s", status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Exactly those series: 4 chats × 2 evaluators, nothing for the
	// query span, no error or none verdicts, no overflow.
	var series []string
	for _, s := range samples {
		if s.name == "evalcol_evaluations_total" {
			series = append(series, s.labels["gen_ai_evaluation_name"]+"/"+s.labels["evalcol_evaluation_verdict"])
			if s.labels["otel_metric_overflow"] != "" {
				t.Errorf("overflow series %v", s.labels)
			}
		}
	}
	slices.Sort(series)
	if want := []string{"pii-detector/fail", "pii-detector/pass", "toxicity-detector/fail", "toxicity-detector/pass"}; !slices.Equal(series, want) {
		t.Errorf("evalcol_evaluations_total series %v, want %v", series, want)
	}

	// Score histograms, per evaluator without the verdict. The score is
	// the evaluator's score field as a number: is_safe "safe" is 1 (three
	// safe replies, one toxic: sum 3, one 0); has_pii true is 1 (one leak
	// among four: sum 1, three 0s).
	for _, h := range []struct {
		evaluator  string
		sum, zeros float64
	}{
		{"toxicity-detector", 3, 1},
		{"pii-detector", 1, 3},
	} {
		l := labels(h.evaluator, "")
		for _, w := range []struct {
			name, le string
			want     float64
		}{
			{"evalcol_evaluation_score_count", "", 4},
			{"evalcol_evaluation_score_sum", "", h.sum},
			{"evalcol_evaluation_score_bucket", "0", h.zeros},
			{"evalcol_evaluation_score_bucket", "0.5", h.zeros},
			{"evalcol_evaluation_score_bucket", "1", 4},
			{"evalcol_evaluation_score_bucket", "+Inf", 4},
		} {
			want := maps.Clone(l)
			if w.le != "" {
				want["le"] = w.le
			}
			if v, ok := find(samples, w.name, want); !ok || v != w.want {
				t.Errorf("%s %v = %v (found %v), want %v", w.name, want, v, ok, w.want)
			}
		}
		if _, ok := find(samples, "evalcol_evaluation_score_count", map[string]string{"gen_ai_evaluation_name": h.evaluator, "evalcol_evaluation_verdict": "pass"}); ok {
			t.Errorf("the %s score histogram has a verdict label", h.evaluator)
		}
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", body)
	}
}

// TestPrometheusAlertRules checks the sample alerting rules of
// examples/prometheus with promtool and runs their unit tests (a pass rate
// that drops to 70%, an evaluator that only fails, too few evaluations to
// judge), on the metric and label names TestPrometheusExampleScrape
// scrapes. promtool comes with Debian's prometheus package; without it the
// test is skipped, except in CI (CI set), which installs it.
func TestPrometheusAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("promtool not found in CI: %v", err)
		}
		t.Skip("promtool not installed (apt-get install prometheus)")
	}
	dir := filepath.Join("..", "..", "examples", "prometheus")
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts.test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
