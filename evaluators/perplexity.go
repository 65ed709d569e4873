package evaluators

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
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
	p, mean := perplexityOf(lps)
	if math.IsInf(p, 0) || math.IsNaN(p) {
		return nil, invalidf("input.logprobs", "input.logprobs: perplexity overflows a float64 (mean log probability %g)", mean)
	}
	return Result{"perplexity_score": p}, nil
}

// perplexityOf is exp(-mean(lps)) of natural-log probabilities, and the
// mean; lps must not be empty. perplexity and prompt-perplexity share it.
func perplexityOf(lps []float64) (p, mean float64) {
	sum := 0.0
	for _, lp := range lps {
		sum += lp
	}
	mean = sum / float64(len(lps))
	return math.Exp(-mean), mean
}

// parseLogprobs decodes a JSON array of numbers or of {"token","logprob"}
// objects. Every value must be a finite number no greater than 0 (a log
// probability); null is not a number. The common form, an array of plain
// numbers, is decoded in one pass.
func parseLogprobs(s string) ([]float64, error) {
	const field = "input.logprobs"
	if nums, ok := parseNumberArray(s); ok {
		return checkLogprobs(nums)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil || raw == nil {
		return nil, invalidf(field, "%s must be a JSON array of numbers or of {\"token\", \"logprob\"} objects serialized into a string", field)
	}
	out := make([]float64, len(raw))
	for i, r := range raw {
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
		out[i] = *f
	}
	return checkLogprobs(out)
}

// checkLogprobs rejects an empty list and values that are not log
// probabilities.
func checkLogprobs(lps []float64) ([]float64, error) {
	const field = "input.logprobs"
	if len(lps) == 0 {
		return nil, invalidf(field, "%s must not be an empty array", field)
	}
	for i, f := range lps {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, invalidf(field, "%s[%d] is not a finite number", field, i)
		}
		if f > 0 {
			return nil, invalidf(field, "%s[%d] is %g, but a log probability is at most 0", field, i, f)
		}
	}
	return lps, nil
}

// jsonSpace is JSON's insignificant whitespace.
const jsonSpace = " \t\n\r"

// parseNumberArray parses a JSON array whose elements are all JSON numbers,
// without allocating per element; ok is false for anything else (objects,
// null, malformed JSON), which the general decoder then handles.
func parseNumberArray(s string) (nums []float64, ok bool) {
	t := strings.Trim(s, jsonSpace)
	if len(t) < 2 || t[0] != '[' || t[len(t)-1] != ']' {
		return nil, false
	}
	body := strings.Trim(t[1:len(t)-1], jsonSpace)
	if body == "" {
		return []float64{}, true
	}
	nums = make([]float64, 0, strings.Count(body, ",")+1)
	for {
		tok, rest, more := strings.Cut(body, ",")
		tok = strings.Trim(tok, jsonSpace)
		if !isJSONNumber(tok) {
			return nil, false
		}
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, false
		}
		nums = append(nums, f)
		if !more {
			return nums, true
		}
		body = rest
	}
}

// isJSONNumber reports whether s is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
