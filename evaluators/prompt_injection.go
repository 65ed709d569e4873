package evaluators

import "context"

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
	pass:        passWhenSafe("has_injection"),
}

func runPromptInjection(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
