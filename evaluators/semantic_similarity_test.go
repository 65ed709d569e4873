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

func TestSemanticSimilaritySynonyms(t *testing.T) {
	score := func(a, b string) float64 {
		res, err := semanticSimilarity.Run(t.Context(), Request{Input: map[string]string{"completion": a, "reference": b}})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return res["similarity_score"].(float64)
	}
	cases := []struct {
		name              string
		a, synonym, other string
	}{
		{"kid and child", "A kid is playing in the garden.", "A child is playing in the garden.", "A cat is playing in the garden."},
		{"big and large", "The big house is empty.", "The large house is empty.", "The red house is empty."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			syn, other := score(c.a, c.synonym), score(c.a, c.other)
			if syn <= other {
				t.Errorf("synonym %q scores %v, not above unrelated %q at %v", c.synonym, syn, c.other, other)
			}
		})
	}
}
