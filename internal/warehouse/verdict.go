package warehouse

import "strings"

// Verdicts of evaluation results. The evaluators package decides them
// (evaluators.VerdictOf); the warehouse stores and filters them.
const (
	VerdictPass  = "pass"
	VerdictFail  = "fail"
	VerdictError = "error"
)

// IsVerdict reports whether v is one of the verdicts.
func IsVerdict(v string) bool { return v == VerdictPass || v == VerdictFail || v == VerdictError }

// Separators of the verdict index: control characters that evaluator
// names never hold (VerdictIndex drops them from names).
const (
	verdictOpen = "\x1e"
	verdictSep  = "\x1f"
)

// VerdictIndex renders the (evaluator, verdict) pairs of evals as the text
// that verdict filters search, stored beside the evaluations (the spans'
// verdicts column): "\x1e<name>\x1f<verdict>\x1e" per result, "" for
// none. The separators make every search a plain substring test on both
// backends (see VerdictNeedle).
func VerdictIndex(evals []Evaluation) string {
	if len(evals) == 0 {
		return ""
	}
	var b strings.Builder
	for _, ev := range evals {
		b.WriteString(verdictOpen)
		b.WriteString(cleanVerdictName(ev.Name))
		b.WriteString(verdictSep)
		if IsVerdict(ev.Verdict) {
			b.WriteString(ev.Verdict)
		}
		b.WriteString(verdictOpen)
	}
	return b.String()
}

// VerdictNeedle is the substring of a verdict index that marks a result of
// evaluator ("" for any) with verdict ("" for any verdict, i.e. any result
// of the evaluator).
func VerdictNeedle(evaluator, verdict string) string {
	switch {
	case evaluator == "" && verdict == "":
		return verdictOpen
	case evaluator == "":
		return verdictSep + verdict + verdictOpen
	case verdict == "":
		return verdictOpen + cleanVerdictName(evaluator) + verdictSep
	}
	return verdictOpen + cleanVerdictName(evaluator) + verdictSep + verdict + verdictOpen
}

func cleanVerdictName(s string) string {
	if !strings.ContainsAny(s, verdictOpen+verdictSep) {
		return s
	}
	return strings.NewReplacer(verdictOpen, "", verdictSep, "").Replace(s)
}
