package evaluators

// Shared field constructors of the catalogue.

var (
	zero = 0.0
	one  = 1.0
)

// textInput is a required string input.
func textInput(name, label, description string) Field {
	return Field{Name: name, Type: TypeString, Required: true, Label: label, Description: description}
}

// thresholdConfig is the 0..1 decision threshold of a classifier, default 0.5.
func thresholdConfig(what string) Field {
	return Field{
		Name: "threshold", Type: TypeNumber, Default: 0.5, Min: &zero, Max: &one,
		Label:       "Threshold",
		Description: "Probability in 0..1 above which the text is flagged as " + what + ".",
	}
}

// boolOutput is a boolean output field.
func boolOutput(name, label, description string) Field {
	return Field{Name: name, Type: TypeBoolean, Label: label, Description: description}
}

// safetyOutput is a "safe"/"unsafe" output field.
func safetyOutput(name, label, description string) Field {
	return Field{Name: name, Type: TypeString, Label: label, Description: description, EnumValues: []string{SafeLabel, UnsafeLabel}}
}

// scoreOutput is a numeric 0..1 output field.
func scoreOutput(name, label, description string) Field {
	return Field{Name: name, Type: TypeNumber, Label: label, Description: description}
}

// regexFlags are the matching flags shared by the two regex evaluators.
func regexFlags() []Field {
	return []Field{
		{Name: "should_match", Type: TypeBoolean, Default: true, Label: "Should match", Description: "Whether the text is valid when the pattern is found (true) or when it is not (false)."},
		{Name: "case_sensitive", Type: TypeBoolean, Default: true, Label: "Case sensitive", Description: "Match letters case-sensitively."},
		{Name: "dot_include_nl", Type: TypeBoolean, Default: false, Label: "Dot matches newline", Description: "Let . match a newline too (Python re.DOTALL)."},
		{Name: "multi_line", Type: TypeBoolean, Default: false, Label: "Multi-line", Description: "Let ^ and $ match at every line (Python re.MULTILINE)."},
	}
}

// Pass conditions shared by several evaluators.

func passWhenSafe(field string) func(Result) bool {
	return func(r Result) bool { return r[field] == SafeLabel }
}

func passWhenFalse(field string) func(Result) bool {
	return func(r Result) bool { b, ok := r[field].(bool); return ok && !b }
}

func passWhenTrue(field string) func(Result) bool {
	return func(r Result) bool { b, ok := r[field].(bool); return ok && b }
}

func passWhenAtLeastHalf(field string) func(Result) bool {
	return func(r Result) bool { f, ok := r[field].(float64); return ok && f >= 0.5 }
}

func passAlways(Result) bool { return true }

// errNotImplemented is returned by evaluators not written yet.
var errNotImplemented = &Error{Kind: KindInternal, Msg: "evaluator not implemented yet"}

// guardSafety turns the "safe"/"unsafe" field into a boolean that is true
// when the value is trueWhen.
func guardSafety(field, trueWhen string) func(Result) Result {
	return func(r Result) Result {
		out := make(Result, len(r))
		for k, v := range r {
			out[k] = v
		}
		if s, ok := r[field].(string); ok {
			out[field] = s == trueWhen
		}
		return out
	}
}
