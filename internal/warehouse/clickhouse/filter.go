package clickhouse

import (
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// where accumulates SQL conditions and their parameters. Caller text
// (attribute keys, values) only ever goes into args, bound by the driver
// as quoted literals; the SQL text holds fixed column names from
// warehouse.FieldRef and placeholders.
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

// inList adds "column IN (?, ...)" for values (never with an empty list).
func (w *where) inList(column string, values []string) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	w.add(column+" IN ("+placeholders(len(values))+")", args...)
}

// expr is an SQL expression with its own parameters.
type expr struct {
	sql  string
	args []any
}

// placeholders returns "?, ?, ?" for n parameters.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// nullableColumns may hold NULL (metric values); other columns are not
// Nullable.
var nullableColumns = map[string]bool{"bool_value": true, "numeric_value": true, "enum_value": true}

// arrayColumns returns the parallel key and value array columns holding
// the attributes of a field kind.
func arrayColumns(kind warehouse.FieldKind) (keys, values string) {
	switch kind {
	case warehouse.KindResourceAttribute:
		return "resource_keys", "resource_values"
	case warehouse.KindLabel:
		return "label_keys", "label_values"
	case warehouse.KindPointAttribute:
		return "attr_keys", "attr_values"
	}
	return "attr_keys", "attr_values"
}

type compareMode int

const (
	cmpText compareMode = iota
	cmpNumber
	cmpBool
)

// filterCond renders one validated filter as a ClickHouse condition with
// the semantics of the SQLite backend: numbers compare numerically (a text
// that is not a number never matches), negated operators also match
// records that lack the attribute.
func filterCond(f warehouse.Filter, ref warehouse.FieldRef) expr {
	var val, exists expr
	mode := cmpText
	if ref.Kind == warehouse.KindColumn {
		val = expr{sql: ref.Column}
		switch {
		case nullableColumns[ref.Column]:
			exists = expr{sql: "isNotNull(" + ref.Column + ")"}
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
		keys, values := arrayColumns(ref.Kind)
		// indexOf is 0 for a missing key and values[0] is ''; every
		// comparison below is guarded by has(), so '' never matches for a
		// missing key.
		exists = expr{"has(" + keys + ", ?)", []any{ref.Key}}
		val = expr{values + "[indexOf(" + keys + ", ?)]", []any{ref.Key}}
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
	numericCol := ref.Kind == warehouse.KindColumn && (ref.ColType == warehouse.ColInt || ref.ColType == warehouse.ColFloat)
	boolCol := ref.Kind == warehouse.KindColumn && ref.ColType == warehouse.ColBool
	cmp := val
	textBool := false
	switch {
	case mode == cmpNumber && !numericCol:
		cmp = expr{"toFloat64OrNull(" + val.sql + ")", val.args}
	case mode == cmpBool && !boolCol:
		cmp = expr{"lower(" + val.sql + ")", val.args}
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
				return uint8(1), true
			}
			return uint8(0), true
		}
		return s, true
	}
	with := func(sql string, e expr, extra ...any) expr {
		return expr{sql, append(append([]any{}, e.args...), extra...)}
	}
	// guard makes an attribute condition false when the key is missing.
	guard := func(c expr) expr {
		if ref.Kind == warehouse.KindColumn {
			return c
		}
		return expr{"(" + exists.sql + " AND " + c.sql + ")", append(append([]any{}, exists.args...), c.args...)}
	}
	// negate is NOT c, true when the value is missing or NULL.
	negate := func(c expr) expr { return expr{"NOT ifNull(" + c.sql + ", 0)", c.args} }
	never := expr{sql: "0"}

	switch f.Operator {
	case warehouse.OpEquals, warehouse.OpNotEquals:
		c := never
		if p, ok := param(f.Value); ok {
			c = guard(with(cmp.sql+" = ?", cmp, p))
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
		return guard(with(cmp.sql+" "+op+" ?", cmp, p))
	case warehouse.OpContains, warehouse.OpNotContains:
		c := guard(with("position("+val.sql+", ?) > 0", val, f.Value))
		if f.Operator == warehouse.OpNotContains {
			return negate(c)
		}
		return c
	case warehouse.OpStartsWith:
		return guard(with("startsWith("+val.sql+", ?)", val, f.Value))
	case warehouse.OpIn, warehouse.OpNotIn:
		ps := make([]any, 0, len(f.Values))
		for _, v := range f.Values {
			if p, ok := param(v); ok {
				ps = append(ps, p)
			}
		}
		c := never
		if len(ps) > 0 {
			c = guard(with(cmp.sql+" IN ("+placeholders(len(ps))+")", cmp, ps...))
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
