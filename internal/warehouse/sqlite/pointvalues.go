package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite/internal/index"
)

// Filters on a label or a point attribute other than text equality
// (starts_with, contains, a comparison, a typed equality) are resolved
// against the values point_counts records hour by hour: the values of the
// range's hours that match the filter, as an in-list, stand for it, so
// that the counts give the total and, for a label, the label postings the
// page (pointpostings.go), as for an equality.

// pointValuesDialect renders a filter on point_counts' value (as c.value)
// instead of a point's label or attribute: the same SQL, so the same
// semantics.
var pointValuesDialect = dialectOf(func(string) (value, exists sqlfilter.Expr) {
	return sqlfilter.Expr{SQL: "c.value"}, sqlfilter.Expr{SQL: "1"}
})

// resolvePointFilters returns q with each filter on a label or a point
// attribute that only an in-list can stand for (index.ResolvableOperator)
// replaced by the in-list of its key's values, in the hours of q's range,
// that pass it; a filter whose key point_counts leaves out in one of q's
// environments, or that more than index.MaxResolvedValues values pass, stays as
// it is.
func resolvePointFilters(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery) (warehouse.MetricQuery, error) {
	var filters []warehouse.Filter
	for i, f := range q.Filters {
		ref := warehouse.ResolveMetricField(f.Field)
		if ref.Key == "" || !index.ResolvableOperator(f) {
			continue
		}
		var key string // as point_counts names it
		switch {
		case ref.Kind == warehouse.KindLabel && !index.ReservedLabelKey(ref.Key):
			key = index.JSONKey(ref.Key)
		case ref.Kind == warehouse.KindPointAttribute:
			key = index.AttributeCountKey(index.JSONKey(ref.Key))
		default:
			continue
		}
		values, ok, err := resolvePointValues(ctx, tx, q, f, ref, key)
		if err != nil {
			return q, err
		}
		if !ok {
			continue
		}
		if filters == nil {
			filters = slices.Clone(q.Filters)
		}
		filters[i] = warehouse.Filter{Field: f.Field, Operator: warehouse.OpIn, Values: values}
	}
	if filters != nil {
		q.Filters = filters
	}
	return q, nil
}

// resolvePointValues returns the values point_counts records under key
// (ref's) that pass f in the hours of q's range holding points of q's
// environments (ok false: the key is uncounted in one of them, the range
// spans more than index.MaxResolvedHours, or more than index.MaxResolvedValues values
// pass).
func resolvePointValues(ctx context.Context, tx *sql.Tx, q warehouse.MetricQuery, f warehouse.Filter,
	ref warehouse.FieldRef, key string) (values []string, ok bool, err error) {
	var envs []any
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, env := range q.Environments {
		uncounted, err := uncountedKeys(ctx, tx, env)
		if err != nil {
			return nil, false, err
		}
		if uncounted[key] {
			return nil, false, nil
		}
		earliest, latest, ok, err := pointTimes(ctx, tx, env, q.FromMs)
		if err != nil {
			return nil, false, err
		}
		to := latest
		if q.ToMs != 0 {
			to = min(to, q.ToMs)
		}
		if !ok || earliest > to {
			continue
		}
		first, last = min(first, index.HourOf(earliest)), max(last, index.HourOf(to))
		envs = append(envs, env)
	}
	if len(envs) == 0 {
		return []string{}, true, nil // no point in the range: nothing passes
	}
	if last-first >= index.MaxResolvedHours {
		return nil, false, nil
	}
	cond := pointValuesDialect.Cond(f, ref)
	query := hoursCTE + `SELECT DISTINCT c.value FROM hours CROSS JOIN point_counts AS c ON c.environment IN (` +
		placeholders(len(envs)) + `) AND c.hour = hours.h AND c.key = ? AND c.metric_name = ''`
	args := append(append([]any{first, last}, envs...), key)
	if q.MetricSource != "" { // the source's values only (migration 00030: a row per source)
		query += ` AND c.source = ?`
		args = append(args, q.MetricSource)
	}
	query += ` WHERE ` + cond.SQL + ` LIMIT ?`
	args = append(append(args, cond.Args...), index.MaxResolvedValues+1)
	values, err = queryColumn[string](ctx, tx, query, args...)
	if err != nil {
		return nil, false, fmt.Errorf("label values: %w", err)
	}
	if len(values) > index.MaxResolvedValues {
		return nil, false, nil
	}
	return values, true, nil
}
