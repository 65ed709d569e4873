package judge

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Field is one input or output field of a custom evaluator (the SDK's
// PropertySchema).
type Field struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description,omitempty"`
	EnumValues  []string `json:"enum_values,omitempty"`
}

// The field types a schema may use.
const (
	TypeString  = "string"
	TypeNumber  = "number"
	TypeInteger = "integer"
	TypeBoolean = "boolean"
)

// Types lists the field types, for error messages.
var Types = []string{TypeString, TypeNumber, TypeInteger, TypeBoolean}

// CheckFields checks a schema's fields: names are non-empty and distinct,
// types known, enum values only on strings. what names the schema in
// errors ("output_schema").
func CheckFields(what string, fs []Field) error {
	seen := map[string]bool{}
	for i, f := range fs {
		at := fmt.Sprintf("%s[%d]", what, i)
		switch {
		case strings.TrimSpace(f.Name) == "":
			return fmt.Errorf("%s.name: must not be empty", at)
		case len(f.Name) > 128:
			return fmt.Errorf("%s.name: at most 128 bytes", at)
		case seen[f.Name]:
			return fmt.Errorf("%s.name: %q is listed twice", at, f.Name)
		case !slices.Contains(Types, f.Type):
			return fmt.Errorf("%s.type: %q is not a type (use one of %s)", at, f.Type, strings.Join(Types, ", "))
		case len(f.EnumValues) > 0 && f.Type != TypeString:
			return fmt.Errorf("%s.enum_values: only a string field may list values", at)
		}
		seen[f.Name] = true
	}
	return nil
}

// JSONSchema returns the JSON schema of an object with the fields fs, all
// required and nothing else (the form OpenAI's strict structured outputs
// accept).
func JSONSchema(fs []Field) map[string]any {
	props := make(map[string]any, len(fs))
	required := make([]string, 0, len(fs))
	for _, f := range fs {
		p := map[string]any{"type": f.Type}
		if f.Description != "" {
			p["description"] = f.Description
		}
		if len(f.EnumValues) > 0 {
			p["enum"] = f.EnumValues
		}
		props[f.Name] = p
		required = append(required, f.Name)
	}
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// CheckInput checks the types of the input fields that fs describes and
// that input holds (a field the prompt needs but input lacks is reported
// by Render).
func CheckInput(fs []Field, input map[string]any) error {
	for _, f := range fs {
		v, ok := input[f.Name]
		if !ok || v == nil {
			continue
		}
		if err := checkValue(f, v); err != nil {
			return fmt.Errorf("input.%s: %w", f.Name, err)
		}
	}
	return nil
}

// checkValue checks one value (as encoding/json decodes it) against f.
func checkValue(f Field, v any) error {
	switch f.Type {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", describe(v))
		}
		if len(f.EnumValues) > 0 && !slices.Contains(f.EnumValues, s) {
			return fmt.Errorf("%q is not one of %s", s, strings.Join(f.EnumValues, ", "))
		}
	case TypeBoolean:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want a boolean, got %s", describe(v))
		}
	case TypeNumber, TypeInteger:
		n, ok := v.(float64)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return fmt.Errorf("want a %s, got %s", f.Type, describe(v))
		}
		if f.Type == TypeInteger && n != math.Trunc(n) {
			return fmt.Errorf("want an integer, got %v", n)
		}
	}
	return nil
}

// describe names a decoded JSON value for an error message.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		if len(t) > 40 {
			t = t[:40] + "..."
		}
		return fmt.Sprintf("the string %q", t)
	case bool:
		return fmt.Sprintf("the boolean %v", t)
	case float64:
		return fmt.Sprintf("the number %v", t)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// validateOutput checks a model's answer against the output fields and
// returns the output object: exactly the schema's fields (others the model
// added are dropped).
func validateOutput(fs []Field, raw map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(fs))
	var problems []string
	for _, f := range fs {
		v, ok := raw[f.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: missing", f.Name))
			continue
		}
		if err := checkValue(f, v); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f.Name, err))
			continue
		}
		out[f.Name] = v
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("the answer does not fit output_schema: %s", strings.Join(problems, "; "))
	}
	return out, nil
}

// Verdict is what a judge's output says: pass or fail (when a boolean
// field named passed or pass is in the output schema) and a score (the
// first number field).
type Verdict struct {
	Passed *bool    `json:"passed,omitempty"`
	Score  *float64 `json:"score,omitempty"`
}

// VerdictOf returns the verdict of an output that fits fs: the boolean
// field "passed" (else "pass") decides pass/fail; the first number or
// integer field of the schema becomes the score.
func VerdictOf(fs []Field, out map[string]any) Verdict {
	var v Verdict
	for _, name := range []string{"passed", "pass"} {
		if b, ok := out[name].(bool); ok && hasField(fs, name, TypeBoolean) {
			v.Passed = &b
			break
		}
	}
	for _, f := range fs {
		if f.Type != TypeNumber && f.Type != TypeInteger {
			continue
		}
		if n, ok := out[f.Name].(float64); ok {
			v.Score = &n
			break
		}
	}
	return v
}

func hasField(fs []Field, name, typ string) bool {
	for _, f := range fs {
		if f.Name == name && f.Type == typ {
			return true
		}
	}
	return false
}

const maxJSONStarts = 32

// firstJSONObject returns the first JSON object in text that decodes
// (models often wrap it in prose or a ```json fence).
// At most maxJSONStarts opening braces are tried, so that a hostile
// answer of nested braces costs bounded time.
func firstJSONObject(text string) (map[string]any, bool) {
	tries := 0
	for i := 0; i < len(text) && tries < maxJSONStarts; i++ {
		if text[i] != '{' {
			continue
		}
		tries++
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var m map[string]any
		if err := dec.Decode(&m); err == nil && m != nil {
			return m, true
		}
	}
	return nil, false
}

// ParseValue types text (a span's value, a form's field) as a schema
// field of type typ takes it: a number, an integer (as a float64, as JSON
// decodes it) or a boolean; text that does not parse stays text, so that
// CheckInput names the field.
func ParseValue(typ, s string) any {
	switch typ {
	case TypeNumber:
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return n
		}
	case TypeInteger:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return float64(n)
		}
	case TypeBoolean:
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	}
	return s
}
