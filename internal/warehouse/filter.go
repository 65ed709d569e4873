package warehouse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Operator is a filter comparison.
type Operator string

// Filter operators. The numeric ones compare as numbers (a value that is
// not a number never matches them).
const (
	OpEquals             Operator = "equals"
	OpNotEquals          Operator = "not_equals"
	OpGreaterThan        Operator = "greater_than"
	OpGreaterThanOrEqual Operator = "greater_than_or_equal"
	OpLessThan           Operator = "less_than"
	OpLessThanOrEqual    Operator = "less_than_or_equal"
	OpContains           Operator = "contains"
	OpNotContains        Operator = "not_contains" // metric queries only
	// OpContainsFold is contains, case-insensitive (ASCII letters on
	// SQLite, Unicode on ClickHouse). Not part of the /v2 API: the
	// console's service, workflow and model filters use it.
	OpContainsFold Operator = "contains_fold"
	OpStartsWith   Operator = "starts_with"
	OpIn           Operator = "in"
	OpNotIn        Operator = "not_in"
	OpExists       Operator = "exists"
	OpNotExists    Operator = "not_exists"
)

// spanOperators lists the operators of span filters in documentation order.
var spanOperators = []Operator{OpEquals, OpNotEquals, OpGreaterThan, OpGreaterThanOrEqual,
	OpLessThan, OpLessThanOrEqual, OpContains, OpStartsWith, OpIn, OpNotIn, OpExists, OpNotExists}

// queryOperators are the span operators a query built in code may use:
// the API's and OpContainsFold.
var queryOperators = append(append([]Operator{}, spanOperators...), OpContainsFold)

// metricOperators are the span operators plus not_contains.
var metricOperators = append(append([]Operator{}, spanOperators...), OpNotContains)

// SpanOperators returns the operators of span filters, in documentation
// order.
func SpanOperators() []Operator { return append([]Operator(nil), spanOperators...) }

// MetricOperators returns the operators of metric filters: the span
// operators plus not_contains.
func MetricOperators() []Operator { return append([]Operator(nil), metricOperators...) }

// OperatorNames joins the names of ops for messages ("equals, ...").
func OperatorNames(ops []Operator) string { return operatorList(ops) }

// IsNumeric reports whether op compares numbers.
func (op Operator) IsNumeric() bool {
	switch op {
	case OpGreaterThan, OpGreaterThanOrEqual, OpLessThan, OpLessThanOrEqual:
		return true
	}
	return false
}

// IsList reports whether op takes a list of values (Filter.Values).
func (op Operator) IsList() bool { return op == OpIn || op == OpNotIn }

// TakesNoValue reports whether op takes no value at all.
func (op Operator) TakesNoValue() bool { return op == OpExists || op == OpNotExists }

// ValueType says how a filter value compares.
type ValueType string

// Value types. The zero value compares as a string.
const (
	TypeString  ValueType = "string"
	TypeNumber  ValueType = "number"
	TypeBoolean ValueType = "boolean"
)

// Filter is one condition of a query. Value is used by the scalar
// operators, Values by in / not_in, neither by exists / not_exists.
type Filter struct {
	Field     string
	Operator  Operator
	Value     string
	Values    []string
	ValueType ValueType
}

// FieldKind says where a filter field lives.
type FieldKind int

// Field kinds.
const (
	// KindColumn is one of the record's own columns (FieldRef.Column).
	KindColumn FieldKind = iota
	// KindSpanAttribute is a span attribute (FieldRef.Key).
	KindSpanAttribute
	// KindResourceAttribute is a resource attribute (FieldRef.Key).
	KindResourceAttribute
	// KindLabel is a metric point label (FieldRef.Key).
	KindLabel
	// KindPointAttribute is a metric point attribute (FieldRef.Key).
	KindPointAttribute
	// KindVerdict is the verdicts of a span's evaluation results
	// (FieldRef.Key is an evaluator slug, "" for any evaluator).
	KindVerdict
)

// ColumnType is the type of a column.
type ColumnType int

// Column types.
const (
	ColText ColumnType = iota
	ColInt
	ColFloat
	ColBool
)

// FieldRef is a resolved filter field. Column is one of the fixed column
// names below (never caller text); Key is the caller's attribute key.
type FieldRef struct {
	Kind    FieldKind
	Column  string
	ColType ColumnType
	Key     string
}

// spanColumns maps the filter ids of a span's own columns to the canonical
// column name and type. Backends name their columns the same.
var spanColumns = map[string]FieldRef{
	"environment":             {Column: "environment"},
	"timestamp":               {Column: "timestamp", ColType: ColInt},
	"trace_id":                {Column: "trace_id"},
	"span_id":                 {Column: "span_id"},
	"parent_span_id":          {Column: "parent_span_id"},
	"trace_state":             {Column: "trace_state"},
	"span_name":               {Column: "span_name"},
	"span_kind":               {Column: "span_kind"},
	"service_name":            {Column: "service_name"},
	"scope_name":              {Column: "scope_name"},
	"scope_version":           {Column: "scope_version"},
	"duration":                {Column: "duration", ColType: ColInt},
	"duration_ms":             {Column: "duration", ColType: ColInt},
	"status_code":             {Column: "status_code"},
	"status_message":          {Column: "status_message"},
	"input":                   {Column: "input"},
	"output":                  {Column: "output"},
	"workflow_name":           {Column: "workflow_name"},
	"svc_workflow_name":       {Column: "workflow_name"},
	"traceloop_workflow_name": {Column: "workflow_name"},
	"entity_name":             {Column: "entity_name"},
	"svc_entity_name":         {Column: "entity_name"},
	"traceloop_entity_name":   {Column: "entity_name"},
	"agent_name":              {Column: "agent_name"},
	"request_model":           {Column: "request_model"},
	"llm_request_model":       {Column: "request_model"},
	"response_model":          {Column: "response_model"},
	"llm_response_model":      {Column: "response_model"},
	"vendor":                  {Column: "vendor"},
	"llm_vendor":              {Column: "vendor"},
	"total_tokens":            {Column: "total_tokens", ColType: ColInt},
	"llm_usage_total_tokens":  {Column: "total_tokens", ColType: ColInt},
}

// Prefixes of span filter ids that address attributes explicitly.
const (
	PrefixSpanAttribute     = "span_attributes."
	PrefixResource          = "resource."
	PrefixResourceAttribute = "resource_attributes."
)

// ResolveSpanField resolves a span filter id: a column name from the list
// in README.md, "resource.<key>" or "resource_attributes.<key>" for a
// resource attribute, "span_attributes.<key>" for a span attribute, and any
// other id is a span attribute key as is.
func ResolveSpanField(id string) FieldRef {
	if ref, ok := spanColumns[id]; ok {
		return ref
	}
	if id == VerdictField {
		return FieldRef{Kind: KindVerdict}
	}
	if slug, ok := strings.CutPrefix(id, VerdictField+"."); ok && slug != "" {
		return FieldRef{Kind: KindVerdict, Key: slug}
	}
	for _, p := range []struct {
		prefix string
		kind   FieldKind
	}{{PrefixSpanAttribute, KindSpanAttribute}, {PrefixResourceAttribute, KindResourceAttribute}, {PrefixResource, KindResourceAttribute}} {
		if key, ok := strings.CutPrefix(id, p.prefix); ok && key != "" {
			return FieldRef{Kind: p.kind, Key: key}
		}
	}
	return FieldRef{Kind: KindSpanAttribute, Key: id}
}

// metricColumns are the direct columns of metric filters.
var metricColumns = map[string]FieldRef{
	"metric_name":     {Column: "metric_name"},
	"organization_id": {Column: "organization_id"},
	"metric_source":   {Column: "source"},
	"source":          {Column: "source"},
	"event_time":      {Column: "event_time", ColType: ColInt},
	"bool_value":      {Column: "bool_value", ColType: ColBool},
	"numeric_value":   {Column: "numeric_value", ColType: ColFloat},
	"enum_value":      {Column: "enum_value"},
	"trace_id":        {Column: "trace_id"},
	"span_id":         {Column: "span_id"},
}

// Prefixes of metric filter fields.
const (
	PrefixLabel     = "labels."
	PrefixAttribute = "attributes."
)

// resolveMetricField resolves a metric filter field; ok is false for an
// unknown field.
func resolveMetricField(field string) (FieldRef, bool) {
	if ref, ok := metricColumns[field]; ok {
		return ref, true
	}
	if key, ok := strings.CutPrefix(field, PrefixLabel); ok && key != "" {
		return FieldRef{Kind: KindLabel, Key: key}, true
	}
	if key, ok := strings.CutPrefix(field, PrefixAttribute); ok && key != "" {
		return FieldRef{Kind: KindPointAttribute, Key: key}, true
	}
	return FieldRef{}, false
}

// IsMetricField reports whether field is a metric filter field: a column,
// labels.<name> or attributes.<name>.
func IsMetricField(field string) bool {
	_, ok := resolveMetricField(field)
	return ok
}

// ResolveMetricField resolves a metric filter field of a validated query.
// Unknown fields resolve to a label of that name (validation rejects them
// first).
func ResolveMetricField(field string) FieldRef {
	if ref, ok := resolveMetricField(field); ok {
		return ref
	}
	return FieldRef{Kind: KindLabel, Key: field}
}

// ParseNumber parses a filter's number value.
func ParseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil
}

// ParseFilterNumber parses the number a caller gives a filter: a finite
// number. NaN and ±Inf, which strconv (and ParseNumber, which also reads
// stored attribute text) accepts, compare with nothing and are the
// caller's mistake (400), not an empty answer.
func ParseFilterNumber(s string) (float64, bool) {
	f, ok := ParseNumber(s)
	return f, ok && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// ParseBool parses a filter's boolean value: true/false (any case), 1/0.
func ParseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

func operatorList(ops []Operator) string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}

func knownOperator(ops []Operator, op Operator) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// ValidateFilter checks one filter against the operators ops
// (SpanOperators or MetricOperators): the checks Normalize makes, with
// name (its position, e.g. "filters[1]") as the *QueryError's field.
func ValidateFilter(name string, f Filter, ops []Operator) error {
	if err := validateFilter(name, f, ops); err != nil {
		return err
	}
	return nil
}

// validateFilter checks one filter of a validated query; name is its
// position, e.g. "filters[1]".
func validateFilter(name string, f Filter, ops []Operator) *QueryError {
	if f.Field == "" {
		return queryErrorf(name, "missing field id")
	}
	if !knownOperator(ops, f.Operator) {
		return queryErrorf(name, "operator %q is not one of %s", f.Operator, operatorList(ops))
	}
	switch f.ValueType {
	case "", TypeString, TypeNumber, TypeBoolean:
	default:
		return queryErrorf(name, "valueType %q is not one of string, number, boolean", f.ValueType)
	}
	switch {
	case f.Operator.IsNumeric():
		if _, ok := ParseFilterNumber(f.Value); !ok {
			return queryErrorf(name, "operator %s needs a numeric value, got %q", f.Operator, f.Value)
		}
	case f.ValueType == TypeNumber && !f.Operator.IsList() && !f.Operator.TakesNoValue() &&
		f.Operator != OpContains && f.Operator != OpNotContains && f.Operator != OpStartsWith && f.Operator != OpContainsFold:
		if _, ok := ParseFilterNumber(f.Value); !ok {
			return queryErrorf(name, "valueType number needs a numeric value, got %q", f.Value)
		}
	case f.ValueType == TypeBoolean && !f.Operator.IsList() && !f.Operator.TakesNoValue():
		if _, ok := ParseBool(f.Value); !ok {
			return queryErrorf(name, "valueType boolean needs true or false, got %q", f.Value)
		}
	}
	if f.Operator.IsList() {
		for i, v := range f.Values {
			switch f.ValueType {
			case TypeNumber:
				if _, ok := ParseFilterNumber(v); !ok {
					return queryErrorf(name, "values[%d]: valueType number needs a numeric value, got %q", i, v)
				}
			case TypeBoolean:
				if _, ok := ParseBool(v); !ok {
					return queryErrorf(name, "values[%d]: valueType boolean needs true or false, got %q", i, v)
				}
			}
		}
	}
	return nil
}

// Limits of one query's filters: SQLite binds at most 32 766 parameters
// per statement and a deep expression tree costs time on every row, so
// larger filter sets are refused up front (HTTP 400) rather than failing
// inside the store.
const (
	// MaxFilters is the most filters one query may carry.
	MaxFilters = 100
	// MaxFilterValues is the most values of one in / not_in filter, and
	// of all filters of a query together.
	MaxFilterValues = 1000
)

// checkFilterLimits enforces MaxFilters and MaxFilterValues.
func checkFilterLimits(filters []Filter) *QueryError {
	if len(filters) > MaxFilters {
		return queryErrorf("filters", "%d filters; at most %d are allowed", len(filters), MaxFilters)
	}
	total := 0
	for i, f := range filters {
		if len(f.Values) > MaxFilterValues {
			return queryErrorf(fmt.Sprintf("filters[%d]", i), "%d values; at most %d are allowed", len(f.Values), MaxFilterValues)
		}
		total += len(f.Values)
	}
	if total > MaxFilterValues {
		return queryErrorf("filters", "%d values in all; at most %d are allowed", total, MaxFilterValues)
	}
	return nil
}

// VerdictField is the filter id of evaluation verdicts: "verdict" is the
// verdicts of a span's evaluation results of any evaluator,
// "verdict.<slug>" those of one evaluator (see verdictOperators).
const VerdictField = "verdict"

// verdictOperators are the operators of verdict filters: equals (a result
// with that verdict), not_equals (none with it), in / not_in (with any /
// none of the verdicts), exists / not_exists (any result / none at all).
var verdictOperators = []Operator{OpEquals, OpNotEquals, OpIn, OpNotIn, OpExists, OpNotExists}

// validateVerdictFilter checks a verdict filter's operator and values.
func validateVerdictFilter(name string, f Filter) *QueryError {
	if !knownOperator(verdictOperators, f.Operator) {
		return queryErrorf(name, "operator %s does not apply to %s; use one of %s", f.Operator, f.Field, operatorList(verdictOperators))
	}
	values := f.Values
	if !f.Operator.IsList() {
		values = []string{f.Value}
	}
	if f.Operator.TakesNoValue() {
		values = nil
	}
	for _, v := range values {
		if !IsVerdict(v) {
			return queryErrorf(name, "%q is not a verdict (pass, fail or error)", v)
		}
	}
	return nil
}
