package sqlite

import (
	"strings"
	"unicode/utf8"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// dialect is SQLite's SQL for sqlfilter: attributes are JSON documents
// (a missing one reads as NULL), numbers of text through evalcol_num.
var dialect = sqlfilter.Dialect{
	// input and output may be references to the attribute holding the
	// text (see contentExprs).
	Column: func(column string) string {
		if e, ok := contentExprs[column]; ok {
			return e
		}
		return column
	},
	NotNull: func(column string) string { return column + " IS NOT NULL" },
	Attribute: func(kind warehouse.FieldKind, key string) (value, exists sqlfilter.Expr) {
		return attrExprs(docColumn(kind), key)
	},
	AttributeHas: attributeHas,
	ToNumber:     func(sql string) string { return numFunc + "(" + sql + ")" },
	Negate:       func(cond string) string { return "coalesce(NOT (" + cond + "), 1)" },
	Contains:     func(value string) string { return "instr(" + value + ", ?) > 0" },
	// lower() folds ASCII letters only (SQLite without ICU).
	ContainsFold: func(value string) string { return "instr(lower(" + value + "), ?) > 0" },
	StartsWith: func(value sqlfilter.Expr, prefix string) sqlfilter.Expr {
		return sqlfilter.Expr{SQL: "substr(" + value.SQL + ", 1, ?) = ?",
			Args: append(append([]any{}, value.Args...), utf8.RuneCountInString(prefix), prefix)}
	},
	True: 1, False: 0,
}

// attributeHas is the cheap test of a text equality on an attribute (see
// sqlfilter.Dialect.AttributeHas): the stored JSON document holds the
// value as a JSON string, which every encoder that ever wrote it spells
// the same way when the value holds no character one of them escapes
// (quotes, backslashes, control characters, <, > and &, U+2028, U+2029,
// invalid UTF-8, and U+FFFD, which also stands for invalid UTF-8 stored
// as an escape). instr over the document is about a third of the cost of
// json_extract: most records are rejected without parsing it. Resource
// attributes (a lookup per span) are left without.
func attributeHas(kind warehouse.FieldKind, _, value string) (sqlfilter.Expr, bool) {
	if kind == warehouse.KindResourceAttribute || !jsonVerbatim(value) {
		return sqlfilter.Expr{}, false
	}
	return sqlfilter.Expr{SQL: "instr(" + docColumn(kind) + ", ?) > 0", Args: []any{`"` + value + `"`}}, true
}

// jsonVerbatim reports whether every JSON encoder writes s between quotes
// as it is.
func jsonVerbatim(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r < 0x20, r == '"', r == '\\', r == '<', r == '>', r == '&', r == 0x7f, r == '\u2028', r == '\u2029',
			r == utf8.RuneError: // U+FFFD: also how invalid UTF-8 is stored (as \ufffd)
			return false
		}
	}
	return true
}

// spanFilters renders the filters of a span query, one condition each, as
// dialect.SpanFilters does, but a filter on a resource attribute tests the
// resource sets once, "spans.resource_id IN (the sets that match)",
// instead of looking up each span's set and parsing its JSON (every span
// has a set: resource_id is NOT NULL, and sets are never deleted, so a
// negation matches the same spans either way).
func spanFilters(filters []warehouse.Filter) []sqlfilter.Expr {
	out := make([]sqlfilter.Expr, len(filters))
	for i, f := range filters {
		ref := warehouse.ResolveSpanField(f.Field)
		if ref.Kind != warehouse.KindResourceAttribute {
			out[i] = dialect.Cond(f, ref)
			continue
		}
		c := resourceDialect.Cond(f, ref)
		out[i] = sqlfilter.Expr{SQL: "spans.resource_id IN (SELECT id FROM resources WHERE " + c.SQL + ")", Args: c.Args}
	}
	return out
}

// resourceDialect renders a filter on the attributes of a row of
// resources.
var resourceDialect = dialectOf(func(key string) (value, exists sqlfilter.Expr) {
	return attrExprs("resources.attributes", key)
})

// dialectOf is dialect with attributes of every kind read by attr, and no
// JSON prefilter (attr reads no document of a span or point).
func dialectOf(attr func(key string) (value, exists sqlfilter.Expr)) sqlfilter.Dialect {
	d := dialect
	d.Attribute = func(_ warehouse.FieldKind, key string) (value, exists sqlfilter.Expr) { return attr(key) }
	d.AttributeHas = nil
	return d
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
func attrExprs(doc, key string) (value, exists sqlfilter.Expr) {
	if strings.ContainsAny(key, "\"\\") {
		return sqlfilter.Expr{SQL: "(SELECT value FROM json_each(" + doc + ") WHERE key = ?)", Args: []any{key}},
			sqlfilter.Expr{SQL: "EXISTS (SELECT 1 FROM json_each(" + doc + ") WHERE key = ?)", Args: []any{key}}
	}
	path := `$."` + key + `"`
	return sqlfilter.Expr{SQL: "json_extract(" + doc + ", ?)", Args: []any{path}},
		sqlfilter.Expr{SQL: "json_type(" + doc + ", ?) IS NOT NULL", Args: []any{path}}
}

// placeholders returns "?, ?, ?" for n parameters.
func placeholders(n int) string { return sqlfilter.Placeholders(n) }
