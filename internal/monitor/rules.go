package monitor

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// InitRule is one span selection rule of an auto monitor setup.
type InitRule struct {
	// Op is one of the span filter operators (see the Op* constants).
	Op string `json:"op"`
	// Source says what Key addresses (see the Source* constants);
	// empty means span_attributes.
	Source string `json:"source"`
	// Key is the attribute name for the attribute sources.
	Key string `json:"key"`
	// Value is the operand; for in and not_in a JSON array of values.
	// Unused by exists and not_exists.
	Value string `json:"value"`
	// ValueType is string (default), number or boolean.
	ValueType string `json:"value_type"`
}

// The init rule operators (the span filter operators of the /v2 API).
const (
	OpEquals             = "equals"
	OpNotEquals          = "not_equals"
	OpGreaterThan        = "greater_than"
	OpGreaterThanOrEqual = "greater_than_or_equal"
	OpLessThan           = "less_than"
	OpLessThanOrEqual    = "less_than_or_equal"
	OpContains           = "contains"
	OpNotContains        = "not_contains"
	OpStartsWith         = "starts_with"
	OpIn                 = "in"
	OpNotIn              = "not_in"
	OpExists             = "exists"
	OpNotExists          = "not_exists"
)

// The init rule sources.
const (
	SourceSpanAttributes     = "span_attributes"
	SourceResourceAttributes = "resource_attributes"
	SourceSpanName           = "span_name"
	SourceSpanKind           = "span_kind"
	SourceScopeName          = "scope_name"
	SourceServiceName        = "service_name"
)

// The init rule value types.
const (
	ValueTypeString  = "string"
	ValueTypeNumber  = "number"
	ValueTypeBoolean = "boolean"
)

// ConditionFromRules translates init rules into one OTTL span condition, the
// AND of the rules. No rules yield "" (every span). Keys and values are
// quoted as OTTL string literals, so no value can change the condition's
// structure.
func ConditionFromRules(rules []InitRule) (string, error) {
	parts := make([]string, 0, len(rules))
	for i, r := range rules {
		c, err := ruleCondition(r)
		if err != nil {
			return "", fmt.Errorf("init_rules[%d]: %w", i, err)
		}
		parts = append(parts, "("+c+")")
	}
	return strings.Join(parts, " and "), nil
}

func ruleCondition(r InitRule) (string, error) {
	path, err := rulePath(r)
	if err != nil {
		return "", err
	}
	vt := r.ValueType
	if vt == "" {
		vt = ValueTypeString
	}
	if vt != ValueTypeString && vt != ValueTypeNumber && vt != ValueTypeBoolean {
		return "", fmt.Errorf("value_type %q is not one of string, number, boolean", r.ValueType)
	}
	switch r.Op {
	case OpExists:
		return path + " != nil", nil
	case OpNotExists:
		return path + " == nil", nil
	case OpEquals, OpNotEquals:
		lhs, lit, err := typedOperands(path, r.Source, vt, r.Value)
		if err != nil {
			return "", err
		}
		op := "=="
		if r.Op == OpNotEquals {
			op = "!="
		}
		return lhs + " " + op + " " + lit, nil
	case OpGreaterThan, OpGreaterThanOrEqual, OpLessThan, OpLessThanOrEqual:
		lit, err := numberLiteral(r.Value)
		if err != nil {
			return "", fmt.Errorf("op %s: %w", r.Op, err)
		}
		return "Double(" + path + ") " + comparison[r.Op] + " " + lit, nil
	case OpContains:
		return "IsMatch(" + path + ", " + quote(regexp.QuoteMeta(normaliseValue(r.Source, r.Value))) + ")", nil
	case OpNotContains:
		// A missing attribute contains nothing, as in span filters.
		return "not IsMatch(" + path + ", " + quote(regexp.QuoteMeta(normaliseValue(r.Source, r.Value))) + ")", nil
	case OpStartsWith:
		return "IsMatch(" + path + ", " + quote("^"+regexp.QuoteMeta(normaliseValue(r.Source, r.Value))) + ")", nil
	case OpIn, OpNotIn:
		values, err := listValues(r.Value)
		if err != nil {
			return "", fmt.Errorf("op %s: %w", r.Op, err)
		}
		if len(values) == 0 {
			return strconv.FormatBool(r.Op == OpNotIn), nil
		}
		op, join := "==", " or "
		if r.Op == OpNotIn {
			op, join = "!=", " and "
		}
		terms := make([]string, len(values))
		for i, v := range values {
			lhs, lit, err := typedOperands(path, r.Source, vt, v)
			if err != nil {
				return "", fmt.Errorf("op %s: value %d: %w", r.Op, i, err)
			}
			terms[i] = lhs + " " + op + " " + lit
		}
		return strings.Join(terms, join), nil
	default:
		return "", fmt.Errorf("op %q is not one of equals, not_equals, greater_than, greater_than_or_equal, less_than, less_than_or_equal, contains, not_contains, starts_with, in, not_in, exists, not_exists", r.Op)
	}
}

var comparison = map[string]string{
	OpGreaterThan:        ">",
	OpGreaterThanOrEqual: ">=",
	OpLessThan:           "<",
	OpLessThanOrEqual:    "<=",
}

// rulePath returns the OTTL path a rule addresses.
func rulePath(r InitRule) (string, error) {
	switch r.Source {
	case SourceSpanAttributes, "":
		if r.Key == "" {
			return "", fmt.Errorf("key is required for source %s", SourceSpanAttributes)
		}
		return "attributes[" + quote(r.Key) + "]", nil
	case SourceResourceAttributes:
		if r.Key == "" {
			return "", fmt.Errorf("key is required for source %s", SourceResourceAttributes)
		}
		return "resource.attributes[" + quote(r.Key) + "]", nil
	case SourceSpanName:
		return "name", nil
	case SourceSpanKind:
		return "kind.string", nil
	case SourceScopeName:
		return "instrumentation_scope.name", nil
	case SourceServiceName:
		return `resource.attributes["service.name"]`, nil
	default:
		return "", fmt.Errorf("source %q is not one of span_attributes, resource_attributes, span_name, span_kind, scope_name, service_name", r.Source)
	}
}

// typedOperands returns the left-hand side (the path converted to the value
// type) and the literal of value.
func typedOperands(path, source, valueType, value string) (lhs, lit string, err error) {
	switch valueType {
	case ValueTypeNumber:
		lit, err := numberLiteral(value)
		return "Double(" + path + ")", lit, err
	case ValueTypeBoolean:
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return "", "", fmt.Errorf("value %q is not a boolean", value)
		}
		return "Bool(" + path + ")", strconv.FormatBool(b), nil
	default:
		return "String(" + path + ")", quote(normaliseValue(source, value)), nil
	}
}

// numberLiteral renders a numeric rule value as an OTTL float literal.
func numberLiteral(value string) (string, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("value %q is not a finite number", value)
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	if f < 0 {
		s = "-" + s
	}
	return s, nil
}

// listValues decodes the value of an in / not_in rule: a JSON array of
// strings, numbers or booleans, rendered back as strings.
func listValues(value string) ([]string, error) {
	var raw []any
	if err := json.Unmarshal([]byte(value), &raw); err != nil {
		return nil, fmt.Errorf("value must be a JSON array of values, got %q", value)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		switch t := v.(type) {
		case string:
			out[i] = t
		case float64:
			out[i] = strconv.FormatFloat(t, 'f', -1, 64)
		case bool:
			out[i] = strconv.FormatBool(t)
		default:
			return nil, fmt.Errorf("value[%d] must be a string, number or boolean", i)
		}
	}
	return out, nil
}

// normaliseValue maps span kind spellings (SPAN_KIND_CLIENT, client) to
// OTTL's kind.string form (Client); other sources keep the value.
func normaliseValue(source, value string) string {
	if source != SourceSpanKind {
		return value
	}
	v := strings.ToLower(strings.TrimPrefix(strings.ToUpper(value), "SPAN_KIND_"))
	if v == "" {
		return value
	}
	return strings.ToUpper(v[:1]) + v[1:]
}

// quote renders s as an OTTL string literal. OTTL unquotes string tokens
// with Go's rules, so strconv.Quote escapes every quote, backslash and
// control character.
func quote(s string) string { return strconv.Quote(s) }
