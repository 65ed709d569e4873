package evaluators

import (
	"strings"
	"testing"
)

// benchText1K is about 1 KB of prose for the judge benchmarks.
var benchText1K = strings.Repeat("The Oberoi Group is a hotel company with its head office in Delhi. "+
	"I think it was probably founded in 1934 and now runs more than 30 hotels. "+
	"It does not operate in every country, but it is well known in India. ", 5)[:1024]

const oberoiContext = "The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi Group.The Oberoi Group is a hotel company with its head office in Delhi."

func TestFaithfulness(t *testing.T) {
	in := func(completion, context string) map[string]any {
		return map[string]any{"completion": completion, "context": context, "question": "Where is the head office?"}
	}
	runJudgeCases(t, "faithfulness", []judgeCase{
		{"span from the context", in("Delhi", oberoiContext), judgeBool("is_faithful", true)},
		{"sentence restating the context", in("The Oberoi Group has its head office in Delhi.", oberoiContext), judgeBool("is_faithful", true)},
		{"invented place and date", in("The Oberoi Group has its head office in Mumbai and was founded in 1934.", oberoiContext), judgeBool("is_faithful", false)},
		{"number the context lacks", in("The Oberoi Group runs 31 hotels in Delhi.", "The Oberoi Group runs 30 hotels in Delhi."), judgeBool("is_faithful", false)},
		{"number the context has", in("The Oberoi Group runs 1,500 rooms in Delhi.", "The Oberoi Group runs 1500 rooms in Delhi."), judgeBool("is_faithful", true)},
		{"negation flipped", in("The Oberoi Group does not have its head office in Delhi.", oberoiContext), judgeBool("is_faithful", false)},
		{"negation dropped", in("The hotel is open in winter.", "The hotel is not open in winter."), judgeBool("is_faithful", false)},
		{"unrelated negation in the context", in("Nicholas Ray was a director.", "Nicholas Ray was an American film director best known for the movie Rebel Without a Cause."), judgeBool("is_faithful", true)},
		{"yes answer", in("Yes.", oberoiContext), judgeBool("is_faithful", true)},
		{"one of three claims unsupported", in("The Oberoi Group is a hotel company. Its head office is in Delhi. It was founded by aliens.", oberoiContext), judgeBool("is_faithful", true)},
		{"two of three claims unsupported", in("The Oberoi Group is a hotel company. It sells cars in Tokyo. It was founded by aliens.", oberoiContext), judgeBool("is_faithful", false)},
		{"empty completion", in("", oberoiContext), judgeBool("is_faithful", true)},
		{"empty context", in("The head office is in Delhi.", ""), judgeBool("is_faithful", false)},
		{"unicode", in("Le siège est à Délhi.", "Le siège du groupe est à Délhi, en Inde."), judgeBool("is_faithful", true)},
	})
}

func BenchmarkFaithfulness(b *testing.B) {
	req := Request{Input: map[string]string{"completion": benchText1K[:300], "context": benchText1K, "question": "Where is the head office?"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := faithfulness.Run(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
