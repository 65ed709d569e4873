package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/tone"
)

var toneDetection = Definition{
	Slug:        "tone-detection",
	Category:    CategoryStyle,
	Description: "Detects the emotional tone of the text (joy, sadness, anger, fear, surprise, disgust or neutral) and the confidence in it, from an emotion lexicon with intensifier, negation and punctuation cues.",
	Inputs:      []Field{textInput("text", "Text", "The text whose tone to detect.")},
	Outputs: []Field{
		{Name: "tone", Type: TypeString, EnumValues: tone.Tones, Label: "Tone", Description: "The detected tone."},
		scoreOutput("score", "Score", "0..1: the confidence in the detected tone."),
	},
	Side:    SideOutput,
	Score:   "score",
	PassDoc: "score >= 0.5 (a tone was detected with confidence, whichever it is)",
	run:     runToneDetection,
	pass:    passWhenAtLeastHalf("score"),
}

// runToneDetection labels the text with tone.Detect: emotion words of a
// hand-written lexicon of the six basic emotions (matched on their
// stems), 1.5 after an intensifier ("so happy"), none within three words
// after a negation ("not happy"); rude phrases and shouting in capitals
// add to anger, "?!" to surprise; "!" strengthens the leading emotion.
// Neutral weighs 1 + 0.05 per content word. The tone is the heaviest and
// the score its share of the total weight: the confidence, as Traceloop's
// score is, so the guard (score >= 0.5) passes a clear tone of any kind;
// filter on tone to require one. An empty text is neutral with score 1.
func runToneDetection(_ context.Context, req Request) (Result, error) {
	t, s := tone.Detect(req.Text("text"))
	return Result{"tone": t, "score": s}, nil
}
