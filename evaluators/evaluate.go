package evaluators

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"sort"
	"strings"
)

// Evaluate validates input and config against the catalogue entry of slug
// and runs the evaluator. Input and config are decoded JSON objects (config
// may be nil). Errors are *Error: KindUnknownEvaluator for an unknown slug,
// KindInvalidInput for a bad request, KindInternal otherwise (a panic inside
// an evaluator is recovered into KindInternal, with the stack in Err).
func Evaluate(ctx context.Context, slug string, input, config map[string]any) (Result, error) {
	d, ok := Lookup(slug)
	if !ok {
		return nil, &Error{Kind: KindUnknownEvaluator, Msg: fmt.Sprintf("unknown evaluator %q", slug)}
	}
	req, err := d.NewRequest(input, config)
	if err != nil {
		return nil, err
	}
	return d.Run(ctx, req)
}

// Run runs the evaluator on a request already validated by NewRequest.
func (d *Definition) Run(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res = nil
			err = &Error{Kind: KindInternal, Msg: "internal error", Err: fmt.Errorf("%w: evaluator %s: %v\n%s", ErrPanic, d.Slug, p, debug.Stack())}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "evaluation cancelled", Err: err}
	}
	return d.run(ctx, req)
}

// NewRequest validates input and config against the definition: every
// required input present and a string, no unknown config field, config
// values of the right type and range. Defaults fill absent config fields.
func (d *Definition) NewRequest(input, config map[string]any) (Request, error) {
	req := Request{Input: make(map[string]string, len(d.Inputs))}
	for _, f := range d.Inputs {
		v, ok := input[f.Name]
		if !ok || v == nil {
			if f.Required {
				return Request{}, invalidf("input."+f.Name, "input.%s is required", f.Name)
			}
			continue
		}
		s, ok := v.(string)
		if !ok {
			return Request{}, invalidf("input."+f.Name, "input.%s must be a string, got %s", f.Name, jsonTypeName(v))
		}
		req.Input[f.Name] = s
	}
	var err error
	if req.Config, err = d.CheckConfig(config); err != nil {
		return Request{}, err
	}
	return req, nil
}

// CheckConfig validates config as NewRequest does and returns it with the
// defaults filled in, in a new map. Requests may share the map (evaluators
// only read it): a caller that runs one evaluator with one config on many
// inputs checks the config once and builds each Request from the inputs
// and the checked config.
func (d *Definition) CheckConfig(config map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(d.Config))
	for name, v := range config {
		f, ok := d.ConfigField(name)
		if !ok {
			return nil, invalidf("config."+name, "config.%s is not a config field of %s%s", name, d.Slug, knownFields(d.Config))
		}
		if v == nil {
			continue
		}
		cv, err := checkConfigValue(f, v)
		if err != nil {
			return nil, err
		}
		out[name] = cv
	}
	for _, f := range d.Config {
		if _, ok := out[f.Name]; !ok && f.Default != nil {
			out[f.Name] = f.Default
		}
	}
	if d.validate != nil {
		if err := d.validate(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func checkConfigValue(f Field, v any) (any, error) {
	field := "config." + f.Name
	switch f.Type {
	case TypeNumber, TypeInteger:
		n, ok := v.(float64)
		if !ok {
			if i, isInt := v.(int); isInt {
				n, ok = float64(i), true
			}
		}
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, invalidf(field, "%s must be a number, got %s", field, jsonTypeName(v))
		}
		if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
			return nil, invalidf(field, "%s must be between %g and %g, got %g", field, *f.Min, *f.Max, n)
		}
		return n, nil
	case TypeStringArray:
		return checkStringArray(field, v)
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, invalidf(field, "%s must be a boolean, got %s", field, jsonTypeName(v))
		}
		return b, nil
	default:
		s, ok := v.(string)
		if !ok {
			return nil, invalidf(field, "%s must be a string, got %s", field, jsonTypeName(v))
		}
		return s, nil
	}
}

// checkStringArray accepts a JSON array of strings (decoded as []any, or
// []string from Go callers) and returns it as []string.
func checkStringArray(field string, v any) (any, error) {
	switch t := v.(type) {
	case []string:
		return append([]string(nil), t...), nil
	case []any:
		out := make([]string, len(t))
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, invalidf(field, "%s[%d] must be a string, got %s", field, i, jsonTypeName(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, invalidf(field, "%s must be an array of strings, got %s", field, jsonTypeName(v))
}

func knownFields(fs []Field) string {
	if len(fs) == 0 {
		return " (it takes no config)"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	sort.Strings(names)
	return " (known: " + strings.Join(names, ", ") + ")"
}

// jsonTypeName names the JSON type of a decoded JSON value.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, int, int64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// ScoreOf returns the value and label of a result's score field, as the
// processor records them on a span event: numbers as themselves, booleans
// as 1 or 0 with label "true" or "false", "safe"/"unsafe" enums as 1 or 0
// with the enum value as label, other enums as 1 for their first (passing)
// value and 0 otherwise, with the value as label.
func (d *Definition) ScoreOf(r Result) (value float64, label string) {
	switch v := r[d.Score].(type) {
	case float64:
		return v, ""
	case int:
		return float64(v), ""
	case bool:
		if v {
			return 1, "true"
		}
		return 0, "false"
	case string:
		if v == SafeLabel || d.passingLabel(v) {
			return 1, v
		}
		return 0, v
	}
	return 0, ""
}

// passingLabel reports whether v is the passing value of the score
// field's enumeration: the first of its enum values, for the result
// fields of Traceloop's agent evaluators ("pass", "success",
// "complete"); "safe"/"unsafe" fields are handled by ScoreOf itself.
func (d *Definition) passingLabel(v string) bool {
	f, ok := findField(d.Outputs, d.Score)
	return ok && len(f.EnumValues) > 0 && f.EnumValues[0] == v
}

// The values of the is_safe and has_injection fields.
const (
	SafeLabel   = "safe"
	UnsafeLabel = "unsafe"
)

// safety returns "safe" or "unsafe".
func safety(unsafe bool) string {
	if unsafe {
		return UnsafeLabel
	}
	return SafeLabel
}
