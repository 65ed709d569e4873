package evaluators

// Verdict is the outcome of one evaluation.
type Verdict string

// The verdicts. VerdictNone is the verdict of a result whose evaluator is
// not in the catalogue (a result an application recorded itself).
const (
	VerdictPass  Verdict = "pass"
	VerdictFail  Verdict = "fail"
	VerdictError Verdict = "error"
	VerdictNone  Verdict = ""
)

// VerdictOf returns the verdict of a recorded result of evaluator slug:
// error when the evaluation did not run (errMsg set) or recorded no
// output, else pass or fail by the evaluator's pass condition
// (Definition.Pass, the same decision /v2/guardrails/<slug>/execute
// answers). Output is the result as stored (numbers may be float64 or
// int64). An unknown slug has no verdict.
func VerdictOf(slug string, output map[string]any, errMsg string) Verdict {
	if errMsg != "" {
		return VerdictError
	}
	d, ok := Lookup(slug)
	if !ok {
		return VerdictNone
	}
	if len(output) == 0 {
		return VerdictError
	}
	r := numbersAsFloat(output)
	if d.Pass(r) {
		return VerdictPass
	}
	return VerdictFail
}

// numbersAsFloat returns output with its int64 values (integers read back
// from storage) as float64, the numbers of the pass conditions: output
// itself when it has none, else a copy (the conditions only read it).
func numbersAsFloat(output map[string]any) Result {
	for _, v := range output {
		if _, isInt := v.(int64); isInt {
			r := make(Result, len(output))
			for k, v := range output {
				if i, isInt := v.(int64); isInt {
					v = float64(i)
				}
				r[k] = v
			}
			return r
		}
	}
	return output
}
