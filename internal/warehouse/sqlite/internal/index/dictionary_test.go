package index

import (
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestResolvable: the dictionary resolves value tests on span attributes
// that are not in-lists already.
func TestResolvable(t *testing.T) {
	attr := warehouse.FieldRef{Kind: warehouse.KindSpanAttribute, Key: "user"}
	for _, c := range []struct {
		f    warehouse.Filter
		ref  warehouse.FieldRef
		want bool
	}{
		{warehouse.Filter{Operator: warehouse.OpStartsWith, Value: "u-"}, attr, true},
		{warehouse.Filter{Operator: warehouse.OpEquals, Value: "3", ValueType: warehouse.TypeNumber}, attr, true},
		{warehouse.Filter{Operator: warehouse.OpEquals, Value: "u-17"}, attr, false},
		{warehouse.Filter{Operator: warehouse.OpStartsWith, Value: "u-"}, warehouse.FieldRef{Kind: warehouse.KindSpanAttribute, Key: "\x00x"}, false},
		{warehouse.Filter{Operator: warehouse.OpStartsWith, Value: "u-"}, warehouse.FieldRef{Kind: warehouse.KindColumn, Column: "span_name"}, false},
	} {
		if got := Resolvable(c.f, c.ref); got != c.want {
			t.Errorf("Resolvable(%s %q %q, %q) = %v", c.f.Operator, c.f.Value, c.f.ValueType, c.ref.Key, got)
		}
	}
}

// TestWholeHours: the hours a range covers whole.
func TestWholeHours(t *testing.T) {
	q := warehouse.MetricQuery{FromMs: HourMs / 2, ToMs: 3*HourMs - 1}
	if first, last, ok := WholeHours(q); !ok || first != 1 || last != 2 {
		t.Errorf("WholeHours: %d, %d, %v", first, last, ok)
	}
	q.ToMs = HourMs + 10
	if _, _, ok := WholeHours(q); ok {
		t.Error("WholeHours: a range within two hours covers none whole")
	}
}
