// Package sqlfilter renders a validated warehouse.Filter as a
// parameterised SQL condition, with one semantics for every backend: the
// SQL that differs between engines comes from a Dialect. Caller text
// (attribute keys, values) only ever goes into the parameters; the SQL
// text holds fixed column names from warehouse.FieldRef, the dialect's
// fixed fragments and placeholders.
//
// The semantics: a column or attribute compares as text, as a number
// (numeric columns, numeric operators, valueType number; a text that is
// not a number never matches) or as a boolean; a value that cannot be
// converted never matches; negated operators (not_equals, not_contains,
// not_in) also match records that lack the attribute or hold NULL.
package sqlfilter

import (
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Expr is an SQL expression with its parameters, in order.
type Expr struct {
	SQL  string
	Args []any
}

// Dialect holds the SQL of one engine.
type Dialect struct {
	// Column, when set, is the SQL of a column by its name (a backend may
	// compute a column from others); nil uses the name.
	Column func(name string) string
	// NotNull tests that a nullable column holds a value.
	NotNull func(column string) string
	// Attribute returns the value of the attribute key of a field kind and
	// the test that a record has that attribute.
	Attribute func(kind warehouse.FieldKind, key string) (value, exists Expr)
	// AttributeHas, when set, returns a cheap test that every record whose
	// attribute key of a field kind holds the text value passes (it may
	// pass others too), or ok false when it has none: text equality and
	// in-lists on attributes test it first.
	AttributeHas func(kind warehouse.FieldKind, key, value string) (test Expr, ok bool)
	// GuardAttributes ANDs every attribute comparison with the existence
	// test, for engines where a missing attribute reads as a value ('').
	GuardAttributes bool
	// ToNumber reads a text expression as a number, NULL when it is not one.
	ToNumber func(sql string) string
	// Negate is NOT of a condition, true when the condition is NULL.
	Negate func(cond string) string
	// Contains is true when its one parameter occurs in value.
	Contains func(value string) string
	// ContainsFold is Contains ignoring case; its parameter is lower-case.
	ContainsFold func(value string) string
	// StartsWith is true when value starts with prefix.
	StartsWith func(value Expr, prefix string) Expr
	// True and False are the parameters compared with boolean columns.
	True, False any
}

// NullableColumns may hold NULL (metric values); other columns never do.
var NullableColumns = map[string]bool{"bool_value": true, "numeric_value": true, "enum_value": true}

// compareMode says how a filter compares values.
type compareMode int

const (
	cmpText compareMode = iota
	cmpNumber
	cmpBool
)

// Cond renders filter f on the field ref resolves to.
func (d Dialect) Cond(f warehouse.Filter, ref warehouse.FieldRef) Expr {
	if ref.Kind == warehouse.KindVerdict {
		return d.verdictCond(f, ref.Key)
	}
	var val, exists Expr
	mode := cmpText
	column := ref.Kind == warehouse.KindColumn
	if column {
		colSQL := ref.Column
		if d.Column != nil {
			colSQL = d.Column(ref.Column)
		}
		val = Expr{SQL: colSQL}
		switch {
		case NullableColumns[ref.Column]:
			exists = Expr{SQL: d.NotNull(colSQL)}
		case ref.ColType == warehouse.ColText:
			exists = Expr{SQL: colSQL + " != ''"}
		default:
			exists = Expr{SQL: "1"}
		}
		switch ref.ColType {
		case warehouse.ColInt, warehouse.ColFloat:
			mode = cmpNumber
		case warehouse.ColBool:
			mode = cmpBool
		}
	} else {
		val, exists = d.Attribute(ref.Kind, ref.Key)
	}
	if mode == cmpText {
		switch f.ValueType {
		case warehouse.TypeNumber:
			mode = cmpNumber
		case warehouse.TypeBoolean:
			mode = cmpBool
		}
	}
	if f.Operator.IsNumeric() {
		mode = cmpNumber
	}
	// The compared expression: text read as a number unless the column is
	// numeric; booleans of text values as lower-case text.
	numericCol := column && (ref.ColType == warehouse.ColInt || ref.ColType == warehouse.ColFloat)
	boolCol := column && ref.ColType == warehouse.ColBool
	cmp := val
	textBool := false
	switch {
	case mode == cmpNumber && !numericCol:
		cmp = Expr{d.ToNumber(val.SQL), val.Args}
	case mode == cmpBool && !boolCol:
		cmp = Expr{"lower(" + val.SQL + ")", val.Args}
		textBool = true
	}
	// param converts a filter value for the compare mode; ok false means
	// the value can never match.
	param := func(s string) (any, bool) {
		switch mode {
		case cmpNumber:
			return warehouse.ParseNumber(s)
		case cmpBool:
			b, ok := warehouse.ParseBool(s)
			switch {
			case !ok:
				return nil, false
			case textBool && b:
				return "true", true
			case textBool:
				return "false", true
			case b:
				return d.True, true
			}
			return d.False, true
		}
		return s, true
	}
	with := func(sql string, e Expr, extra ...any) Expr {
		return Expr{sql, append(append([]any{}, e.Args...), extra...)}
	}
	guard := func(c Expr) Expr {
		if column || !d.GuardAttributes {
			return c
		}
		return Expr{"(" + exists.SQL + " AND " + c.SQL + ")", append(append([]any{}, exists.Args...), c.Args...)}
	}
	negate := func(c Expr) Expr { return Expr{d.Negate(c.SQL), c.Args} }
	// prefilter ANDs c, the exact test of values, with the dialect's cheap
	// test that a record may hold one of them (text attributes only). c is
	// true only where the cheap test is, so the result equals c, NULL
	// included where it matters (negate reads NULL as false).
	prefilter := func(c Expr, values []string) Expr {
		if column || mode != cmpText || d.AttributeHas == nil || len(values) == 0 || len(values) > maxPrefilterValues {
			return c
		}
		tests := make([]string, len(values))
		var args []any
		for i, v := range values {
			t, ok := d.AttributeHas(ref.Kind, ref.Key, v)
			if !ok {
				return c
			}
			tests[i] = t.SQL
			args = append(args, t.Args...)
		}
		return Expr{"((" + strings.Join(tests, " OR ") + ") AND " + c.SQL + ")", append(args, c.Args...)}
	}
	never := Expr{SQL: "0"}

	switch f.Operator {
	case warehouse.OpEquals, warehouse.OpNotEquals:
		c := never
		if p, ok := param(f.Value); ok {
			c = prefilter(guard(with(cmp.SQL+" = ?", cmp, p)), []string{f.Value})
		}
		if f.Operator == warehouse.OpNotEquals {
			return negate(c)
		}
		return c
	case warehouse.OpGreaterThan, warehouse.OpGreaterThanOrEqual, warehouse.OpLessThan, warehouse.OpLessThanOrEqual:
		p, ok := param(f.Value)
		if !ok {
			return never
		}
		op := map[warehouse.Operator]string{warehouse.OpGreaterThan: ">", warehouse.OpGreaterThanOrEqual: ">=",
			warehouse.OpLessThan: "<", warehouse.OpLessThanOrEqual: "<="}[f.Operator]
		return guard(with(cmp.SQL+" "+op+" ?", cmp, p))
	case warehouse.OpContains, warehouse.OpNotContains:
		c := guard(with(d.Contains(val.SQL), val, f.Value))
		if f.Operator == warehouse.OpNotContains {
			return negate(c)
		}
		return c
	case warehouse.OpContainsFold:
		return guard(with(d.ContainsFold(val.SQL), val, strings.ToLower(f.Value)))
	case warehouse.OpStartsWith:
		return guard(d.StartsWith(val, f.Value))
	case warehouse.OpIn, warehouse.OpNotIn:
		ps := make([]any, 0, len(f.Values))
		for _, v := range f.Values {
			if p, ok := param(v); ok {
				ps = append(ps, p)
			}
		}
		c := never
		if len(ps) > 0 {
			c = prefilter(guard(with(cmp.SQL+" IN ("+Placeholders(len(ps))+")", cmp, ps...)), f.Values)
		}
		if f.Operator == warehouse.OpNotIn {
			return negate(c)
		}
		return c
	case warehouse.OpExists:
		return exists
	case warehouse.OpNotExists:
		return Expr{"NOT (" + exists.SQL + ")", exists.Args}
	}
	return never
}

// maxPrefilterValues bounds the in-lists given a prefilter (one test per
// value).
const maxPrefilterValues = 8

// Placeholders returns "?, ?, ?" for n parameters.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// VerdictColumn is the span column holding warehouse.VerdictIndex of the
// span's evaluations.
const VerdictColumn = "verdicts"

// verdictCond renders a verdict filter (validated: see
// warehouse.SpanQuery.Normalize) as substring tests of the verdict index:
// a span matches equals/in when one of its results of evaluator ("" any)
// has the verdict, not_equals/not_in when none has, exists when it has a
// result of evaluator at all, not_exists when it has none.
func (d Dialect) verdictCond(f warehouse.Filter, evaluator string) Expr {
	has := func(verdict string) Expr {
		return Expr{SQL: d.Contains(VerdictColumn), Args: []any{warehouse.VerdictNeedle(evaluator, verdict)}}
	}
	anyOf := func(verdicts []string) Expr {
		if len(verdicts) == 0 {
			return Expr{SQL: "0"}
		}
		var e Expr
		conds := make([]string, len(verdicts))
		for i, v := range verdicts {
			c := has(v)
			conds[i] = c.SQL
			e.Args = append(e.Args, c.Args...)
		}
		e.SQL = "(" + strings.Join(conds, " OR ") + ")"
		return e
	}
	not := func(e Expr) Expr { return Expr{SQL: "NOT (" + e.SQL + ")", Args: e.Args} }
	switch f.Operator {
	case warehouse.OpEquals:
		return has(f.Value)
	case warehouse.OpNotEquals:
		return not(has(f.Value))
	case warehouse.OpIn:
		return anyOf(f.Values)
	case warehouse.OpNotIn:
		return not(anyOf(f.Values))
	case warehouse.OpExists:
		return has("")
	case warehouse.OpNotExists:
		return not(has(""))
	}
	return Expr{SQL: "0"}
}
