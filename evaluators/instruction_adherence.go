package evaluators

import (
	"context"
	"math"

	"github.com/evalcol/evalcol/evaluators/internal/instructions"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var instructionAdherence = Definition{
	Slug:        "instruction-adherence",
	Category:    CategoryQuality,
	Description: "Rates how well the response follows the instructions: the share of the instructions' verifiable constraints it meets (counts of bullets, sentences, words, paragraphs; case; JSON; words to use or avoid; start and end; formal language), else its relevance to them.",
	Inputs: []Field{
		textInput("instructions", "Instructions", "The instructions the response should follow."),
		textInput("response", "Response", "The response to rate."),
	},
	Outputs: []Field{scoreOutput("instruction_adherence_score", "Instruction adherence score", "0 (instructions ignored) to 1 (all followed).")},
	Side:    SideOutput,
	Score:   "instruction_adherence_score",
	PassDoc: "instruction_adherence_score >= 0.5",
	run:     runInstructionAdherence,
	pass:    passWhenAtLeastHalf("instruction_adherence_score"),
}

// runInstructionAdherence finds the verifiable constraints of the
// instructions with instructions.Find, IFEval's kinds read from free
// text: "exactly / at least / at most / fewer than / more than N" bullet
// points, items, steps, sentences, words, paragraphs, characters or
// lines; one word or one sentence; all lower case or all capitals; no
// commas; JSON (alone or in one code fence); quoted words to include or
// to avoid; a quoted start or end; formal language (no contractions or
// slang, at most one "!"); a numbered list; yes or no; wrapped in double
// quotes; a <<title>>; a P.S. The score is the share of those the
// response meets. Instructions with none of them ("Explain
// photosynthesis") are judged by relevance instead: min(1,
// textsim.Relevance(instructions, response) / 0.7), the responsiveness of
// conversation-quality. An empty response scores 0.
func runInstructionAdherence(_ context.Context, req Request) (Result, error) {
	instr, resp := req.Text("instructions"), req.Text("response")
	return Result{"instruction_adherence_score": adherence(instr, resp)}, nil
}

func adherence(instr, resp string) float64 {
	if len(textsim.Tokenize(resp)) == 0 {
		return 0
	}
	checks := instructions.Find(instr, resp)
	if len(checks) == 0 {
		return math.Min(1, textsim.Relevance(instr, resp)/responsivenessScale)
	}
	ok := 0
	for _, c := range checks {
		if c.OK {
			ok++
		}
	}
	return float64(ok) / float64(len(checks))
}
