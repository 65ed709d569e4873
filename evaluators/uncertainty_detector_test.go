package evaluators

import (
	"testing"
)

func judgeAnswer(want string) func(*testing.T, Result) {
	return func(t *testing.T, r Result) {
		t.Helper()
		if got := r["answer"]; got != want {
			t.Errorf("answer = %q, want %q", got, want)
		}
	}
}

func judgeAll(checks ...func(*testing.T, Result)) func(*testing.T, Result) {
	return func(t *testing.T, r Result) {
		t.Helper()
		for _, c := range checks {
			c(t, r)
		}
	}
}

func TestUncertaintyDetector(t *testing.T) {
	runJudgeCases(t, "uncertainty-detector", []judgeCase{
		{"confident statement", map[string]any{"prompt": "The capital of France is Paris."},
			judgeAll(judgeScore("uncertainty", 0, 0), judgeAnswer("The capital of France is Paris."))},
		{"hedges stripped", map[string]any{"prompt": "I think the answer is probably Paris."},
			judgeAll(judgeScore("uncertainty", 0.7, 1), judgeAnswer("The answer is Paris."))},
		{"trailing caveat stripped", map[string]any{"prompt": "Maybe it's Paris, but I'm not sure."},
			judgeAll(judgeScore("uncertainty", 0.9, 1), judgeAnswer("It's Paris."))},
		{"only hedging", map[string]any{"prompt": "I don't know."},
			judgeAll(judgeScore("uncertainty", 1, 1), judgeAnswer(""))},
		{"typographic apostrophe", map[string]any{"prompt": "I\u2019m not sure."}, judgeScore("uncertainty", 1, 1)},
		{"one weak hedge in a long answer", map[string]any{"prompt": "Paris is the capital. It lies on the Seine. It has roughly two million residents. It hosts the Louvre."},
			judgeScore("uncertainty", 0.05, 0.5)},
		{"answer offered as a question", map[string]any{"prompt": "Paris?"}, judgeScore("uncertainty", 0.3, 0.5)},
		{"empty", map[string]any{"prompt": ""}, judgeAll(judgeScore("uncertainty", 0, 0), judgeAnswer(""))},
		{"unicode without hedges", map[string]any{"prompt": "東京は日本の首都です。"},
			judgeAll(judgeScore("uncertainty", 0, 0), judgeAnswer("東京は日本の首都です。"))},
	})
}

func TestUncertaintyPass(t *testing.T) {
	for _, c := range []struct {
		u    float64
		pass bool
	}{{0.1, true}, {0.49, true}, {0.5, false}, {1, false}} {
		if got := uncertaintyDetector.Pass(Result{"uncertainty": c.u}); got != c.pass {
			t.Errorf("Pass(uncertainty %g) = %v, want %v", c.u, got, c.pass)
		}
	}
}

func BenchmarkUncertaintyDetector(b *testing.B) {
	req := Request{Input: map[string]string{"prompt": benchText1K}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := uncertaintyDetector.Run(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
