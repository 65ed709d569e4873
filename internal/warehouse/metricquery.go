package warehouse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Metric sort keys.
const (
	MetricSortEventTime    = "event_time"
	MetricSortMetricName   = "metric_name"
	MetricSortNumericValue = "numeric_value"
)

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
	MetricSource string // "", SourceEvaluator or SourceOTLP
	Filters      []Filter
	Or           bool
	SortBy       string // MetricSort*; "" = event_time
	// Desc sorts descending. ParseMetricQuery defaults it to true (the
	// API's default order is DESC); a zero MetricQuery sorts ascending.
	Desc bool
	// Limit 0 means DefaultMetricLimit.
	Limit  int
	Cursor int64
}

// metricBody is the JSON body of POST /v2/metrics.
type metricBody struct {
	Cursor          json.RawMessage    `json:"cursor"`
	Environments    []string           `json:"environments"`
	Filters         []metricFilterJSON `json:"filters"`
	FromTimestamp   json.RawMessage    `json:"from_timestamp_sec"`
	ToTimestamp     json.RawMessage    `json:"to_timestamp_sec"`
	Limit           json.RawMessage    `json:"limit"`
	MetricName      string             `json:"metric_name"`
	MetricSource    string             `json:"metric_source"`
	SortBy          string             `json:"sort_by"`
	SortOrder       string             `json:"sort_order"`
	LogicalOperator string             `json:"logical_operator"`
}

// metricFilterJSON is one metric filter as sent.
type metricFilterJSON struct {
	Field     string            `json:"field"`
	Operator  string            `json:"operator"`
	Value     json.RawMessage   `json:"value"`
	ValueType string            `json:"valueType"`
	Values    []json.RawMessage `json:"values"`
}

// ParseMetricQuery parses the JSON body of POST /v2/metrics (an empty body
// means all defaults). cursor, limit and the timestamps may be JSON numbers
// or numeric strings. Errors are *QueryError naming the field.
func ParseMetricQuery(body []byte) (MetricQuery, error) {
	var b metricBody
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}") // no body: every default
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return MetricQuery{}, queryErrorf("body", "not a JSON metric query object: %v", err)
	}
	fields := map[string]string{
		"sort_by": b.SortBy, "sort_order": b.SortOrder, "metric_name": b.MetricName,
		"metric_source": b.MetricSource, "logical_operator": b.LogicalOperator,
	}
	for name, raw := range map[string]json.RawMessage{"cursor": b.Cursor, "from_timestamp_sec": b.FromTimestamp,
		"to_timestamp_sec": b.ToTimestamp, "limit": b.Limit} {
		s, err := jsonIntText(name, raw)
		if err != nil {
			return MetricQuery{}, err
		}
		fields[name] = s
	}
	var filters []Filter
	for i, fj := range b.Filters {
		f, err := metricFilter(fmt.Sprintf("filters[%d]", i), fj)
		if err != nil {
			return MetricQuery{}, err
		}
		filters = append(filters, f)
	}
	return buildMetricQuery(fields, b.Environments, filters)
}

// MetricQueryFromValues parses GET /v2/metrics: the body's fields as query
// parameters, filters as a URL-encoded JSON array, environments repeated
// or comma-separated.
func MetricQueryFromValues(v url.Values) (MetricQuery, error) {
	fields := map[string]string{}
	for _, name := range []string{"cursor", "from_timestamp_sec", "to_timestamp_sec", "limit", "sort_by",
		"sort_order", "metric_name", "metric_source", "logical_operator"} {
		fields[name] = v.Get(name)
	}
	var envs []string
	for _, e := range v["environments"] {
		for _, part := range strings.Split(e, ",") {
			if part = strings.TrimSpace(part); part != "" {
				envs = append(envs, part)
			}
		}
	}
	var filters []Filter
	if s := v.Get("filters"); s != "" {
		var fjs []metricFilterJSON
		if err := json.Unmarshal([]byte(s), &fjs); err != nil {
			return MetricQuery{}, queryErrorf("filters", "not a JSON array of {field, operator, value, valueType, values}: %v", err)
		}
		for i, fj := range fjs {
			f, err := metricFilter(fmt.Sprintf("filters[%d]", i), fj)
			if err != nil {
				return MetricQuery{}, err
			}
			filters = append(filters, f)
		}
	}
	return buildMetricQuery(fields, envs, filters)
}

// jsonIntText returns a JSON number or numeric string as text ("" when
// absent or null).
func jsonIntText(name string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", queryErrorf(name, "not an integer: %v", err)
		}
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", queryErrorf(name, "%s is not an integer", raw)
	}
	return n.String(), nil
}

func metricFilter(name string, fj metricFilterJSON) (Filter, error) {
	if fj.Field == "" {
		return Filter{}, queryErrorf(name, "missing field")
	}
	if _, ok := resolveMetricField(fj.Field); !ok {
		return Filter{}, queryErrorf(name, "field %q is not one of bool_value, numeric_value, enum_value, "+
			"trace_id, span_id, metric_name, organization_id, metric_source, event_time, labels.<name>, attributes.<name>", fj.Field)
	}
	op := Operator(fj.Operator)
	if !knownOperator(metricOperators, op) {
		return Filter{}, queryErrorf(name, "operator %q is not one of %s", fj.Operator, operatorList(metricOperators))
	}
	f := Filter{Field: fj.Field, Operator: op, ValueType: ValueType(strings.ToLower(fj.ValueType))}
	if f.ValueType == "" {
		f.ValueType = TypeString
	}
	switch {
	case op.TakesNoValue():
	case op.IsList():
		if fj.Values == nil {
			// Also accept the list in value.
			raw := bytes.TrimSpace(fj.Value)
			if len(raw) == 0 || raw[0] != '[' {
				return Filter{}, queryErrorf(name, "operator %s needs values (an array)", op)
			}
			if err := json.Unmarshal(raw, &fj.Values); err != nil {
				return Filter{}, queryErrorf(name, "value: %v", err)
			}
		}
		f.Values = make([]string, 0, len(fj.Values))
		for j, raw := range fj.Values {
			s, _, ok := scalarText(raw)
			if !ok {
				return Filter{}, queryErrorf(name, "values[%d] is not a string, number or boolean", j)
			}
			f.Values = append(f.Values, s)
		}
	default:
		raw := bytes.TrimSpace(fj.Value)
		if len(raw) == 0 || string(raw) == "null" {
			return Filter{}, queryErrorf(name, "operator %s needs a value", op)
		}
		if raw[0] == '[' {
			return Filter{}, queryErrorf(name, "operator %s takes a single value, not an array", op)
		}
		s, _, ok := scalarText(raw)
		if !ok {
			return Filter{}, queryErrorf(name, "value is not a string, number or boolean")
		}
		f.Value = s
	}
	if err := validateFilter(name, f, metricOperators); err != nil {
		return Filter{}, err
	}
	return f, nil
}

func buildMetricQuery(fields map[string]string, envs []string, filters []Filter) (MetricQuery, error) {
	q := MetricQuery{Environments: envs, Filters: filters, MetricName: fields["metric_name"], Desc: true}
	var from, to int64
	for _, p := range []struct {
		name string
		dst  *int64
	}{{"from_timestamp_sec", &from}, {"to_timestamp_sec", &to}} {
		if s := fields[p.name]; s != "" {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return q, queryErrorf(p.name, "%q is not an integer (Unix seconds)", s)
			}
			if n < 0 || n > maxTimestampSec {
				return q, queryErrorf(p.name, "%d is out of range 0..%d", n, maxTimestampSec)
			}
			*p.dst = n
		}
	}
	q.FromMs = from * 1000
	if fields["to_timestamp_sec"] != "" {
		if to < from {
			return q, queryErrorf("to_timestamp_sec", "%d is before from_timestamp_sec %d", to, from)
		}
		q.ToMs = to*1000 + 999
	}
	if s := fields["limit"]; s != "" {
		n, err := parseLimit("limit", s, MaxMetricLimit)
		if err != nil {
			return q, err
		}
		q.Limit = n
	}
	if s := fields["cursor"]; s != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return q, queryErrorf("cursor", "%q is not an integer", s)
		}
		q.Cursor = n
	}
	if s := fields["sort_order"]; s != "" {
		desc, err := parseSortOrder("sort_order", s)
		if err != nil {
			return q, err
		}
		q.Desc = desc
	}
	q.SortBy = strings.ToLower(fields["sort_by"])
	q.MetricSource = strings.ToLower(fields["metric_source"])
	switch strings.ToUpper(fields["logical_operator"]) {
	case "", "AND":
	case "OR":
		q.Or = true
	default:
		return q, queryErrorf("logical_operator", "%q is not AND or OR", fields["logical_operator"])
	}
	return q.Normalize()
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
	case "", SourceEvaluator, SourceOTLP:
	default:
		return q, queryErrorf("metric_source", "%q is not one of evaluator, otlp", q.MetricSource)
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
