package sqlfilter

import (
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// testDialect writes each engine-specific piece as a readable marker.
var testDialect = Dialect{
	NotNull: func(column string) string { return "NN(" + column + ")" },
	Attribute: func(kind warehouse.FieldKind, key string) (value, exists Expr) {
		return Expr{"VAL(?)", []any{key}}, Expr{"HAS(?)", []any{key}}
	},
	GuardAttributes: true,
	ToNumber:        func(sql string) string { return "NUM(" + sql + ")" },
	Negate:          func(cond string) string { return "NOTNULL(" + cond + ")" },
	Contains:        func(value string) string { return "CONTAINS(" + value + ", ?)" },
	StartsWith: func(value Expr, prefix string) Expr {
		return Expr{"STARTS(" + value.SQL + ", ?)", append(append([]any{}, value.Args...), prefix)}
	},
	True: "T", False: "F",
}

func TestCond(t *testing.T) {
	attr := warehouse.FieldRef{Kind: warehouse.KindSpanAttribute, Key: "user.id"}
	tokens := warehouse.FieldRef{Kind: warehouse.KindColumn, Column: "total_tokens", ColType: warehouse.ColInt}
	boolVal := warehouse.FieldRef{Kind: warehouse.KindColumn, Column: "bool_value", ColType: warehouse.ColBool}
	name := warehouse.FieldRef{Kind: warehouse.KindColumn, Column: "span_name", ColType: warehouse.ColText}
	type F = warehouse.Filter
	tests := []struct {
		name string
		f    F
		ref  warehouse.FieldRef
		want Expr
	}{
		{"attribute equals, guarded", F{Operator: warehouse.OpEquals, Value: "u1"}, attr,
			Expr{"(HAS(?) AND VAL(?) = ?)", []any{"user.id", "user.id", "u1"}}},
		{"not_equals also matches a missing attribute", F{Operator: warehouse.OpNotEquals, Value: "u1"}, attr,
			Expr{"NOTNULL((HAS(?) AND VAL(?) = ?))", []any{"user.id", "user.id", "u1"}}},
		{"numeric operator reads the attribute as a number", F{Operator: warehouse.OpGreaterThan, Value: "2.5"}, attr,
			Expr{"(HAS(?) AND NUM(VAL(?)) > ?)", []any{"user.id", "user.id", 2.5}}},
		{"a value that is no number never matches", F{Operator: warehouse.OpLessThan, Value: "abc"}, attr, Expr{SQL: "0"}},
		{"numeric column compares as it is", F{Operator: warehouse.OpIn, Values: []string{"3", "x", "4"}}, tokens,
			Expr{"total_tokens IN (?, ?)", []any{3.0, 4.0}}},
		{"not_in with no usable value matches all", F{Operator: warehouse.OpNotIn, Values: []string{"x"}}, tokens,
			Expr{"NOTNULL(0)", nil}},
		{"boolean column takes the dialect's booleans", F{Operator: warehouse.OpEquals, Value: "true"}, boolVal,
			Expr{"bool_value = ?", []any{"T"}}},
		{"boolean attribute compares lower-case text", F{Operator: warehouse.OpEquals, Value: "FALSE", ValueType: warehouse.TypeBoolean}, attr,
			Expr{"(HAS(?) AND lower(VAL(?)) = ?)", []any{"user.id", "user.id", "false"}}},
		{"contains", F{Operator: warehouse.OpContains, Value: "chat"}, name, Expr{"CONTAINS(span_name, ?)", []any{"chat"}}},
		{"starts_with", F{Operator: warehouse.OpStartsWith, Value: "ch"}, name, Expr{"STARTS(span_name, ?)", []any{"ch"}}},
		{"exists on a nullable column", F{Operator: warehouse.OpExists}, boolVal, Expr{SQL: "NN(bool_value)"}},
		{"not_exists on a text column", F{Operator: warehouse.OpNotExists}, name, Expr{SQL: "NOT (span_name != '')"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := testDialect.Cond(tt.f, tt.ref)
			if got.SQL != tt.want.SQL || !reflect.DeepEqual(got.Args, tt.want.Args) && (len(got.Args) != 0 || len(tt.want.Args) != 0) {
				t.Errorf("Cond = %q %#v, want %q %#v", got.SQL, got.Args, tt.want.SQL, tt.want.Args)
			}
		})
	}
}

func TestCondWithoutGuard(t *testing.T) {
	d := testDialect
	d.GuardAttributes = false
	got := d.Cond(warehouse.Filter{Operator: warehouse.OpEquals, Value: "u1"}, warehouse.FieldRef{Kind: warehouse.KindLabel, Key: "model"})
	if want := "VAL(?) = ?"; got.SQL != want || !reflect.DeepEqual(got.Args, []any{"model", "u1"}) {
		t.Errorf("Cond = %q %v, want %q [model u1]", got.SQL, got.Args, want)
	}
}

func TestPlaceholders(t *testing.T) {
	for n, want := range map[int]string{0: "", 1: "?", 3: "?, ?, ?"} {
		if got := Placeholders(n); got != want {
			t.Errorf("Placeholders(%d) = %q, want %q", n, got, want)
		}
	}
}
