package e2etest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// proxyConfig is the default pipeline whose OTLP/HTTP receiver accepts
// bodies up to 3 MiB.
const proxyConfig = `
extensions:
  evalapi:
    endpoint: {{.API}}
    otlp_proxy_endpoint: http://{{.OTLPHTTP}}
    warehouse: {backend: sqlite, path: {{.DataDir}}/evalcol.db}
    api_keys:
      - {key: ` + testcollector.DefaultAPIKey + `, environment: production}
receivers:
  otlp:
    protocols:
      http: {endpoint: {{.OTLPHTTP}}, max_request_body_size: 3145728, auth: {authenticator: evalapi}, middlewares: [{id: evalapi}]}
processors:
  tenant: {}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [tenant], exporters: [warehouse]}
`

// bigSpan is an OTLP/HTTP protobuf body of about size bytes: one span
// named name with a large attribute.
func bigSpan(name string, id byte, size int) []byte {
	td := ptrace.NewTraces()
	s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetName(name)
	s.SetTraceID(pcommon.TraceID{id, 1})
	s.SetSpanID(pcommon.SpanID{id, 1})
	now := pcommon.NewTimestampFromTime(time.Now())
	s.SetStartTimestamp(now)
	s.SetEndTimestamp(now)
	s.Attributes().PutStr("llm.prompts.0.content", strings.Repeat("p", size))
	b, _ := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	return b
}

// postOTLP posts body to the API port's /v1/traces; chunked hides its
// length.
func postOTLP(t *testing.T, c *testcollector.Collector, body []byte, chunked bool) (int, string) {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // no length known: sent chunked
	}
	req, _ := http.NewRequest("POST", "http://"+c.API+"/v1/traces", rd)
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+testcollector.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %d bytes (chunked %v) to the API port: %v", len(body), chunked, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOTLPProxyBodyLimits: the API port forwards OTLP bodies up to the
// receiver's own max_request_body_size (read from the collector's
// configuration) and answers larger ones 413 with a message, whether the
// length is announced or the body is chunked; nothing of a refused body is
// stored.
func TestOTLPProxyBodyLimits(t *testing.T) {
	t.Run("receiver limit 3 MiB", func(t *testing.T) {
		c := testcollector.Start(t, proxyConfig)
		for i, size := range []int{1_100_000, 2_500_000} {
			if status, body := postOTLP(t, c, bigSpan(fmt.Sprintf("fits-%d", size), byte(i+1), size), i == 1); status != 200 {
				t.Errorf("%d bytes: %d %s, want 200", size, status, body)
			}
		}
		for i, chunked := range []bool{false, true} {
			status, body := postOTLP(t, c, bigSpan("too-large", byte(10+i), 4_000_000), chunked)
			if status != 413 || !strings.Contains(body, "request body exceeds the OTLP receiver's limit of 3145728 bytes (max_request_body_size)") {
				t.Errorf("4 MB (chunked %v): %d %s, want 413 naming the limit", chunked, status, body)
			}
		}
		var got spansResponse
		testcollector.Eventually(t, 10*time.Second, func() bool {
			_, got = querySpans(t, c, testcollector.DefaultAPIKey, nil)
			return got.Spans.TotalResults >= 2
		}, "the two forwarded spans stored")
		time.Sleep(200 * time.Millisecond)
		_, got = querySpans(t, c, testcollector.DefaultAPIKey, nil)
		if got.Spans.TotalResults != 2 {
			t.Errorf("stored %d spans, want 2", got.Spans.TotalResults)
		}
		for _, s := range got.Spans.Data {
			if !strings.HasPrefix(s.SpanName, "fits-") {
				t.Errorf("stored %s", s.SpanName)
			}
		}
	})
	t.Run("receiver default limit", func(t *testing.T) {
		c := testcollector.Start(t, testcollector.DefaultConfig)
		if status, body := postOTLP(t, c, bigSpan("fits", 1, 1_100_000), false); status != 200 {
			t.Errorf("1.1 MB: %d %s, want 200", status, body)
		}
		status, body := postOTLP(t, c, bigSpan("too-large", 2, 21<<20), false)
		if status != 413 || !strings.Contains(body, "limit of 20971520 bytes") {
			t.Errorf("21 MiB: %d %s, want 413", status, body)
		}
		// The API's own routes keep their 1 MiB limit.
		r := c.Call("POST", "/v2/evaluators/execute/char-count", testcollector.DefaultAPIKey, `{"input":{"text":"`+strings.Repeat("a", 1_100_000)+`"}}`)
		if r.Status != 413 || !strings.Contains(string(r.Body), "request body exceeds the limit of 1048576 bytes") {
			t.Errorf("1.1 MB evaluator call: %d %s, want 413", r.Status, r.Body)
		}
	})
}
