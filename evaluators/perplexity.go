package evaluators

import (
	"context"
	"encoding/json"
	"math"
)

var perplexity = Definition{
	Slug:        "perplexity",
	Category:    CategoryQuality,
	Description: "Perplexity of a completion from its token log probabilities: exp(-mean(logprobs)), natural log.",
	Inputs: []Field{{
		Name: "logprobs", Type: TypeString, Required: true, JSONArray: true, Label: "Log probabilities",
		Description: `The tokens' natural-log probabilities: a JSON array of numbers, or of {"token", "logprob"} objects, serialized into a string.`,
	}},
	Outputs: []Field{{Name: "perplexity_score", Type: TypeNumber, Label: "Perplexity", Description: "exp(-mean(logprobs)); 1 for a certain model, larger when less certain."}},
	Side:    SideOutput,
	Score:   "perplexity_score",
	PassDoc: "always passes (perplexity has no verdict of its own)",
	run:     runPerplexity,
	pass:    passAlways,
}

func runPerplexity(_ context.Context, req Request) (Result, error) {
	lps, err := parseLogprobs(req.Text("logprobs"))
	if err != nil {
		return nil, err
	}
	sum := 0.0
	for _, lp := range lps {
		sum += lp
	}
	p := math.Exp(-sum / float64(len(lps)))
	if math.IsInf(p, 0) || math.IsNaN(p) {
		return nil, invalidf("input.logprobs", "input.logprobs: perplexity overflows a float64 (mean log probability %g)", sum/float64(len(lps)))
	}
	return Result{"perplexity_score": p}, nil
}

// parseLogprobs decodes a JSON array of numbers or of {"token","logprob"}
// objects. Every value must be a finite number no greater than 0 (a log
// probability); null is not a number.
func parseLogprobs(s string) ([]float64, error) {
	const field = "input.logprobs"
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil || raw == nil {
		return nil, invalidf(field, "%s must be a JSON array of numbers or of {\"token\", \"logprob\"} objects serialized into a string", field)
	}
	if len(raw) == 0 {
		return nil, invalidf(field, "%s must not be an empty array", field)
	}
	out := make([]float64, len(raw))
	for i, r := range raw {
		// Decoding into a pointer leaves it nil for null, which
		// json.Unmarshal would otherwise accept as 0.
		var f *float64
		if err := json.Unmarshal(r, &f); err != nil || f == nil {
			var obj struct {
				Logprob *float64 `json:"logprob"`
			}
			if err := json.Unmarshal(r, &obj); err != nil || obj.Logprob == nil {
				return nil, invalidf(field, "%s[%d] must be a number or an object with a numeric \"logprob\"", field, i)
			}
			f = obj.Logprob
		}
		if math.IsNaN(*f) || math.IsInf(*f, 0) {
			return nil, invalidf(field, "%s[%d] is not a finite number", field, i)
		}
		if *f > 0 {
			return nil, invalidf(field, "%s[%d] is %g, but a log probability is at most 0", field, i, *f)
		}
		out[i] = *f
	}
	return out, nil
}
