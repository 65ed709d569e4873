package engine

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/chattext"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/testcorpus"
)

// benchBatches returns n batches of size chat spans, each with its own
// prompt and completion from text.
func benchBatches(b *testing.B, n, size int, text func() string) []ptrace.Traces {
	out := make([]ptrace.Traces, n)
	for i := range out {
		spans := make([]map[string]any, size)
		for k := range spans {
			spans[k] = map[string]any{
				"gen_ai.operation.name":       "chat",
				"gen_ai.system":               "openai",
				"gen_ai.request.model":        "gpt-4o-mini",
				"gen_ai.prompt.0.role":        "user",
				"gen_ai.prompt.0.content":     text(),
				"gen_ai.completion.0.role":    "assistant",
				"gen_ai.completion.0.content": text(),
			}
		}
		out[i] = newTraces(b, spans...)
	}
	return out
}

// BenchmarkLoadBatch is the load test's full pipeline row inside the
// engine: batches of 100 chat spans, each with its own 1 KB prompt and
// completion, through the load test's monitor (five real evaluators on
// every span). 20 distinct batches (4 000 distinct texts) are cycled, so
// no text is seen twice within a batch. The texts are the load test's own
// (chattext, plain English from a small vocabulary) or varied LLM-style
// prose with code, personal details and benign trigger words
// (testcorpus.Prose). It reports the wall time and the process CPU time
// (all goroutines, GC included) per span; on a shared machine the CPU
// time is the steadier figure.
func BenchmarkLoadBatch(b *testing.B) {
	b.Run("loadgen", func(b *testing.B) {
		g := chattext.New(1)
		loadBatchBench(b, func() string { return g.Text(1024, 1024) })
	})
	b.Run("prose", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		loadBatchBench(b, func() string { return testcorpus.Prose(rng, 1024) })
	})
}

// BenchmarkLoadBatchOverhead is BenchmarkLoadBatch/loadgen with
// evaluators that return at once: the processor's own cost per span
// (matching, inputs, the evaluations' hand-off and timeouts, events,
// telemetry).
func BenchmarkLoadBatchOverhead(b *testing.B) {
	g := chattext.New(1)
	loadBatchBenchWith(b, func() string { return g.Text(1024, 1024) },
		func(_ context.Context, def *evaluators.Definition, _ evaluators.Request) (evaluators.Result, error) {
			return fakeResult(def), nil
		})
}

func loadBatchBench(b *testing.B, text func() string) { loadBatchBenchWith(b, text, nil) }

func loadBatchBenchWith(b *testing.B, text func() string, run runFunc) {
	const spansPerBatch = 100
	ms := compile(b, monitor.Spec{Name: "load",
		Evaluators: evs("toxicity-detector", "pii-detector", "secrets-detector", "prompt-injection", "char-count")})
	tp := newProc(b, Settings{Static: ms}, run)
	batches := benchBatches(b, 20, spansPerBatch, text)
	ctx := context.Background()
	all := func(ptrace.SpanEvent) bool { return true }
	process := func(td ptrace.Traces) {
		if _, err := tp.ProcessTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		for i := 0; i < spans.Len(); i++ {
			spans.At(i).Events().RemoveIf(all)
		}
	}
	process(batches[0]) // loads the models
	b.ReportAllocs()
	n := 0
	cpu0 := processCPU(b)
	for b.Loop() {
		process(batches[n%len(batches)])
		n++
	}
	cpu := processCPU(b) - cpu0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*spansPerBatch), "ns/span")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*spansPerBatch), "cpu-ns/span")
}

// processCPU is the user and system CPU time of the process so far: on a
// shared machine, a steadier measure than wall time.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
