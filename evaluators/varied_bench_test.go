package evaluators

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/chattext"
	"github.com/evalcol/evalcol/internal/testcorpus"
)

// BenchmarkEvaluateVaried runs the five evaluators of the load test's
// full row through Evaluate on 2 000 distinct texts of 1 KB, cycled: the
// load test's own texts (chattext) and LLM-style prose with code,
// personal details and benign trigger words (testcorpus.Prose). It
// reports the process CPU time per call beside the wall time (steadier on
// a shared machine).
func BenchmarkEvaluateVaried(b *testing.B) {
	g := chattext.New(4)
	b.Run("loadgen", func(b *testing.B) { evaluateVaried(b, func() string { return g.Text(1024, 1024) }) })
	rng := rand.New(rand.NewPCG(4, 2))
	b.Run("prose", func(b *testing.B) { evaluateVaried(b, func() string { return testcorpus.Prose(rng, 1024) }) })
}

func evaluateVaried(b *testing.B, text func() string) {
	texts := make([]string, 2000)
	for i := range texts {
		texts[i] = text()
	}
	for _, c := range []struct{ slug, input string }{
		{"toxicity-detector", "text"},
		{"pii-detector", "text"},
		{"secrets-detector", "text"},
		{"prompt-injection", "prompt"},
		{"char-count", "text"},
	} {
		b.Run(c.slug, func(b *testing.B) {
			ctx := context.Background()
			if _, err := Evaluate(ctx, c.slug, map[string]any{c.input: texts[0]}, nil); err != nil { // loads models
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			cpu0 := processCPU(b)
			for b.Loop() {
				if _, err := Evaluate(ctx, c.slug, map[string]any{c.input: texts[n%len(texts)]}, nil); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(n), "cpu-ns/op")
		})
	}
}

// processCPU is the user and system CPU time of the process so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
