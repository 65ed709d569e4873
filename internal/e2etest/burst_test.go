//go:build linux

package e2etest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestBurstLosesNoAcknowledgedSpan floods examples/config.yaml as shipped
// (an evalcol child process) far above what it evaluates and stores, with
// 48 OTLP/HTTP and 4 OTLP/gRPC senders of 100 LLM spans with 1 KB texts
// each, every span unique, for 6 s. Senders get a success answer, a
// retryable refusal or their own timeout, nothing else; and afterwards,
// with the process alive, every span that got a success answer is stored,
// once.
func TestBurstLosesNoAcknowledgedSpan(t *testing.T) {
	bin := buildEvalcol(t)
	addrs := newChildAddrs(t)
	c := startChild(t, bin, exampleConfig(t, "config.yaml", addrs), addrs)
	pid := c.cmd.Process.Pid

	peakRSS := watchPeakRSS(pid, 50*time.Millisecond)

	const (
		httpSenders, grpcSenders = 48, 4
		spansPerRequest          = 100
		flood                    = 6 * time.Second
	)
	ledger := &ackLedger{}
	outcome := &overloadOutcome{byAnswer: map[string]int{}}
	ctx, cancel := context.WithTimeout(context.Background(), flood)
	defer cancel()
	runID := uint64(time.Now().UnixNano())
	var wg sync.WaitGroup
	sender := func(w int, exp sdktrace.SpanExporter, answer func(error) (string, bool)) {
		for seq := 0; ctx.Err() == nil; seq++ {
			names := make([]string, spansPerRequest)
			spans := chatSpans(spansPerRequest, runID+uint64(w)<<32+uint64(seq)<<12, 1024, func(i int) string {
				names[i] = fmt.Sprintf("burst-%d-%d-%d", w, seq, i)
				return names[i]
			})
			reqCtx, reqCancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := exp.ExportSpans(reqCtx, spans)
			reqCancel()
			ledger.record(names, err)
			outcome.add(answer(err))
		}
	}
	for w := range httpSenders {
		exp := newHTTPSpanExporter(t, c.OTLPHTTP)
		wg.Go(func() {
			sender(w, exp, func(err error) (string, bool) {
				switch c := classifyHTTP(err); c {
				case "refused":
					return "http 429/503", true
				default:
					return "http " + c, false
				}
			})
		})
	}
	for w := range grpcSenders {
		exp, err := otlptracegrpc.New(context.Background(), otlptracegrpc.WithEndpoint(c.OTLPGRPC), otlptracegrpc.WithInsecure(),
			otlptracegrpc.WithHeaders(map[string]string{"Authorization": "Bearer " + childAPIKey}),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
		wg.Go(func() {
			sender(httpSenders+w, exp, func(err error) (string, bool) {
				code := status.Code(err)
				return "grpc " + code.String(), code == codes.Unavailable || code == codes.ResourceExhausted
			})
		})
	}
	wg.Wait()
	peak := peakRSS()

	stored := storedSpanNames(t, c.API) // the process is still alive
	missing := missingOnce(t, stored, ledger.acked)
	t.Logf("answers %v; %d spans acknowledged, %d stored, %d acknowledged spans missing; peak RSS %.0f MiB",
		outcome.byAnswer, len(ledger.acked), len(stored), missing, peak)
	if len(ledger.acked) == 0 {
		t.Fatal("no request acknowledged")
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged spans are not stored", missing, len(ledger.acked))
	}
	for answer, n := range outcome.byAnswer {
		switch answer {
		case "http ok", "http 429/503", "http timeout", "grpc OK", "grpc Unavailable", "grpc ResourceExhausted", "grpc DeadlineExceeded":
		default:
			t.Errorf("%d answers %q, want only success, a retryable refusal or the sender's timeout", n, answer)
		}
	}
}

// classifyHTTP names the answer an OTLP/HTTP export got: "ok", "refused"
// (HTTP 429/502/503/504, which the SDK reports as a retry-able failure),
// "timeout" (the sender's own) or "error: <message>".
func classifyHTTP(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case strings.Contains(err.Error(), "retry-able request failure"):
		return "refused"
	}
	return "error: " + err.Error()
}
