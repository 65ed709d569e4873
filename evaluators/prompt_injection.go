package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/injection"
	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

var promptInjection = Definition{
	Slug:        "prompt-injection",
	Category:    CategorySecurity,
	Description: "Detects prompt injection and jailbreak attempts in a prompt.",
	Inputs:      []Field{textInput("prompt", "Prompt", "The prompt to check for injection attempts.")},
	Config:      []Field{thresholdConfig("an injection")},
	Outputs:     []Field{safetyOutput("has_injection", "Has injection", `"unsafe" when an injection was found (probability above the threshold), else "safe".`)},
	Side:        SideInput,
	Score:       "has_injection",
	PassDoc:     `has_injection == "safe"`,
	run:         runPromptInjection,
	explain:     explainInjection,
	pass:        passWhenSafe("has_injection"),
	guard:       guardSafety("has_injection", UnsafeLabel),
}

// runPromptInjection flags the prompt when the injection probability (rules
// for chat-template markers, override phrases in nine languages and hidden
// or base64-encoded instructions, combined with a trained model scored over
// sliding windows; see injection.Score) is above the threshold.
func runPromptInjection(ctx context.Context, req Request) (Result, error) {
	det, err := injection.Default()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "prompt-injection model unavailable", Err: err}
	}
	t, own := textclass.LookupText(ctx, req.Text("prompt"))
	if own {
		defer t.Release()
	}
	p := det.ScoreText(t).Probability
	return Result{"has_injection": safety(p > req.Float("threshold"))}, nil
}
