package warehouse

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalcol/evalcol/evaluators"
)

// TestEncodeEvaluations checks that the evaluations EncodeEvaluations
// writes without reflection are what json.Marshal writes, and that it
// leaves the others to json.Marshal.
func TestEncodeEvaluations(t *testing.T) {
	strs := []string{"", "toxicity-detector", "safe", "unsafe", "pass", "fail", "error", "load",
		"timeout: evaluation timed out after 2s", "~!@#$%^*()_+{}|:?[];',./`", "42"}
	odd := []string{"a<b", "x & y", "quote\"d", `back\slash`, "tab\there", "line\nbreak", "ünïcödé",
		"\u2028", "\xff", "\x7f", "\x00"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1.0 / 3, 1e-6, 9.99e-7, 1e20, 1e21, -2.5e-7,
		123456789.125, 0.1, 1e-5, 0.75, 1024, 0, 1, 0, 1, math.Inf(1), math.NaN(), 5e300}
	values := []any{nil, true, false, int64(7), int64(-3), 12, 0.25, 0.1, "safe", "unsafe", true, false, "safe",
		1e-9, 3e25, "a<b", []any{1.0}, map[string]any{"k": "v"}, []byte("x")}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(ss []string) string {
		if rng.IntN(50) == 0 {
			ss = odd
		}
		return ss[rng.IntN(len(ss))]
	}
	plain, total := 0, 0
	for range 20000 {
		evals := make([]Evaluation, 1+rng.IntN(5))
		for i := range evals {
			ev := Evaluation{Name: pick(strs), ScoreValue: floats[rng.IntN(len(floats))], ScoreLabel: pick(strs),
				MonitorID: pick(strs), Error: pick(strs), Verdict: pick(strs)}
			if rng.IntN(3) > 0 {
				ev.Time = rng.Int64N(2e12) - 1e11
			}
			ev.Truncated = rng.IntN(4) == 0
			if rng.IntN(10) == 0 {
				ev.Explanation = &evaluators.Explanation{Summary: "PII found: EMAIL_ADDRESS", Findings: []evaluators.Finding{{Kind: "EMAIL_ADDRESS", Start: 3, End: 9, Text: "a@b.io"}}}
			}
			if n := rng.IntN(4); n > 0 {
				ev.Output = map[string]any{}
				for range n {
					ev.Output[pick(strs)] = values[rng.IntN(len(values))]
				}
			}
			evals[i] = ev
		}
		want, err := json.Marshal(evals)
		got, ok := appendEvaluationsJSON(nil, evals)
		total++
		if !ok {
			continue
		}
		plain++
		if err != nil {
			t.Fatalf("%+v: encoded %s, json.Marshal fails: %v", evals, got, err)
		}
		if string(got) != string(want) {
			t.Fatalf("%+v:\n got %s\nwant %s", evals, got, want)
		}
		if s := EncodeEvaluations(evals); s != string(want) {
			t.Fatalf("EncodeEvaluations = %s, want %s", s, want)
		}
	}
	t.Logf("%d of %d cases took the direct encoding", plain, total)
	if plain < total/10 || plain == total {
		t.Fatalf("only %d of %d cases took the direct encoding", plain, total)
	}
	// The evaluations of the load test's monitor.
	evals := []Evaluation{
		{Name: "toxicity-detector", ScoreValue: 1, ScoreLabel: "safe", Output: map[string]any{"is_safe": "safe"}, MonitorID: "load", Time: 1764250000123, Verdict: "pass"},
		{Name: "char-count", ScoreValue: 1024, Output: map[string]any{"char_count": int64(1024)}, MonitorID: "load", Time: 1764250000124, Verdict: "pass"},
		{Name: "pii-detector", ScoreValue: 0, ScoreLabel: "false", Output: map[string]any{"has_pii": false}, MonitorID: "load", Time: 1764250000125, Verdict: "pass"},
	}
	want, _ := json.Marshal(evals)
	if got, ok := appendEvaluationsJSON(nil, evals); !ok || string(got) != string(want) {
		t.Fatalf("got %s (%v), want %s", got, ok, want)
	}
}

func BenchmarkEncodeEvaluations(b *testing.B) {
	evals := make([]Evaluation, 5)
	for i := range evals {
		evals[i] = Evaluation{Name: "toxicity-detector", ScoreValue: 1, ScoreLabel: "safe", Output: map[string]any{"is_safe": "safe"},
			MonitorID: "load", Time: 1764250000123, Verdict: "pass"}
	}
	b.ReportAllocs()
	for b.Loop() {
		EncodeEvaluations(evals)
	}
}
