//go:build linux

package e2etest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// overloadLimitMiB and overloadSpikeMiB configure the memory_limiter of the
// overload test.
const (
	overloadLimitMiB = 150
	overloadSpikeMiB = 30
)

// overloadConfig is the default pipeline with a low memory limit and a
// cheap evaluator on every span: the receivers take requests faster than
// the warehouse stores them, so they pile up waiting for their commit until
// the exporter (max_pending_mib) or the memory_limiter refuses more.
const overloadConfig = `
extensions:
  evalapi:
    endpoint: {{API}}
    warehouse: {backend: sqlite, path: {{DB}}}
    api_keys: [{key: ` + childAPIKey + `, environment: production}]
receivers:
  otlp:
    protocols:
      grpc: {endpoint: {{GRPC}}, auth: {authenticator: evalapi}}
      http: {endpoint: {{HTTP}}, auth: {authenticator: evalapi}}
processors:
  memory_limiter: {check_interval: 100ms, limit_mib: {{LIMIT}}, spike_limit_mib: {{SPIKE}}}
  tenant: {}
  evaluator:
    monitors:
      - {name: all, evaluators: [char-count]}
exporters:
  warehouse: {api: evalapi}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  extensions: [evalapi]
  pipelines:
    traces: {receivers: [otlp], processors: [memory_limiter, tenant, evaluator], exporters: [warehouse]}
`

// largeTracesRequest is an OTLP/protobuf request of n spans whose prompt and
// completion are textBytes bytes each, with ids unique per idBase.
func largeTracesRequest(n int, idBase uint64, textBytes int) ([]byte, error) {
	text := repeatText("Overload test text, plain and harmless, repeated. ", textBytes)
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "overload-test")
	ss := rs.ScopeSpans().AppendEmpty()
	now := pcommon.NewTimestampFromTime(time.Now())
	for i := range n {
		var tid pcommon.TraceID
		var sid pcommon.SpanID
		binary.BigEndian.PutUint64(tid[:8], idBase)
		binary.BigEndian.PutUint64(tid[8:], uint64(i)+1)
		binary.BigEndian.PutUint64(sid[:], idBase+uint64(i)+1)
		s := ss.Spans().AppendEmpty()
		s.SetName("overload chat")
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		s.SetStartTimestamp(now)
		s.SetEndTimestamp(now)
		s.Attributes().PutStr("gen_ai.operation.name", "chat")
		s.Attributes().PutStr("llm.prompts.0.role", "user")
		s.Attributes().PutStr("llm.prompts.0.content", text)
		s.Attributes().PutStr("llm.completions.0.role", "assistant")
		s.Attributes().PutStr("llm.completions.0.content", text)
	}
	var m ptrace.ProtoMarshaler
	return m.MarshalTraces(td)
}

// postTraces posts an OTLP/protobuf body to the child's /v1/traces and
// returns the HTTP status.
func postTraces(ctx context.Context, client *http.Client, addr string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/traces", bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("new request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+childAPIKey)
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post traces: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// watchPeakRSS samples the resident set size of process pid every period
// until the returned function is called; that function stops the sampling
// and returns the largest RSS seen, in MiB.
func watchPeakRSS(pid int, period time.Duration) func() float64 {
	var peak float64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if mib, err := rssMiB(pid); err == nil && mib > peak {
				peak = mib
			}
			select {
			case <-stop:
				return
			case <-time.After(period):
			}
		}
	}()
	return func() float64 {
		close(stop)
		<-done
		return peak
	}
}

// rssMiB reads the resident set size of process pid from /proc.
func rssMiB(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read process status: %w", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmRSS %q: %w", rest, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// overloadOutcome counts the answers the overload senders got.
type overloadOutcome struct {
	mu        sync.Mutex
	byAnswer  map[string]int // "http 200", "http 503", "grpc Unavailable", "transport error", ...
	retryable int
}

func (o *overloadOutcome) add(answer string, retryable bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byAnswer[answer]++
	if retryable {
		o.retryable++
	}
}

// TestOverloadRefusesAndRecovers runs an evalcol child process with a
// 150 MiB memory_limiter (and GOMEMLIMIT=150MiB) and floods it with 1 MB
// OTLP requests over HTTP and gRPC from 28 senders, far above what its
// warehouse can take. The senders must get retryable refusals (HTTP
// 429/503, gRPC RESOURCE_EXHAUSTED/UNAVAILABLE) and no other answer than
// success or their own timeout; the child's RSS must stay bounded; and
// once the flood stops, the collector must accept spans again by itself.
func TestOverloadRefusesAndRecovers(t *testing.T) {
	bin := buildEvalcol(t)
	addrs := newChildAddrs(t)
	cfg := strings.NewReplacer("{{API}}", addrs.API, "{{GRPC}}", addrs.OTLPGRPC, "{{HTTP}}", addrs.OTLPHTTP,
		"{{DB}}", addrs.DBPath, "{{LIMIT}}", strconv.Itoa(overloadLimitMiB), "{{SPIKE}}", strconv.Itoa(overloadSpikeMiB)).Replace(overloadConfig)
	// GOMEMLIMIT as the collector docs recommend next to the
	// memory_limiter: the limiter refuses requests only after the receiver
	// has read and decoded them, so under a flood the garbage of refused
	// requests (hundreds of MB/s here) outruns the limiter's forced GCs
	// every check_interval. Without it this test measured a peak RSS of
	// 545 MiB; with it the runtime collects as the heap nears the limit.
	c := startChild(t, bin, cfg, addrs, fmt.Sprintf("GOMEMLIMIT=%dMiB", overloadLimitMiB))
	pid := c.cmd.Process.Pid
	const (
		httpSenders, grpcSenders = 24, 4
		spansPerRequest          = 8
		textBytes                = 64 << 10 // 2 texts × 64 KiB × 8 spans ≈ 1 MiB per request
		flood                    = 5 * time.Second
		requestTimeout           = 5 * time.Second
	)
	client := &http.Client{Timeout: requestTimeout}
	// One request through the whole pipeline first, so that the baseline
	// RSS is that of a warm collector (evaluator, SQLite cache).
	warmup, err := largeTracesRequest(1, 1<<61, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := postTraces(context.Background(), client, addrs.OTLPHTTP, warmup); err != nil || code != http.StatusOK {
		t.Fatalf("warm-up request: status %d, %v", code, err)
	}
	time.Sleep(300 * time.Millisecond)
	warmRSS, err := rssMiB(pid)
	if err != nil {
		t.Fatal(err)
	}

	// Watch the RSS every 20 ms while the test runs.
	peakRSS := watchPeakRSS(pid, 20*time.Millisecond)

	outcome := &overloadOutcome{byAnswer: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), flood)
	defer cancel()
	var wg sync.WaitGroup
	for w := range httpSenders {
		wg.Go(func() {
			// One body per sender, sent again and again: the sender stays
			// cheap, and the warehouse stores each span once anyway.
			body, err := largeTracesRequest(spansPerRequest, uint64(w+1)<<40, textBytes)
			if err != nil {
				t.Errorf("marshal request: %v", err)
				return
			}
			for ctx.Err() == nil {
				// Not bound to ctx: an answer that arrives after the flood
				// still counts.
				code, err := postTraces(context.Background(), client, addrs.OTLPHTTP, body)
				switch {
				case errors.Is(err, context.DeadlineExceeded):
					// Our own timeout: the collector is slow, not refusing.
					outcome.add("http client timeout", false)
				case err != nil:
					outcome.add("http transport error", false)
				default:
					outcome.add(fmt.Sprintf("http %d", code), code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable)
				}
			}
		})
	}
	for w := range grpcSenders {
		exp, err := otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(addrs.OTLPGRPC), otlptracegrpc.WithInsecure(),
			otlptracegrpc.WithHeaders(map[string]string{"Authorization": "Bearer " + childAPIKey}),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
		if err != nil {
			t.Fatalf("create OTLP/gRPC exporter: %v", err)
		}
		t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
		wg.Go(func() {
			spans := chatSpans(spansPerRequest, uint64(w+1)<<48, textBytes, func(int) string { return "overload chat grpc" })
			for ctx.Err() == nil {
				reqCtx, reqCancel := context.WithTimeout(context.Background(), requestTimeout)
				err := exp.ExportSpans(reqCtx, spans)
				reqCancel()
				code := status.Code(err)
				outcome.add("grpc "+code.String(), code == codes.ResourceExhausted || code == codes.Unavailable)
			}
		})
	}
	wg.Wait()
	floodEnd := time.Now()

	// After the flood, a small request must be accepted again within 15 s,
	// without any help.
	small, err := largeTracesRequest(1, 1<<62, 100)
	if err != nil {
		t.Fatal(err)
	}
	recovered := false
	var lastCode int
	for time.Since(floodEnd) < 15*time.Second {
		reqCtx, reqCancel := context.WithTimeout(context.Background(), 5*time.Second)
		lastCode, err = postTraces(reqCtx, client, addrs.OTLPHTTP, small)
		reqCancel()
		if err == nil && lastCode == http.StatusOK {
			recovered = true
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	recoveryTime := time.Since(floodEnd)

	peak := peakRSS()
	// The memory_limiter bounds the Go heap (its allocated bytes, checked
	// every check_interval), not the RSS. The heap can pass limit_mib by what
	// arrives within one check_interval, which spike_limit_mib is meant to
	// cover; and the RSS also holds heap pages freed by the last GC that the
	// runtime has not yet returned to the OS: with GOGC=100 the heap goal is
	// twice the live heap. On top comes the warm baseline (binary, evaluator
	// models, SQLite cache, measured above). Hence
	// warm RSS + 2 × (limit_mib + spike_limit_mib).
	bound := warmRSS + 2*(overloadLimitMiB+overloadSpikeMiB)
	t.Logf("answers %v; warm RSS %.0f MiB, peak RSS %.0f MiB (bound %.0f MiB); accepting again %.1fs after the flood",
		outcome.byAnswer, warmRSS, peak, bound, recoveryTime.Seconds())

	if outcome.retryable == 0 {
		t.Errorf("no retryable refusal (HTTP 429/503, gRPC RESOURCE_EXHAUSTED/UNAVAILABLE) under overload: %v", outcome.byAnswer)
	}
	for answer, n := range outcome.byAnswer {
		switch answer {
		case "http 200", "http 429", "http 503", "grpc OK", "grpc ResourceExhausted", "grpc Unavailable",
			"http client timeout", "grpc DeadlineExceeded":
		default:
			t.Errorf("%d answers %q under overload, want only success or a retryable refusal", n, answer)
		}
	}
	if peak > bound {
		t.Errorf("peak RSS %.0f MiB exceeds %.0f MiB (warm %.0f MiB + 2 × (limit_mib %d + spike_limit_mib %d))",
			peak, bound, warmRSS, overloadLimitMiB, overloadSpikeMiB)
	}
	if !recovered {
		t.Errorf("collector still refuses 15 s after the flood (last answer %d, %v)", lastCode, err)
	}
}
