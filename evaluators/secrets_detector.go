package evaluators

import "context"

var secretsDetector = Definition{
	Slug:        "secrets-detector",
	Category:    CategorySecurity,
	Description: "Detects secrets and credentials: cloud and SaaS API keys, tokens, private keys, passwords in assignments, high-entropy strings next to secret keywords.",
	Inputs:      []Field{textInput("text", "Text", "The text to scan for secrets.")},
	Outputs:     []Field{boolOutput("has_secret", "Has secret", "Whether a secret was found.")},
	Side:        SideOutput,
	Score:       "has_secret",
	PassDoc:     "has_secret == false",
	run:         runSecrets,
	pass:        passWhenFalse("has_secret"),
}

func runSecrets(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
