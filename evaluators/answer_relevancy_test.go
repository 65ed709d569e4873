package evaluators

import "testing"

func TestAnswerRelevancy(t *testing.T) {
	in := func(question, answer string) map[string]any {
		return map[string]any{"question": question, "answer": answer}
	}
	runJudgeCases(t, "answer-relevancy", []judgeCase{
		{"date for when", in("When was the Eiffel Tower built?", "The Eiffel Tower was built in 1889 for the World's Fair."), judgeBool("is_relevant", true)},
		{"name for who", in("Who wrote Hamlet?", "Hamlet was written by William Shakespeare."), judgeBool("is_relevant", true)},
		{"number for how many", in("How many moons does Mars have?", "Mars has two moons, Phobos and Deimos."), judgeBool("is_relevant", true)},
		{"off topic", in("When was the Eiffel Tower built?", "Bananas are rich in potassium."), judgeBool("is_relevant", false)},
		{"on topic without a date", in("When was the Eiffel Tower built?", "The Eiffel Tower is made of wrought iron."), judgeBool("is_relevant", false)},
		{"tokenised text", in("Who is the author of `` Hamlet '' ?", "`` Hamlet '' is a tragedy by William Shakespeare ."), judgeBool("is_relevant", true)},
		{"empty answer", in("Who wrote Hamlet?", ""), judgeBool("is_relevant", false)},
		{"unicode", in("Qui a écrit Hamlet ?", "Hamlet a été écrit par Shakespeare."), judgeBool("is_relevant", true)},
	})
}

func BenchmarkAnswerRelevancy(b *testing.B) {
	req := Request{Input: map[string]string{"question": "Where is the head office of the Oberoi Group?", "answer": benchText1K}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := answerRelevancy.Run(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
