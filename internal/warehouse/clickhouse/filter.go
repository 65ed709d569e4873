package clickhouse

import (
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
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
func placeholders(n int) string { return sqlfilter.Placeholders(n) }

// dialect is ClickHouse's SQL for sqlfilter: attributes are parallel key
// and value arrays, and a missing key reads as ” (indexOf is 0 and
// values[0] is ”), so every attribute comparison is guarded by has().
var dialect = sqlfilter.Dialect{
	NotNull: func(column string) string { return "isNotNull(" + column + ")" },
	Attribute: func(kind warehouse.FieldKind, key string) (value, exists sqlfilter.Expr) {
		keys, values := arrayColumns(kind)
		return sqlfilter.Expr{SQL: values + "[indexOf(" + keys + ", ?)]", Args: []any{key}},
			sqlfilter.Expr{SQL: "has(" + keys + ", ?)", Args: []any{key}}
	},
	GuardAttributes: true,
	ToNumber:        func(sql string) string { return "toFloat64OrNull(" + sql + ")" },
	Negate:          func(cond string) string { return "NOT ifNull(" + cond + ", 0)" },
	Contains:        func(value string) string { return "position(" + value + ", ?) > 0" },
	StartsWith: func(value sqlfilter.Expr, prefix string) sqlfilter.Expr {
		return sqlfilter.Expr{SQL: "startsWith(" + value.SQL + ", ?)", Args: append(append([]any{}, value.Args...), prefix)}
	},
	True: uint8(1), False: uint8(0),
}

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

// filterCond renders one validated filter as a ClickHouse condition with
// the semantics of the SQLite backend (see package sqlfilter).
func filterCond(f warehouse.Filter, ref warehouse.FieldRef) expr {
	c := dialect.Cond(f, ref)
	return expr{c.SQL, c.Args}
}
