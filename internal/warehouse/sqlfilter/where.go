package sqlfilter

import (
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Where accumulates the conditions of a WHERE clause and their
// parameters, for both backends (both bind "?" placeholders). Caller text
// (attribute keys, values) only ever goes into the parameters.
type Where struct {
	Conds []string
	Args  []any
}

// Add appends a condition and its parameters.
func (w *Where) Add(cond string, args ...any) {
	w.Conds = append(w.Conds, cond)
	w.Args = append(w.Args, args...)
}

// AddExpr appends a condition rendered with its parameters.
func (w *Where) AddExpr(e Expr) { w.Add(e.SQL, e.Args...) }

// In appends "column IN (?, ...)" for values (at least one).
func (w *Where) In(column string, values []string) {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	w.Add(column+" IN ("+Placeholders(len(values))+")", args...)
}

// SQL joins the conditions with AND ("1" when there are none).
func (w *Where) SQL() string {
	if len(w.Conds) == 0 {
		return "1"
	}
	return strings.Join(w.Conds, " AND ")
}

// SpanFilters renders the filters of a span query, one condition each
// (they are ANDed).
func (d Dialect) SpanFilters(filters []warehouse.Filter) []Expr {
	out := make([]Expr, len(filters))
	for i, f := range filters {
		out[i] = d.Cond(f, warehouse.ResolveSpanField(f.Field))
	}
	return out
}

// MetricFilters renders the filters of a metric query as one
// parenthesised condition: all of them (AND) or, with or, any one of them
// (OR). ok is false when there are none.
func (d Dialect) MetricFilters(filters []warehouse.Filter, or bool) (e Expr, ok bool) {
	if len(filters) == 0 {
		return Expr{}, false
	}
	conds := make([]string, len(filters))
	for i, f := range filters {
		c := d.Cond(f, warehouse.ResolveMetricField(f.Field))
		conds[i] = "(" + c.SQL + ")"
		e.Args = append(e.Args, c.Args...)
	}
	join := " AND "
	if or {
		join = " OR "
	}
	e.SQL = "(" + strings.Join(conds, join) + ")"
	return e, true
}

// MetricSelection renders what a metric query selects — its environments,
// time range, metric name, source and filters — as the conditions of a
// WHERE clause.
func (d Dialect) MetricSelection(q warehouse.MetricQuery) Where {
	var w Where
	w.In("environment", q.Environments)
	w.Add("event_time >= ?", q.FromMs)
	if q.ToMs != 0 {
		w.Add("event_time <= ?", q.ToMs)
	}
	if q.MetricName != "" {
		w.Add("metric_name = ?", q.MetricName)
	}
	if q.MetricSource != "" {
		w.Add("source = ?", q.MetricSource)
	}
	if c, ok := d.MetricFilters(q.Filters, q.Or); ok {
		w.AddExpr(c)
	}
	return w
}
