package evaluators

import (
	"context"
	"math"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/judge"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var topicAdherence = Definition{
	Slug:        "topic-adherence",
	Category:    CategoryQuality,
	Description: "Rates how well the completion stays on the reference topics.",
	Inputs: []Field{
		textInput("question", "Question", "The question that was asked."),
		textInput("completion", "Completion", "The answer to rate."),
		textInput("reference_topics", "Reference topics", "The allowed topics, comma-separated (e.g. \"artificial intelligence, data science, algorithms\")."),
	},
	Outputs: []Field{scoreOutput("adherence_score", "Adherence score", "0 (off every topic) to 1 (every sentence on a reference topic).")},
	Side:    SideOutput,
	Score:   "adherence_score",
	PassDoc: "adherence_score >= 0.5",
	run:     runTopicAdherence,
	pass:    passWhenAtLeastHalf("adherence_score"),
}

// Mapping of a sentence-to-topic vector cosine to a degree: 0 up to
// topicCosineLow, 1 from topicCosineHigh, linear between.
const (
	topicCosineLow  = 0.15
	topicCosineHigh = 0.5
)

// runTopicAdherence splits reference_topics at commas, semicolons and
// line breaks, and rates each sentence of the completion by its closest
// topic: the larger of the soft coverage of the topic's words by the
// sentence (judge.SoftCoverage: the topic named, by its words or GloVe
// neighbours) and the cosine of their sentence vectors (textsim's
// IDF-weighted GloVe means) mapped linearly from 0 at 0.15 to 1 at 0.5.
// The score is the mean of the sentences' degrees, each weighted by its
// number of content words, so a long digression weighs more than a short
// greeting. Sentences without a content word are left out; no such
// sentence, or no topic, scores 0. The question is not used: staying on
// the topics is judged on what the completion says.
func runTopicAdherence(_ context.Context, req Request) (Result, error) {
	var topics [][]textsim.Token
	for _, t := range strings.FieldsFunc(req.Text("reference_topics"), func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		if toks := textsim.Tokenize(t); len(toks) > 0 {
			topics = append(topics, toks)
		}
	}
	var sum, weight float64
	for _, s := range textsim.Sentences(req.Text("completion")) {
		st := textsim.Tokenize(s)
		w := 0
		for _, t := range st {
			if t.Content() {
				w++
			}
		}
		if w == 0 {
			continue
		}
		best := 0.0
		for _, topic := range topics {
			lex, _ := judge.SoftCoverage(topic, st)
			sem := math.Max(0, math.Min(1, (judge.Cosine(st, topic)-topicCosineLow)/(topicCosineHigh-topicCosineLow)))
			best = math.Max(best, math.Max(lex, sem))
		}
		sum += best * float64(w)
		weight += float64(w)
	}
	if weight == 0 {
		return Result{"adherence_score": 0.0}, nil
	}
	return Result{"adherence_score": sum / weight}, nil
}
