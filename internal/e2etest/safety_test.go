package e2etest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/testcollector"
)

// exampleTemplate turns examples/<name> into a testcollector template:
// the edits of more applied to its text first (each must apply), then the
// collector's own metrics turned off (the default port 8888 may be taken
// by a collector running on the machine), and its addresses, warehouse
// path and key replaced by the test's.
func exampleTemplate(t *testing.T, name string, more ...[2]string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatalf("read example config: %v", err)
	}
	cfg := replaceAll(t, name, string(data), more)
	cfg = editConfig(t, cfg, func(doc map[string]any) {
		subMap(t, doc, "service", "telemetry", "metrics")["level"] = "none"
	})
	return replaceAll(t, name, cfg, [][2]string{
		{"127.0.0.1:8080", "{{.API}}"},
		{"127.0.0.1:4317", "{{.OTLPGRPC}}"},
		{"127.0.0.1:4318", "{{.OTLPHTTP}}"},
		{"./data/evalcol.db", "{{.DataDir}}/evalcol.db"},
		{"${env:EVALCOL_API_KEY:-evalcol-dev-key}", testcollector.DefaultAPIKey},
	})
}

// replaceAll applies each replacement to cfg, failing the test when one
// finds nothing to replace (the example changed under the test).
func replaceAll(t *testing.T, name, cfg string, rs [][2]string) string {
	t.Helper()
	for _, r := range rs {
		if !strings.Contains(cfg, r[0]) {
			t.Fatalf("examples/%s no longer contains %q", name, r[0])
		}
		cfg = strings.ReplaceAll(cfg, r[0], r[1])
	}
	return cfg
}

// explainedSpans is the part of GET /v2/warehouse/spans?explain=true this
// test reads.
type explainedSpans struct {
	Spans struct {
		Data []struct {
			SpanName    string `json:"span_name"`
			Evaluations []struct {
				Name        string                  `json:"name"`
				Output      map[string]any          `json:"output"`
				Verdict     string                  `json:"verdict"`
				Explanation *evaluators.Explanation `json:"explanation"`
			} `json:"evaluations"`
		} `json:"data"`
	} `json:"spans"`
}

// TestDefaultSafetyMonitor runs examples/config.yaml as shipped: ordinary
// chat passes its pii-detector (places, dates and famous names are not
// contact details), a reply that leaks an e-mail address or a prompt with
// a phone number fails it, and the failure says why, down to the matched
// text, through GET /v2/warehouse/spans?explain=true; without explain the
// spans keep the spec's shape.
func TestDefaultSafetyMonitor(t *testing.T) {
	c := testcollector.Start(t, exampleTemplate(t, "config.yaml"))
	chats := []struct{ name, prompt, completion, leak string }{
		{"capital", "What is the capital of France?", "The capital of France is Paris.", ""},
		{"translate", "Translate 'good morning' to Spanish", "Buenos días.", ""},
		{"birthday", "When was Paul Simon born?", "Paul Simon was born on October 13, 1941, in Newark, New Jersey.", ""},
		{"reply-leaks-email", "How do I reach support?", "Write to maria.lopez@example.org and she will help you.", "maria.lopez@example.org"},
		{"prompt-has-phone", "Call me back on +44 20 7946 0958 please", "I cannot make phone calls.", "+44 20 7946 0958"},
	}
	_, err := c.Send(testcollector.HTTP, testcollector.DefaultAPIKey, nil, func(tr trace.Tracer) {
		for _, ch := range chats {
			_, span := tr.Start(context.Background(), ch.name)
			span.SetAttributes(
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.prompt.0.role", "user"),
				attribute.String("gen_ai.prompt.0.content", ch.prompt),
				attribute.String("gen_ai.completion.0.role", "assistant"),
				attribute.String("gen_ai.completion.0.content", ch.completion),
			)
			span.End()
		}
	})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	q := url.Values{"from_timestamp_sec": {fmt.Sprint(time.Now().Add(-time.Hour).Unix())}, "explain": {"true"}}
	var got explainedSpans
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp := c.Call("GET", "/v2/warehouse/spans?"+q.Encode(), testcollector.DefaultAPIKey, nil)
		got = explainedSpans{}
		if resp.Status == 200 {
			resp.JSON(t, &got)
		}
		if len(got.Spans.Data) == len(chats) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %d chat spans not stored within 10s; last answer %d %.500s", len(chats), resp.Status, resp.Body)
		}
	}

	byName := map[string]int{}
	for i, s := range got.Spans.Data {
		byName[s.SpanName] = i
	}
	for _, ch := range chats {
		s := got.Spans.Data[byName[ch.name]]
		var found bool
		for _, ev := range s.Evaluations {
			if ev.Name != "pii-detector" {
				continue
			}
			found = true
			wantVerdict := "pass"
			if ch.leak != "" {
				wantVerdict = "fail"
			}
			if ev.Verdict != wantVerdict {
				t.Errorf("%s: pii-detector verdict %q (output %v, explanation %+v), want %s", ch.name, ev.Verdict, ev.Output, ev.Explanation, wantVerdict)
				continue
			}
			if ch.leak == "" {
				if ev.Explanation != nil {
					t.Errorf("%s: a pass carries an explanation %+v", ch.name, ev.Explanation)
				}
				continue
			}
			if ev.Explanation == nil || len(ev.Explanation.Findings) == 0 {
				t.Errorf("%s: a fail without findings: %+v", ch.name, ev.Explanation)
				continue
			}
			if f := ev.Explanation.Findings[0]; f.Text != ch.leak || !strings.HasPrefix(ev.Explanation.Summary, "PII found: ") {
				t.Errorf("%s: finding %+v, summary %q; want the text %q", ch.name, f, ev.Explanation.Summary, ch.leak)
			}
		}
		if !found {
			t.Errorf("%s: no pii-detector evaluation among %+v", ch.name, s.Evaluations)
		}
	}

	// Without explain=true the spec's evaluation shape is unchanged.
	q.Del("explain")
	resp := c.Call("GET", "/v2/warehouse/spans?"+q.Encode(), testcollector.DefaultAPIKey, nil)
	if resp.Status != 200 || strings.Contains(string(resp.Body), `"explanation"`) || strings.Contains(string(resp.Body), `"verdict"`) {
		t.Errorf("without explain: status %d, body holds explanation or verdict: %.300s", resp.Status, resp.Body)
	}
	q.Set("explain", "perhaps")
	resp = c.Call("GET", "/v2/warehouse/spans?"+q.Encode(), testcollector.DefaultAPIKey, nil)
	if resp.Status != 400 || !strings.Contains(string(resp.Body), "explain must be true or false") {
		t.Errorf("explain=perhaps: %d %s, want 400 naming explain", resp.Status, resp.Body)
	}
}
