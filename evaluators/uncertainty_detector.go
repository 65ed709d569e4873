package evaluators

import "context"

var uncertaintyDetector = Definition{
	Slug:        "uncertainty-detector",
	Category:    CategoryQuality,
	Description: "Measures how uncertain (hedged) a text is and extracts its main answer with the hedges stripped.",
	Inputs:      []Field{textInput("prompt", "Text", "The text (usually a completion) to analyse.")},
	Outputs: []Field{
		{Name: "answer", Type: TypeString, Label: "Answer", Description: "The text's main answer with hedging phrases removed."},
		scoreOutput("uncertainty", "Uncertainty", "0 (confident) to 1 (entirely hedged)."),
	},
	Side:    SideOutput,
	Score:   "uncertainty",
	PassDoc: "uncertainty < 0.5",
	run:     runUncertainty,
	pass:    func(r Result) bool { f, ok := r["uncertainty"].(float64); return ok && f < 0.5 },
}

func runUncertainty(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
