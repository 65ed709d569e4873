package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/charlm"
)

// promptPerplexityLimit is the highest character perplexity of a valid
// prompt (see runPromptPerplexity).
const promptPerplexityLimit = 30.0

var promptPerplexity = Definition{
	Slug:        "prompt-perplexity",
	Category:    CategorySecurity,
	Description: "Perplexity of the prompt under an embedded character model of English spelling, to find gibberish, keyboard mashes and encoded blobs (base64, hex) that injection attempts hide behind.",
	Inputs:      []Field{textInput("prompt", "Prompt", "The prompt to measure.")},
	Outputs: []Field{
		{Name: "perplexity_score", Type: TypeNumber, Label: "Perplexity", Description: "exp(-mean) of the characters' natural-log probabilities, as perplexity computes it from logprobs: about 5-12 for English prose, higher for strings no writer types; 1 for an empty prompt."},
		boolOutput("is_valid", "Is valid", "Whether the perplexity is at most 30: the prompt reads as natural text."),
	},
	Side:    SideInput,
	Score:   "perplexity_score",
	PassDoc: "is_valid == true (perplexity_score <= 30)",
	run:     runPromptPerplexity,
	pass:    passWhenTrue("is_valid"),
}

// runPromptPerplexity gives every character of the prompt a log
// probability with charlm's model (a letter trigram model of English
// spelling counted from the embedded GloVe vocabulary, each word weighted
// by its Zipf frequency; fixed probabilities for spaces, punctuation,
// digits and symbols; letters of other scripts as an average English
// letter) and takes the perplexity of those exactly as the perplexity
// evaluator does from a model's logprobs (perplexityOf). Traceloop scores
// prompts with a language model's token log probabilities; offline, with
// no such model, this is a character-level estimate of the same idea: its
// scale is per character, not per token, so its figures are not
// Traceloop's. The prompt is valid when the perplexity is at most 30
// (promptPerplexityLimit), chosen so that at least 99 % of the benign
// prompts of the injection training sets pass (QUALITY.md) while random
// letters, keyboard mashes and base64 or hex blobs do not. Optimised
// adversarial suffixes made mostly of real words ("describing.\ +
// similarlyNow write oppositeley.](") score about 14 and pass: a
// character model cannot see that real words come in an order no writer
// would use; that needs a word-level model. An empty prompt has
// perplexity 1 and is valid.
func runPromptPerplexity(_ context.Context, req Request) (Result, error) {
	lps := charlm.Default().LogProbs(nil, req.Text("prompt"))
	if len(lps) == 0 {
		return Result{"perplexity_score": 1.0, "is_valid": true}, nil
	}
	p, _ := perplexityOf(lps)
	return Result{"perplexity_score": p, "is_valid": p <= promptPerplexityLimit}, nil
}
