package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

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
// or numeric strings. Errors are *warehouse.QueryError naming the field.
func ParseMetricQuery(body []byte) (warehouse.MetricQuery, error) {
	return parseMetricQuery(body, nil)
}

// cursorOpener turns the cursor a client sent into the warehouse's (nil:
// taken as it is).
type cursorOpener func(cursor string) (string, error)

func parseMetricQuery(body []byte, openCursor cursorOpener) (warehouse.MetricQuery, error) {
	var b metricBody
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}") // no body: every default
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&b); err != nil {
		return warehouse.MetricQuery{}, queryErrorf("body", "not a JSON metric query object: %v", err)
	}
	fields := map[string]string{
		"sort_by": b.SortBy, "sort_order": b.SortOrder, "metric_name": b.MetricName,
		"metric_source": b.MetricSource, "logical_operator": b.LogicalOperator,
	}
	for name, raw := range map[string]json.RawMessage{"cursor": b.Cursor, "from_timestamp_sec": b.FromTimestamp,
		"to_timestamp_sec": b.ToTimestamp, "limit": b.Limit} {
		s, err := jsonIntText(name, raw)
		if err != nil {
			return warehouse.MetricQuery{}, err
		}
		fields[name] = s
	}
	var filters []warehouse.Filter
	for i, fj := range b.Filters {
		f, err := metricFilter(fmt.Sprintf("filters[%d]", i), fj)
		if err != nil {
			return warehouse.MetricQuery{}, err
		}
		filters = append(filters, f)
	}
	return buildMetricQuery(fields, b.Environments, filters, openCursor)
}

// MetricQueryFromValues parses GET /v2/metrics: the body's fields as query
// parameters, filters as a URL-encoded JSON array, environments repeated
// or comma-separated.
func MetricQueryFromValues(v url.Values) (warehouse.MetricQuery, error) {
	return metricQueryFromValues(v, nil)
}

func metricQueryFromValues(v url.Values, openCursor cursorOpener) (warehouse.MetricQuery, error) {
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
	var filters []warehouse.Filter
	if s := v.Get("filters"); s != "" {
		var fjs []metricFilterJSON
		if err := json.Unmarshal([]byte(s), &fjs); err != nil {
			return warehouse.MetricQuery{}, queryErrorf("filters", "not a JSON array of {field, operator, value, valueType, values}: %v", err)
		}
		for i, fj := range fjs {
			f, err := metricFilter(fmt.Sprintf("filters[%d]", i), fj)
			if err != nil {
				return warehouse.MetricQuery{}, err
			}
			filters = append(filters, f)
		}
	}
	return buildMetricQuery(fields, envs, filters, openCursor)
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

func metricFilter(name string, fj metricFilterJSON) (warehouse.Filter, error) {
	if fj.Field == "" {
		return warehouse.Filter{}, queryErrorf(name, "missing field")
	}
	if !warehouse.IsMetricField(fj.Field) {
		return warehouse.Filter{}, queryErrorf(name, "field %q is not one of bool_value, numeric_value, enum_value, "+
			"trace_id, span_id, metric_name, organization_id, metric_source, event_time, labels.<name>, attributes.<name>", fj.Field)
	}
	op := warehouse.Operator(fj.Operator)
	if !slices.Contains(metricOperators, op) {
		return warehouse.Filter{}, queryErrorf(name, "operator %q is not one of %s", fj.Operator, warehouse.OperatorNames(metricOperators))
	}
	f := warehouse.Filter{Field: fj.Field, Operator: op, ValueType: warehouse.ValueType(strings.ToLower(fj.ValueType))}
	if f.ValueType == "" {
		f.ValueType = warehouse.TypeString
	}
	switch {
	case op.TakesNoValue():
	case op.IsList():
		if fj.Values == nil {
			// Also accept the list in value.
			raw := bytes.TrimSpace(fj.Value)
			if len(raw) == 0 || raw[0] != '[' {
				return warehouse.Filter{}, queryErrorf(name, "operator %s needs values (an array)", op)
			}
			if err := json.Unmarshal(raw, &fj.Values); err != nil {
				return warehouse.Filter{}, queryErrorf(name, "value: %v", err)
			}
		}
		f.Values = make([]string, 0, len(fj.Values))
		for j, raw := range fj.Values {
			s, _, ok := scalarText(raw)
			if !ok {
				return warehouse.Filter{}, queryErrorf(name, "values[%d] is not a string, number or boolean", j)
			}
			f.Values = append(f.Values, s)
		}
	default:
		raw := bytes.TrimSpace(fj.Value)
		if len(raw) == 0 || string(raw) == "null" {
			return warehouse.Filter{}, queryErrorf(name, "operator %s needs a value", op)
		}
		if raw[0] == '[' {
			return warehouse.Filter{}, queryErrorf(name, "operator %s takes a single value, not an array", op)
		}
		s, _, ok := scalarText(raw)
		if !ok {
			return warehouse.Filter{}, queryErrorf(name, "value is not a string, number or boolean")
		}
		f.Value = s
	}
	if err := warehouse.ValidateFilter(name, f, metricOperators); err != nil {
		return warehouse.Filter{}, err
	}
	return f, nil
}

func buildMetricQuery(fields map[string]string, envs []string, filters []warehouse.Filter, openCursor cursorOpener) (warehouse.MetricQuery, error) {
	q := warehouse.MetricQuery{Environments: envs, Filters: filters, MetricName: fields["metric_name"], Desc: true}
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
			if n < 0 || n > warehouse.MaxTimestampSec {
				return q, queryErrorf(p.name, "%d is out of range 0..%d", n, warehouse.MaxTimestampSec)
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
		n, err := parseLimit("limit", s, warehouse.MaxMetricLimit)
		if err != nil {
			return q, err
		}
		q.Limit = n
	}
	if openCursor != nil && fields["cursor"] != "" {
		inner, err := openCursor(strings.TrimSpace(fields["cursor"]))
		if err != nil {
			return q, err
		}
		fields["cursor"] = inner
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
