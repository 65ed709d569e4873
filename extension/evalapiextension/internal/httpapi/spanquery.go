package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// The /v2 wire format of the warehouse queries: query strings and JSON
// bodies parsed into warehouse.SpanQuery and warehouse.MetricQuery (the
// parameters are documented in internal/warehouse/README.md). Errors are
// *warehouse.QueryError naming the parameter (HTTP 400); the store
// validates the parsed query again (Normalize) with the same messages.

// Operators of span and metric filters (read-only).
var (
	spanOperators   = warehouse.SpanOperators()
	metricOperators = warehouse.MetricOperators()
)

func queryErrorf(field, format string, args ...any) *warehouse.QueryError {
	return &warehouse.QueryError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// spanParams are the query parameters ParseSpanQuery reads itself; every
// other parameter is a span attribute equality filter.
var spanParams = map[string]bool{
	"from_timestamp_sec": true, "to_timestamp_sec": true, "workflow": true, "span_name": true,
	"sort_order": true, "sort_by": true, "cursor": true, "limit": true, "filters": true,
	"explain":    true, // asks for each evaluation's verdict and explanation (not a filter)
	"annotation": true, // <task>.<tag>:<value>: the traces annotated so (resolved by the handler)
	"q":          true, // full-text search in prompts and completions (an evalcol extension)
}

// ParseSpanQuery parses the query string of GET /v2/warehouse/spans. The
// caller sets Environments. Errors are *warehouse.QueryError naming the parameter.
func ParseSpanQuery(v url.Values) (warehouse.SpanQuery, error) {
	var q warehouse.SpanQuery
	from, err := parseSeconds(v, "from_timestamp_sec", true)
	if err != nil {
		return q, err
	}
	q.FromMs = from * 1000
	if v.Get("to_timestamp_sec") != "" {
		to, err := parseSeconds(v, "to_timestamp_sec", false)
		if err != nil {
			return q, err
		}
		if to < from {
			return q, queryErrorf("to_timestamp_sec", "%d is before from_timestamp_sec %d", to, from)
		}
		q.ToMs = to*1000 + 999 // the whole last second
	}
	if s := v.Get("sort_order"); s != "" {
		desc, err := parseSortOrder("sort_order", s)
		if err != nil {
			return q, err
		}
		q.Desc = desc
	}
	if s := v.Get("sort_by"); s != "" {
		key, ok := warehouse.SortKeyByName(strings.ToLower(s))
		if !ok {
			return q, queryErrorf("sort_by", "%q is not one of %s", s, warehouse.SortKeyNames)
		}
		q.SortBy = key
	}
	if s := v.Get("limit"); s != "" {
		n, err := parseLimit("limit", s, warehouse.MaxSpanLimit)
		if err != nil {
			return q, err
		}
		q.Limit = n
	}
	q.Cursor = v.Get("cursor")
	q.Text = strings.TrimSpace(v.Get("q"))
	if s := v.Get("filters"); s != "" {
		fs, err := parseSpanFilters(s)
		if err != nil {
			return q, err
		}
		q.Filters = fs
	}
	if s := v.Get("workflow"); s != "" {
		q.Filters = append(q.Filters, warehouse.Filter{Field: "workflow_name", Operator: warehouse.OpEquals, Value: s})
	}
	if s := v.Get("span_name"); s != "" {
		q.Filters = append(q.Filters, warehouse.Filter{Field: "span_name", Operator: warehouse.OpEquals, Value: s})
	}
	extra := make([]string, 0, len(v))
	for name := range v {
		if !spanParams[name] && name != "" {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		for _, val := range v[name] {
			q.Filters = append(q.Filters, warehouse.Filter{Field: warehouse.PrefixSpanAttribute + name, Operator: warehouse.OpEquals, Value: val})
		}
	}
	return q.Normalize()
}

func parseSeconds(v url.Values, name string, required bool) (int64, error) {
	s := v.Get(name)
	if s == "" {
		if required {
			return 0, queryErrorf(name, "required (Unix seconds)")
		}
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, queryErrorf(name, "%q is not an integer (Unix seconds)", s)
	}
	if n < 0 || n > warehouse.MaxTimestampSec {
		return 0, queryErrorf(name, "%d is out of range 0..%d", n, warehouse.MaxTimestampSec)
	}
	return n, nil
}

func parseSortOrder(name, s string) (desc bool, err error) {
	switch strings.ToUpper(s) {
	case "ASC":
		return false, nil
	case "DESC":
		return true, nil
	}
	return false, queryErrorf(name, "%q is not ASC or DESC", s)
}

func parseLimit(name, s string, max int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, queryErrorf(name, "%q is not an integer", s)
	}
	if n < 1 || n > max {
		return 0, queryErrorf(name, "%d is not between 1 and %d", n, max)
	}
	return n, nil
}

// spanFilterJSON is one element of the filters parameter.
type spanFilterJSON struct {
	ID       *string         `json:"id"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value"`
}

func parseSpanFilters(s string) ([]warehouse.Filter, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, queryErrorf("filters", "not a JSON array of {id, operator, value}: %v", err)
	}
	out := make([]warehouse.Filter, 0, len(raw))
	for i, r := range raw {
		name := fmt.Sprintf("filters[%d]", i)
		var fj spanFilterJSON
		if err := json.Unmarshal(r, &fj); err != nil {
			return nil, queryErrorf(name, "not an object {id, operator, value}: %v", err)
		}
		if fj.ID == nil || *fj.ID == "" {
			return nil, queryErrorf(name, "missing id")
		}
		op := warehouse.Operator(fj.Operator)
		if !slices.Contains(spanOperators, op) {
			return nil, queryErrorf(name, "operator %q is not one of %s", fj.Operator, warehouse.OperatorNames(spanOperators))
		}
		f := warehouse.Filter{Field: *fj.ID, Operator: op}
		if err := decodeFilterValue(name, fj.Value, &f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// decodeFilterValue fills f.Value / f.Values / f.ValueType from a JSON
// value according to f.Operator.
func decodeFilterValue(name string, raw json.RawMessage, f *warehouse.Filter) *warehouse.QueryError {
	raw = bytes.TrimSpace(raw)
	absent := len(raw) == 0 || string(raw) == "null"
	switch {
	case f.Operator.TakesNoValue():
		return nil
	case absent:
		if f.Operator.IsList() {
			return queryErrorf(name, "operator %s needs an array value", f.Operator)
		}
		return queryErrorf(name, "operator %s needs a value", f.Operator)
	case raw[0] == '[':
		if !f.Operator.IsList() {
			return queryErrorf(name, "operator %s takes a single value, not an array", f.Operator)
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return queryErrorf(name, "value: %v", err)
		}
		f.Values = make([]string, 0, len(elems))
		allNumbers := len(elems) > 0
		for j, e := range elems {
			s, vt, ok := scalarText(e)
			if !ok {
				return queryErrorf(name, "value[%d] is not a string, number or boolean", j)
			}
			allNumbers = allNumbers && vt == warehouse.TypeNumber
			f.Values = append(f.Values, s)
		}
		if allNumbers {
			f.ValueType = warehouse.TypeNumber
		}
		return nil
	case f.Operator.IsList():
		return queryErrorf(name, "operator %s needs an array value", f.Operator)
	}
	s, vt, ok := scalarText(raw)
	if !ok {
		return queryErrorf(name, "value is not a string, number or boolean")
	}
	if vt == warehouse.TypeNumber {
		f.ValueType = warehouse.TypeNumber
	}
	f.Value = s
	if f.Operator.IsNumeric() {
		if _, ok := warehouse.ParseFilterNumber(s); !ok {
			return queryErrorf(name, "operator %s needs a numeric value, got %q", f.Operator, s)
		}
	}
	return nil
}

// scalarText returns a JSON scalar as text and whether it was a number.
func scalarText(raw json.RawMessage) (string, warehouse.ValueType, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", "", false
		}
		return s, warehouse.TypeString, true
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return "", "", false
		}
		return strconv.FormatBool(b), warehouse.TypeBoolean, true
	case '{', '[', 'n':
		return "", "", false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", "", false
	}
	return n.String(), warehouse.TypeNumber, true
}
