// Command otlpload sends realistic LLM spans to an OTLP endpoint with the
// real OTel Go SDK exporters (OTLP/HTTP or OTLP/gRPC), at a fixed rate or as
// fast as the endpoint takes them, for a duration, and reports the spans
// sent, acknowledged and refused per second as one JSON line.
//
//	otlpload -endpoint 127.0.0.1:4318 -rate 2000 -duration 20s
//	otlpload -setups 10000 -api 127.0.0.1:8080 -duration 15s  # ingest with 10 000 setups that match nothing
//
// With -verify-api it then checks, through the evalcol API's
// GET /v2/warehouse/spans, that every span the endpoint acknowledged is
// stored (it waits until the stored count stops growing first):
//
//	otlpload -rate 25000 -concurrency 128 -duration 30s -verify-api 127.0.0.1:8080
//
// Spans carry 1–4 KB prompts and completions of varied English text
// generated deterministically from -seed, the GenAI semantic-convention
// keys on even spans and the legacy OpenLLMetry keys on odd ones, and come
// from several services and workflows.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "otlpload: %v\n", err)
		os.Exit(1)
	}
}

// options are the command-line settings.
type options struct {
	endpoint    string
	protocol    string
	apiKey      string
	rate        float64
	duration    time.Duration
	batch       int
	concurrency int
	minBytes    int
	maxBytes    int
	seed        uint64
	timeout     time.Duration
	verifyAPI   string
	verifyWait  time.Duration
	setups      int
	api         string
}

func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("otlpload", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.endpoint, "endpoint", "127.0.0.1:4318", "OTLP endpoint host:port")
	fs.StringVar(&o.protocol, "protocol", "http", "http (OTLP/HTTP protobuf) or grpc")
	fs.StringVar(&o.apiKey, "api-key", os.Getenv("EVALCOL_API_KEY"), "sent as Authorization: Bearer <key> (default $EVALCOL_API_KEY)")
	fs.Float64Var(&o.rate, "rate", 0, "spans per second; 0 sends as fast as the endpoint acknowledges")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long to send")
	fs.IntVar(&o.batch, "batch", 100, "spans per OTLP request")
	fs.IntVar(&o.concurrency, "concurrency", 4, "requests in flight at once")
	fs.IntVar(&o.minBytes, "min-bytes", 1024, "smallest prompt or completion, bytes")
	fs.IntVar(&o.maxBytes, "max-bytes", 4096, "largest prompt or completion, bytes")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the generated text")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "timeout of one export")
	fs.StringVar(&o.verifyAPI, "verify-api", "", "evalcol API host:port: after the run, check that every acknowledged span is stored")
	fs.DurationVar(&o.verifyWait, "verify-wait", 2*time.Minute, "with -verify-api, how long to wait for the stored spans to settle")
	fs.IntVar(&o.setups, "setups", 0, "first create this many auto monitor setups (of workflows the spans never carry) through the API at -api and wait until they are loaded")
	fs.StringVar(&o.api, "api", "127.0.0.1:8080", "the collector's /v2 API host:port, for -setups")
	if err := fs.Parse(args); err != nil {
		return o, fmt.Errorf("parse flags: %w", err)
	}
	switch {
	case o.protocol != "http" && o.protocol != "grpc":
		return o, fmt.Errorf("-protocol %q: want http or grpc", o.protocol)
	case o.rate < 0:
		return o, fmt.Errorf("-rate %g: must not be negative", o.rate)
	case o.duration <= 0 || o.duration > time.Hour:
		return o, fmt.Errorf("-duration %s: want more than 0 and at most 1h", o.duration)
	case o.batch < 1 || o.concurrency < 1:
		return o, fmt.Errorf("-batch %d, -concurrency %d: both must be at least 1", o.batch, o.concurrency)
	case o.setups < 0:
		return o, fmt.Errorf("-setups %d: must not be negative", o.setups)
	case o.minBytes < 1 || o.maxBytes < o.minBytes:
		return o, fmt.Errorf("-min-bytes %d, -max-bytes %d: want 1 ≤ min ≤ max", o.minBytes, o.maxBytes)
	case o.verifyWait <= 0:
		return o, fmt.Errorf("-verify-wait %s: must be positive", o.verifyWait)
	}
	return o, nil
}

// Report is the result of a run, printed as one JSON line.
type Report struct {
	Protocol        string         `json:"protocol"`
	TargetRate      float64        `json:"target_spans_per_s"`
	Seconds         float64        `json:"seconds"`
	Sent            int64          `json:"sent_spans"`
	Acknowledged    int64          `json:"acknowledged_spans"`
	Refused         int64          `json:"refused_spans"`
	Failed          int64          `json:"failed_spans"`
	Missed          int64          `json:"missed_spans"`
	SentPerS        float64        `json:"sent_per_s"`
	AcknowledgedPer float64        `json:"acknowledged_per_s"`
	RefusedPerS     float64        `json:"refused_per_s"`
	Errors          map[string]int `json:"errors,omitempty"`
	// Verification (with -verify-api): spans stored in the run's time
	// range, acknowledged spans not stored, and how long it took.
	Verified         bool    `json:"verified,omitempty"`
	StoredSpans      int64   `json:"stored_spans,omitempty"`
	AcknowledgedLost int64   `json:"acknowledged_lost"`
	VerifySeconds    float64 `json:"verify_seconds,omitempty"`
	VerifyError      string  `json:"verify_error,omitempty"`
	// Setups and SetupSeconds: the setups created first, and how long
	// creating and loading them took.
	Setups       int     `json:"setups,omitempty"`
	SetupSeconds float64 `json:"setup_seconds,omitempty"`
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	var setupTime time.Duration
	if o.setups > 0 {
		if setupTime, err = createSetups(ctx, o.api, o.apiKey, o.setups); err != nil {
			return err
		}
	}
	exporters := make([]sdktrace.SpanExporter, o.concurrency)
	for i := range exporters {
		if exporters[i], err = newExporter(ctx, o); err != nil {
			return err
		}
	}
	defer func() {
		for _, e := range exporters {
			_ = e.Shutdown(context.Background())
		}
	}()

	var sent, acked, refused, failed, missed atomic.Int64
	var mu sync.Mutex
	errs := map[string]int{}
	runCtx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	tokens := pace(runCtx, o.rate, o.batch, &missed)
	runID := uint64(time.Now().UnixNano())
	start := time.Now()
	var ledger *ackLedger
	if o.verifyAPI != "" {
		ledger = newAckLedger()
	}
	var wg sync.WaitGroup
	for w, exp := range exporters {
		gen := newSpanGen(o.seed+uint64(w), runID+uint64(w)<<40, o.minBytes, o.maxBytes)
		wg.Go(func() {
			for range tokens {
				spans := gen.batch(o.batch)
				n := int64(len(spans))
				sent.Add(n)
				reqCtx, reqCancel := context.WithTimeout(context.Background(), o.timeout)
				err := exp.ExportSpans(reqCtx, spans)
				reqCancel()
				switch classify(err) {
				case "":
					acked.Add(n)
					ledger.add(spans)
				case "refused":
					refused.Add(n)
				default:
					failed.Add(n)
				}
				if err != nil {
					mu.Lock()
					errs[firstLine(err)]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	rep := Report{
		Protocol: o.protocol, TargetRate: o.rate, Seconds: secs,
		Sent: sent.Load(), Acknowledged: acked.Load(), Refused: refused.Load(), Failed: failed.Load(), Missed: missed.Load(),
		SentPerS: float64(sent.Load()) / secs, AcknowledgedPer: float64(acked.Load()) / secs, RefusedPerS: float64(refused.Load()) / secs,
	}
	if len(errs) > 0 {
		rep.Errors = errs
	}
	if ledger != nil {
		verifyStart := time.Now()
		stored, lost, err := verify(ctx, o, ledger, start.Add(-time.Hour))
		rep.Verified, rep.StoredSpans, rep.AcknowledgedLost = err == nil, stored, lost
		rep.VerifySeconds = time.Since(verifyStart).Seconds()
		if err != nil {
			rep.VerifyError = err.Error()
		}
	}
	rep.Setups, rep.SetupSeconds = o.setups, setupTime.Seconds()
	return json.NewEncoder(stdout).Encode(rep)
}

// pace returns a channel that yields one token per request of batch spans:
// at rate spans/s, or unthrottled when rate is 0. It closes when ctx ends.
// Tokens no worker was free to take count as missed spans: the offered
// load was more than the endpoint took.
func pace(ctx context.Context, rate float64, batch int, missed *atomic.Int64) <-chan struct{} {
	tokens := make(chan struct{})
	go func() {
		defer close(tokens)
		if rate == 0 {
			for {
				select {
				case <-ctx.Done():
					return
				case tokens <- struct{}{}:
				}
			}
		}
		interval := time.Duration(float64(time.Second) * float64(batch) / rate)
		next := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(next)):
			}
			select {
			case tokens <- struct{}{}:
			default:
				missed.Add(int64(batch))
			}
			next = next.Add(interval)
		}
	}()
	return tokens
}

// newExporter returns an OTel SDK OTLP span exporter without retries, so
// that every refusal is counted.
func newExporter(ctx context.Context, o options) (sdktrace.SpanExporter, error) {
	headers := map[string]string{}
	if o.apiKey != "" {
		headers["Authorization"] = "Bearer " + o.apiKey
	}
	var exp sdktrace.SpanExporter
	var err error
	if o.protocol == "grpc" {
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(o.endpoint), otlptracegrpc.WithInsecure(),
			otlptracegrpc.WithHeaders(headers), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}),
			otlptracegrpc.WithTimeout(o.timeout))
	} else {
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(o.endpoint), otlptracehttp.WithInsecure(),
			otlptracehttp.WithHeaders(headers), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
			otlptracehttp.WithTimeout(o.timeout))
	}
	if err != nil {
		return nil, fmt.Errorf("create OTLP %s exporter: %w", o.protocol, err)
	}
	return exp, nil
}

// classify names the outcome of an export: "" when acknowledged, "refused"
// for a retryable refusal (HTTP 429/502/503/504, gRPC RESOURCE_EXHAUSTED or
// UNAVAILABLE), else "timeout" or "error".
func classify(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	if s, ok := status.FromError(err); ok {
		switch s.Code() {
		case codes.ResourceExhausted, codes.Unavailable:
			return "refused"
		case codes.DeadlineExceeded:
			return "timeout"
		}
		return "error"
	}
	// otlptracehttp wraps retryable HTTP answers (429, 502, 503, 504).
	if strings.Contains(err.Error(), "retry-able request failure") {
		return "refused"
	}
	return "error"
}

func firstLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
