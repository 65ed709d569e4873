package evaluators

import "testing"

func TestSemanticSimilarity(t *testing.T) {
	in := func(a, b string) map[string]any { return map[string]any{"completion": a, "reference": b} }
	runJudgeCases(t, "semantic-similarity", []judgeCase{
		{"identical", in("A man is playing a guitar.", "A man is playing a guitar."), judgeScore("similarity_score", 1, 1)},
		{"inflected paraphrase", in("A man is playing a guitar.", "The man plays the guitar."), judgeScore("similarity_score", 0.7, 0.95)},
		{"unrelated", in("A man is playing a guitar.", "Stock markets fell sharply today."), judgeScore("similarity_score", 0, 0.2)},
		{"negated", in("The cat is on the mat.", "The cat is not on the mat."), judgeScore("similarity_score", 0.5, 0.85)},
		{"reordered roles", in("The dog bit the man.", "The man bit the dog."), judgeScore("similarity_score", 0.6, 0.95)},
		{"both empty", in("", ""), judgeScore("similarity_score", 1, 1)},
		{"one empty", in("", "text"), judgeScore("similarity_score", 0, 0)},
		{"unicode, case and punctuation", in("Café au lait für zwei", "café au lait für zwei!"), judgeScore("similarity_score", 1, 1)},
	})
}

func BenchmarkSemanticSimilarity(b *testing.B) {
	req := Request{Input: map[string]string{"completion": benchText1K, "reference": benchText1K[100:] + benchText1K[:100]}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := semanticSimilarity.Run(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
