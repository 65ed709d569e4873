package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/secrets"
)

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
	explain:     explainSecrets,
	pass:        passWhenFalse("has_secret"),
}

// runSecrets runs gitleaks' default rules and the keyword and entropy
// detectors of package secrets.
func runSecrets(_ context.Context, req Request) (Result, error) {
	has, err := secrets.Has(req.Text("text"))
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "secrets detector unavailable", Err: err}
	}
	return Result{"has_secret": has}, nil
}
