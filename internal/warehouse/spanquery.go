package warehouse

import "fmt"

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

// SortKeyNames lists the accepted sort_by names, for messages.
const SortKeyNames = "timestamp, duration_ms, span_name, trace_id, total_tokens, svc_workflow_name, " +
	"svc_entity_name, llm_usage_total_tokens, llm_response_model, traceloop_workflow_name, traceloop_entity_name"

// SortKeyByName returns the sort key of a sort_by name or alias (exact,
// lower-case names; see SortKeyNames).
func SortKeyByName(name string) (SortKey, bool) {
	k, ok := sortKeys[name]
	return k, ok
}

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

// SortOrder returns the column q sorts by, the direction ("ASC" or
// "DESC") and the comparison (">" or "<") that continues after a position
// in that order; ties of the column sort by sequence number the same way.
func (q SpanQuery) SortOrder() (column, dir, cmp string) {
	column, _ = q.SortBy.Column()
	if q.Desc {
		return column, "DESC", "<"
	}
	return column, "ASC", ">"
}

// Span query limits.
const (
	DefaultSpanLimit = 100
	MaxSpanLimit     = 1000
)

// MaxTimestampSec bounds query timestamps (year 9999) so that ms never
// overflow.
const MaxTimestampSec = 253402300799

// SpanQuery selects spans. Spans match when Timestamp is within
// [FromMs, ToMs] (ToMs 0 = open) and every filter holds.
type SpanQuery struct {
	// Environments the caller may see; set by the HTTP layer from the API
	// key, never from the query string. Empty matches nothing.
	Environments []string
	FromMs, ToMs int64
	Filters      []Filter
	// Text is a full-text search in the spans' prompts and completions
	// ("" = none; see SearchTerms): the `q` parameter.
	Text   string
	SortBy SortKey
	Desc   bool
	// Limit 0 means DefaultSpanLimit.
	Limit  int
	Cursor string
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
		return q, queryErrorf("sort_by", "%q is not one of %s", q.SortBy, SortKeyNames)
	}
	q.SortBy = key
	if q.ToMs != 0 && q.ToMs < q.FromMs {
		return q, queryErrorf("to_timestamp_sec", "end is before from_timestamp_sec")
	}
	if err := checkFilterLimits(q.Filters); err != nil {
		return q, err
	}
	if q.Text != "" {
		if _, err := SearchTerms(q.Text); err != nil {
			return q, err
		}
	}
	for i, f := range q.Filters {
		name := fmt.Sprintf("filters[%d]", i)
		if err := validateFilter(name, f, queryOperators); err != nil {
			return q, err
		}
		if ResolveSpanField(f.Field).Kind == KindVerdict {
			if err := validateVerdictFilter(name, f); err != nil {
				return q, err
			}
		}
	}
	return q, nil
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

// SearchTerms returns the terms of q's full-text search (nil: none). The
// query must be normalised (its text valid).
func (q SpanQuery) SearchTerms() []string {
	if q.Text == "" {
		return nil
	}
	terms, _ := SearchTerms(q.Text)
	return terms
}
