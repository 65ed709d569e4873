package sqlite

import (
	"strings"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
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

// dialect is SQLite's SQL for sqlfilter: attributes are JSON documents
// (a missing one reads as NULL), numbers of text through evalcol_num.
var dialect = sqlfilter.Dialect{
	NotNull: func(column string) string { return column + " IS NOT NULL" },
	Attribute: func(kind warehouse.FieldKind, key string) (value, exists sqlfilter.Expr) {
		v, e := attrExprs(docColumn(kind), key)
		return sqlfilter.Expr{SQL: v.sql, Args: v.args}, sqlfilter.Expr{SQL: e.sql, Args: e.args}
	},
	ToNumber: func(sql string) string { return numFunc + "(" + sql + ")" },
	Negate:   func(cond string) string { return "coalesce(NOT (" + cond + "), 1)" },
	Contains: func(value string) string { return "instr(" + value + ", ?) > 0" },
	StartsWith: func(value sqlfilter.Expr, prefix string) sqlfilter.Expr {
		return sqlfilter.Expr{SQL: "substr(" + value.SQL + ", 1, ?) = ?",
			Args: append(append([]any{}, value.Args...), utf8.RuneCountInString(prefix), prefix)}
	},
	True: 1, False: 0,
}

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

// filterCond renders one validated filter as an SQL condition (see
// package sqlfilter for the semantics).
func filterCond(f warehouse.Filter, ref warehouse.FieldRef) expr {
	c := dialect.Cond(f, ref)
	return expr{c.SQL, c.Args}
}

// placeholders returns "?, ?, ?" for n parameters.
func placeholders(n int) string { return sqlfilter.Placeholders(n) }

// inList adds "column IN (...)" for values.
func (w *where) inList(column string, values []string) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	w.add(column+" IN ("+placeholders(len(values))+")", args...)
}
