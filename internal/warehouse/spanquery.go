package warehouse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// SortKey is a span sort key; the zero value sorts by timestamp.
type SortKey string

// Span sort keys (the canonical sort_by names).
const (
	SortTimestamp     SortKey = "timestamp"
	SortDuration      SortKey = "duration_ms"
	SortSpanName      SortKey = "span_name"
	SortTraceID       SortKey = "trace_id"
	SortTotalTokens   SortKey = "total_tokens"
	SortWorkflowName  SortKey = "svc_workflow_name"
	SortEntityName    SortKey = "svc_entity_name"
	SortResponseModel SortKey = "llm_response_model"
)

// sortKeys maps every accepted sort_by (including aliases) to its key.
var sortKeys = map[string]SortKey{
	"timestamp":               SortTimestamp,
	"duration_ms":             SortDuration,
	"span_name":               SortSpanName,
	"trace_id":                SortTraceID,
	"total_tokens":            SortTotalTokens,
	"llm_usage_total_tokens":  SortTotalTokens,
	"svc_workflow_name":       SortWorkflowName,
	"traceloop_workflow_name": SortWorkflowName,
	"svc_entity_name":         SortEntityName,
	"traceloop_entity_name":   SortEntityName,
	"llm_response_model":      SortResponseModel,
}

const sortKeyList = "timestamp, duration_ms, span_name, trace_id, total_tokens, svc_workflow_name, " +
	"svc_entity_name, llm_usage_total_tokens, llm_response_model, traceloop_workflow_name, traceloop_entity_name"

// Column returns the span column a sort key orders by and whether it is
// numeric (an unknown key sorts by timestamp).
func (k SortKey) Column() (column string, numeric bool) {
	switch k {
	case SortDuration:
		return "duration", true
	case SortSpanName:
		return "span_name", false
	case SortTraceID:
		return "trace_id", false
	case SortTotalTokens:
		return "total_tokens", true
	case SortWorkflowName:
		return "workflow_name", false
	case SortEntityName:
		return "entity_name", false
	case SortResponseModel:
		return "response_model", false
	}
	return "timestamp", true
}

// Span query limits.
const (
	DefaultSpanLimit = 100
	MaxSpanLimit     = 1000
)

// maxTimestampSec bounds timestamps (year 9999) so that ms never overflow.
const maxTimestampSec = 253402300799

// SpanQuery selects spans. Spans match when Timestamp is within
// [FromMs, ToMs] (ToMs 0 = open) and every filter holds.
type SpanQuery struct {
	// Environments the caller may see; set by the HTTP layer from the API
	// key, never from the query string. Empty matches nothing.
	Environments []string
	FromMs, ToMs int64
	Filters      []Filter
	SortBy       SortKey
	Desc         bool
	// Limit 0 means DefaultSpanLimit.
	Limit  int
	Cursor string
}

// spanParams are the query parameters ParseSpanQuery reads itself; every
// other parameter is a span attribute equality filter.
var spanParams = map[string]bool{
	"from_timestamp_sec": true, "to_timestamp_sec": true, "workflow": true, "span_name": true,
	"sort_order": true, "sort_by": true, "cursor": true, "limit": true, "filters": true,
}

// ParseSpanQuery parses the query string of GET /v2/warehouse/spans. The
// caller sets Environments. Errors are *QueryError naming the parameter.
func ParseSpanQuery(v url.Values) (SpanQuery, error) {
	var q SpanQuery
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
		key, ok := sortKeys[strings.ToLower(s)]
		if !ok {
			return q, queryErrorf("sort_by", "%q is not one of %s", s, sortKeyList)
		}
		q.SortBy = key
	}
	if s := v.Get("limit"); s != "" {
		n, err := parseLimit("limit", s, MaxSpanLimit)
		if err != nil {
			return q, err
		}
		q.Limit = n
	}
	q.Cursor = v.Get("cursor")
	if s := v.Get("filters"); s != "" {
		fs, err := parseSpanFilters(s)
		if err != nil {
			return q, err
		}
		q.Filters = fs
	}
	if s := v.Get("workflow"); s != "" {
		q.Filters = append(q.Filters, Filter{Field: "workflow_name", Operator: OpEquals, Value: s})
	}
	if s := v.Get("span_name"); s != "" {
		q.Filters = append(q.Filters, Filter{Field: "span_name", Operator: OpEquals, Value: s})
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
			q.Filters = append(q.Filters, Filter{Field: PrefixSpanAttribute + name, Operator: OpEquals, Value: val})
		}
	}
	return q.Normalize()
}

// Normalize validates q and fills its defaults (limit, sort key). Stores
// call it, so a query built in code gets the same checks as a parsed one.
func (q SpanQuery) Normalize() (SpanQuery, error) {
	switch {
	case q.Limit == 0:
		q.Limit = DefaultSpanLimit
	case q.Limit < 1 || q.Limit > MaxSpanLimit:
		return q, queryErrorf("limit", "%d is not between 1 and %d", q.Limit, MaxSpanLimit)
	}
	if q.SortBy == "" {
		q.SortBy = SortTimestamp
	}
	key, ok := sortKeys[string(q.SortBy)]
	if !ok {
		return q, queryErrorf("sort_by", "%q is not one of %s", q.SortBy, sortKeyList)
	}
	q.SortBy = key
	if q.ToMs != 0 && q.ToMs < q.FromMs {
		return q, queryErrorf("to_timestamp_sec", "end is before from_timestamp_sec")
	}
	if err := checkFilterLimits(q.Filters); err != nil {
		return q, err
	}
	for i, f := range q.Filters {
		if err := validateFilter(fmt.Sprintf("filters[%d]", i), f, spanOperators); err != nil {
			return q, err
		}
	}
	return q, nil
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
	if n < 0 || n > maxTimestampSec {
		return 0, queryErrorf(name, "%d is out of range 0..%d", n, maxTimestampSec)
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

func parseSpanFilters(s string) ([]Filter, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, queryErrorf("filters", "not a JSON array of {id, operator, value}: %v", err)
	}
	out := make([]Filter, 0, len(raw))
	for i, r := range raw {
		name := fmt.Sprintf("filters[%d]", i)
		var fj spanFilterJSON
		if err := json.Unmarshal(r, &fj); err != nil {
			return nil, queryErrorf(name, "not an object {id, operator, value}: %v", err)
		}
		if fj.ID == nil || *fj.ID == "" {
			return nil, queryErrorf(name, "missing id")
		}
		op := Operator(fj.Operator)
		if !knownOperator(spanOperators, op) {
			return nil, queryErrorf(name, "operator %q is not one of %s", fj.Operator, operatorList(spanOperators))
		}
		f := Filter{Field: *fj.ID, Operator: op}
		if err := decodeFilterValue(name, fj.Value, &f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// decodeFilterValue fills f.Value / f.Values / f.ValueType from a JSON
// value according to f.Operator.
func decodeFilterValue(name string, raw json.RawMessage, f *Filter) *QueryError {
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
			allNumbers = allNumbers && vt == TypeNumber
			f.Values = append(f.Values, s)
		}
		if allNumbers {
			f.ValueType = TypeNumber
		}
		return nil
	case f.Operator.IsList():
		return queryErrorf(name, "operator %s needs an array value", f.Operator)
	}
	s, vt, ok := scalarText(raw)
	if !ok {
		return queryErrorf(name, "value is not a string, number or boolean")
	}
	if vt == TypeNumber {
		f.ValueType = TypeNumber
	}
	f.Value = s
	if f.Operator.IsNumeric() {
		if _, ok := ParseNumber(s); !ok {
			return queryErrorf(name, "operator %s needs a numeric value, got %q", f.Operator, s)
		}
	}
	return nil
}

// scalarText returns a JSON scalar as text and whether it was a number.
func scalarText(raw json.RawMessage) (string, ValueType, bool) {
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
		return s, TypeString, true
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return "", "", false
		}
		return strconv.FormatBool(b), TypeBoolean, true
	case '{', '[', 'n':
		return "", "", false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", "", false
	}
	return n.String(), TypeNumber, true
}

// SortNumber returns span sp's value of the numeric sort column col (see
// SortKey.Column); backends use it to build the next page's cursor.
func SortNumber(sp Span, col string) int64 {
	switch col {
	case "duration":
		return sp.Duration
	case "total_tokens":
		return sp.TotalTokens
	}
	return sp.Timestamp
}

// SortText returns span sp's value of the text sort column col.
func SortText(sp Span, col string) string {
	switch col {
	case "span_name":
		return sp.SpanName
	case "trace_id":
		return sp.TraceID
	case "workflow_name":
		return sp.WorkflowName
	case "entity_name":
		return sp.EntityName
	case "response_model":
		return sp.ResponseModel
	}
	return ""
}
