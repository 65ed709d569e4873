package clickhouse

import (
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

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
	ContainsFold:    func(value string) string { return "positionCaseInsensitiveUTF8(" + value + ", ?) > 0" },
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
