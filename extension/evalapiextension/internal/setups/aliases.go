package setups

import (
	"strings"

	"github.com/evalcol/evalcol/evaluators"
)

// Traceloop's clients name evaluators in several ways besides the slugs of
// the catalogue; each name below resolves to one of our slugs, which stays
// the canonical evaluator_type of the binding. Names are compared after
// normalisation (lower case, "_" and " " read as "-"), so one entry covers
// every spelling of a name. The sources, cited in the README's alias table:
//
//   - the evaluator type enum of Traceloop's REST API (types.EvaluatorType in
//     https://www.traceloop.com/docs/openapi.json: TOXICITY_DETECTOR,
//     PII_DETECTOR, ...) and the factory methods of the Python SDK's
//     EvaluatorMadeByTraceloop (traceloop/openllmetry,
//     packages/traceloop-sdk/traceloop/sdk/evaluator/evaluators_made_by_traceloop.py:
//     toxicity_detector, pii_detector, ...) are the slugs once normalised,
//     for all 18 evaluators;
//   - the evaluator examples of Traceloop's auto monitor setup API
//     (request.CreateAutoMonitorSetupInput in the same openapi.json) and of
//     its tenant integration client (traceloop/tenant-evals-integration,
//     README.md and src/evals_cli/api.py): "hallucination", "toxicity";
//   - the evaluator titles of Traceloop's "Made by Traceloop" page
//     (https://www.traceloop.com/docs/evaluators/made-by-traceloop): the
//     titles that are not a slug.
var evaluatorAliases = map[string]string{
	"hallucination":       "faithfulness",
	"toxicity":            "toxicity-detector",
	"character-count":     "char-count",
	"pii-detection":       "pii-detector",
	"profanity-detection": "profanity-detector",
	"sexism-detection":    "sexism-detector",
	"secrets-detection":   "secrets-detector",
	"measure-perplexity":  "perplexity",
	"regex-validation":    "regex-validator",
}

// normaliseEvaluatorName lower-cases a name and reads "_" and " " as "-".
func normaliseEvaluatorName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == ' ' {
			return '-'
		}
		return r
	}, strings.ToLower(strings.TrimSpace(name)))
}

// ResolveEvaluator returns the catalogue slug a name refers to: a slug, or
// one of Traceloop's names for it (see evaluatorAliases).
func ResolveEvaluator(name string) (slug string, ok bool) {
	n := normaliseEvaluatorName(name)
	if alias, found := evaluatorAliases[n]; found {
		n = alias
	}
	if _, found := evaluators.Lookup(n); found {
		return n, true
	}
	return "", false
}

// EvaluatorAliases returns the alias table (normalised name → slug) for
// documentation; the map is a copy.
func EvaluatorAliases() map[string]string {
	out := make(map[string]string, len(evaluatorAliases))
	for k, v := range evaluatorAliases {
		out[k] = v
	}
	return out
}
