package index

import "github.com/evalcol/evalcol/internal/warehouse"

// The value dictionary (span_values, point_counts' values) resolves a
// filter that tests a value other than by text equality into the in-list
// of the recorded values that pass it.

// MaxResolvedValues bounds the values a filter resolves to: a filter that
// matches more reads the spans (their postings would cost as much).
const MaxResolvedValues = 4096

// MaxResolvedHours bounds the hours a resolution looks up one by one.
const MaxResolvedHours = 24 * 400

// Resolvable reports whether the dictionary can resolve f: a filter on a
// span attribute that only a span holding the attribute can match, and
// that the postings do not answer by themselves (text equality and
// in-lists).
func Resolvable(f warehouse.Filter, ref warehouse.FieldRef) bool {
	return ref.Kind == warehouse.KindSpanAttribute && !ReservedKey(ref.Key) && ResolvableOperator(f)
}

// ResolvableOperator reports whether only an in-list of values can stand
// for f's test of a value: starts_with, contains, a comparison, a typed
// equality or in-list (text equality and in-lists are in-lists already),
// none of which a row without the value passes.
func ResolvableOperator(f warehouse.Filter) bool {
	switch f.Operator {
	case warehouse.OpEquals, warehouse.OpIn:
		return f.ValueType == warehouse.TypeNumber || f.ValueType == warehouse.TypeBoolean
	case warehouse.OpGreaterThan, warehouse.OpGreaterThanOrEqual, warehouse.OpLessThan, warehouse.OpLessThanOrEqual,
		warehouse.OpContains, warehouse.OpStartsWith:
		return true
	}
	return false
}
