package warehouse

import "fmt"

// Metric sort keys.
const (
	MetricSortEventTime    = "event_time"
	MetricSortMetricName   = "metric_name"
	MetricSortNumericValue = "numeric_value"
)

// SortOrder returns the column q sorts by (MetricSort* name the columns)
// and the direction, "ASC" or "DESC"; ties sort by sequence number the
// same way.
func (q MetricQuery) SortOrder() (column, dir string) {
	switch q.SortBy {
	case MetricSortMetricName, MetricSortNumericValue:
		column = q.SortBy
	default:
		column = MetricSortEventTime
	}
	if q.Desc {
		return column, "DESC"
	}
	return column, "ASC"
}

// Metric query limits.
const (
	DefaultMetricLimit = 50
	MaxMetricLimit     = 1000
)

// MetricQuery selects metric points. Points match when EventTime is within
// [FromMs, ToMs] (ToMs 0 = open), the name and source match when set, and
// the filters hold (all of them, or any one when Or is set).
type MetricQuery struct {
	// Environments the caller may see; empty matches nothing. The HTTP
	// layer decides how the body's environments combine with the API key's.
	Environments []string
	FromMs, ToMs int64
	MetricName   string
	MetricSource string // "", or one of the Source* constants
	Filters      []Filter
	Or           bool
	SortBy       string // MetricSort*; "" = event_time
	// Desc sorts descending. The API's default order is DESC (its parser
	// sets Desc); a zero MetricQuery sorts ascending.
	Desc bool
	// Limit 0 means DefaultMetricLimit.
	Limit  int
	Cursor int64
}

// Normalize validates q and fills its defaults (limit, sort key).
func (q MetricQuery) Normalize() (MetricQuery, error) {
	switch {
	case q.Limit == 0:
		q.Limit = DefaultMetricLimit
	case q.Limit < 1 || q.Limit > MaxMetricLimit:
		return q, queryErrorf("limit", "%d is not between 1 and %d", q.Limit, MaxMetricLimit)
	}
	switch q.SortBy {
	case "":
		q.SortBy = MetricSortEventTime
	case MetricSortEventTime, MetricSortMetricName, MetricSortNumericValue:
	default:
		return q, queryErrorf("sort_by", "%q is not one of event_time, metric_name, numeric_value", q.SortBy)
	}
	switch q.MetricSource {
	case "", SourceEvaluator, SourceOTLP, SourceAnnotation, SourceExperiment:
	default:
		return q, queryErrorf("metric_source", "%q is not one of evaluator, otlp, annotation, experiment", q.MetricSource)
	}
	if q.ToMs != 0 && q.ToMs < q.FromMs {
		return q, queryErrorf("to_timestamp_sec", "end is before from_timestamp_sec")
	}
	if _, _, _, err := DecodeMetricCursor(q.Cursor); err != nil {
		return q, err
	}
	if err := checkFilterLimits(q.Filters); err != nil {
		return q, err
	}
	for i, f := range q.Filters {
		name := fmt.Sprintf("filters[%d]", i)
		if _, ok := resolveMetricField(f.Field); !ok {
			return q, queryErrorf(name, "field %q is not a metric column, labels.<name> or attributes.<name>", f.Field)
		}
		if err := validateFilter(name, f, metricOperators); err != nil {
			return q, err
		}
	}
	return q, nil
}
