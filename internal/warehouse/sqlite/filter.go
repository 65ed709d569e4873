package sqlite

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// where accumulates SQL conditions and their parameters. Caller text
// (attribute keys, values) only ever goes into args; the SQL text holds
// fixed column names from warehouse.FieldRef and placeholders.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// sql joins the conditions with AND ("1" when there are none).
func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "1"
	}
	return strings.Join(w.conds, " AND ")
}

// expr is an SQL expression with its own parameters.
type expr struct {
	sql  string
	args []any
}

// nullableColumns may hold NULL (metric values); other columns are NOT NULL.
var nullableColumns = map[string]bool{"bool_value": true, "numeric_value": true, "enum_value": true}

// docColumn is the JSON column holding the attributes of a field kind.
func docColumn(kind warehouse.FieldKind) string {
	switch kind {
	case warehouse.KindResourceAttribute:
		return "(SELECT attributes FROM resources WHERE id = spans.resource_id)"
	case warehouse.KindLabel:
		return "labels"
	case warehouse.KindPointAttribute:
		return "attributes"
	}
	return "span_attributes"
}

// attrExprs returns the value and the existence test of a JSON attribute.
// Keys that a JSON path cannot quote (holding '"' or '\') go through
// json_each instead.
func attrExprs(doc, key string) (value, exists expr) {
	if strings.ContainsAny(key, "\"\\") {
		return expr{"(SELECT value FROM json_each(" + doc + ") WHERE key = ?)", []any{key}},
			expr{"EXISTS (SELECT 1 FROM json_each(" + doc + ") WHERE key = ?)", []any{key}}
	}
	path := `$."` + key + `"`
	return expr{"json_extract(" + doc + ", ?)", []any{path}},
		expr{"json_type(" + doc + ", ?) IS NOT NULL", []any{path}}
}

// compareMode says how a filter compares values.
type compareMode int

const (
	cmpText compareMode = iota
	cmpNumber
	cmpBool
)

// filterCond renders one validated filter as an SQL condition.
func filterCond(f warehouse.Filter, ref warehouse.FieldRef) expr {
	var val, exists expr
	mode := cmpText
	if ref.Kind == warehouse.KindColumn {
		val = expr{sql: ref.Column}
		switch {
		case nullableColumns[ref.Column]:
			exists = expr{sql: ref.Column + " IS NOT NULL"}
		case ref.ColType == warehouse.ColText:
			exists = expr{sql: ref.Column + " != ''"}
		default:
			exists = expr{sql: "1"}
		}
		switch ref.ColType {
		case warehouse.ColInt, warehouse.ColFloat:
			mode = cmpNumber
		case warehouse.ColBool:
			mode = cmpBool
		}
	} else {
		val, exists = attrExprs(docColumn(ref.Kind), ref.Key)
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
	// The compared expression: numbers through evalcol_num unless the
	// column is numeric; booleans of text values as lower-case text.
	cmp := val
	textBool := false
	switch {
	case mode == cmpNumber && ref.ColType != warehouse.ColInt && ref.ColType != warehouse.ColFloat:
		cmp = expr{numFunc + "(" + val.sql + ")", val.args}
	case mode == cmpBool && ref.ColType != warehouse.ColBool:
		cmp = expr{"lower(" + val.sql + ")", val.args}
		textBool = true
	}
	// param converts a filter value for the compare mode; ok false means
	// the value can never match.
	param := func(s string) (any, bool) {
		switch mode {
		case cmpNumber:
			f, ok := warehouse.ParseNumber(s)
			return f, ok
		case cmpBool:
			b, ok := warehouse.ParseBool(s)
			switch {
			case !ok:
				return nil, false
			case textBool:
				return fmt.Sprint(b), true
			case b:
				return 1, true
			}
			return 0, true
		}
		return s, true
	}
	with := func(sql string, e expr, extra ...any) expr {
		return expr{sql, append(append([]any{}, e.args...), extra...)}
	}
	// negate is NOT c, true when the value is missing (NULL).
	negate := func(c expr) expr { return expr{"coalesce(NOT (" + c.sql + "), 1)", c.args} }
	never := expr{sql: "0"}

	switch f.Operator {
	case warehouse.OpEquals, warehouse.OpNotEquals:
		p, ok := param(f.Value)
		c := never
		if ok {
			c = with(cmp.sql+" = ?", cmp, p)
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
		return with(cmp.sql+" "+op+" ?", cmp, p)
	case warehouse.OpContains, warehouse.OpNotContains:
		c := with("instr("+val.sql+", ?) > 0", val, f.Value)
		if f.Operator == warehouse.OpNotContains {
			return negate(c)
		}
		return c
	case warehouse.OpStartsWith:
		return with("substr("+val.sql+", 1, ?) = ?", val, utf8.RuneCountInString(f.Value), f.Value)
	case warehouse.OpIn, warehouse.OpNotIn:
		ps := make([]any, 0, len(f.Values))
		for _, v := range f.Values {
			if p, ok := param(v); ok {
				ps = append(ps, p)
			}
		}
		c := never
		if len(ps) > 0 {
			c = with(cmp.sql+" IN ("+placeholders(len(ps))+")", cmp, ps...)
		}
		if f.Operator == warehouse.OpNotIn {
			return negate(c)
		}
		return c
	case warehouse.OpExists:
		return exists
	case warehouse.OpNotExists:
		return expr{"NOT (" + exists.sql + ")", exists.args}
	}
	return never
}

// placeholders returns "?, ?, ?" for n parameters.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// inList adds "column IN (...)" for values.
func (w *where) inList(column string, values []string) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	w.add(column+" IN ("+placeholders(len(values))+")", args...)
}
