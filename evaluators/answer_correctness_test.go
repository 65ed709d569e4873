package evaluators

import "testing"

func TestAnswerCorrectness(t *testing.T) {
	in := func(question, completion, truth string) map[string]any {
		return map[string]any{"question": question, "completion": completion, "ground_truth": truth}
	}
	const q = "The Oberoi family is part of a hotel company that has a head office in what city?"
	runJudgeCases(t, "answer-correctness", []judgeCase{
		{"identical", in(q, "Delhi", "Delhi"), judgeScore("correctness_score", 1, 1)},
		{"identical up to case and punctuation", in(q, "delhi.", "Delhi"), judgeScore("correctness_score", 1, 1)},
		{"answer in a sentence repeating the question", in(q, "The head office is in Delhi.", "Delhi"), judgeScore("correctness_score", 0.8, 0.99)},
		{"wrong city", in(q, "Mumbai", "Delhi"), judgeScore("correctness_score", 0, 0.1)},
		{"wrong number", in("How many hotels?", "There are 12 hotels.", "13 hotels"), judgeScore("correctness_score", 0, 0.6)},
		{"right number", in("How many hotels?", "There are 13 hotels.", "13 hotels"), judgeScore("correctness_score", 0.8, 1)},
		{"negated", in("Is it in Delhi?", "It is not in Delhi.", "It is in Delhi."), judgeScore("correctness_score", 0, 0.6)},
		{"partial", in("Who founded it?", "Mohan Singh", "Mohan Singh Oberoi"), judgeScore("correctness_score", 0.5, 0.95)},
		{"paraphrase", in("When was the Eiffel Tower completed?", "Construction of the tower ended in 1889.", "The Eiffel Tower was completed in 1889."), judgeScore("correctness_score", 0.5, 0.99)},
		{"near miss: year", in("When was the Eiffel Tower completed?", "The Eiffel Tower was completed in 1898.", "The Eiffel Tower was completed in 1889."), judgeScore("correctness_score", 0, 0.35)},
		{"near miss: number word", in("How long is the warranty?", "The laptop comes with a one-year warranty.", "The laptop comes with a two-year warranty."), judgeScore("correctness_score", 0, 0.35)},
		{"near miss: name", in("What is the capital of Australia?", "Sydney is the capital of Australia.", "The capital of Australia is Canberra."), judgeScore("correctness_score", 0, 0.35)},
		{"near miss: person", in("Who walked on the Moon first?", "Buzz Aldrin was the first person to walk on the Moon.", "Neil Armstrong was the first person to walk on the Moon."), judgeScore("correctness_score", 0, 0.35)},
		{"same number in other words", in("How many people live in Iceland?", "Iceland has roughly 380 thousand inhabitants.", "About 380,000 people live in Iceland."), judgeScore("correctness_score", 0.25, 0.99)}, // no contradiction; word overlap is low
		{"empty completion", in(q, "", "Delhi"), judgeScore("correctness_score", 0, 0)},
		{"both empty", in("", "", ""), judgeScore("correctness_score", 1, 1)},
		{"unicode identical", in("Où?", "À Délhi", "à délhi"), judgeScore("correctness_score", 1, 1)},
	})
}

func BenchmarkAnswerCorrectness(b *testing.B) {
	req := Request{Input: map[string]string{"question": "Where is the head office?", "completion": benchText1K, "ground_truth": benchText1K[:500]}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := answerCorrectness.Run(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
