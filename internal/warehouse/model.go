package warehouse

import (
	"encoding/json"
	"strings"
)

// Span is one stored span. The JSON names follow the Span resource of the
// /v2 API; the derived LLM columns and the evaluations are stored for
// filtering and sorting but are not part of the API's span object.
//
// Maps read back from a Store are never nil (an empty map stands for none).
type Span struct {
	Environment        string            `json:"environment"`
	Timestamp          int64             `json:"timestamp"` // start time, Unix ms
	TraceID            string            `json:"trace_id"`
	SpanID             string            `json:"span_id"`
	ParentSpanID       string            `json:"parent_span_id"`
	TraceState         string            `json:"trace_state"`
	SpanName           string            `json:"span_name"`
	SpanKind           string            `json:"span_kind"` // SPAN_KIND_*
	ServiceName        string            `json:"service_name"`
	ResourceAttributes map[string]string `json:"resource_attributes"`
	ScopeName          string            `json:"scope_name"`
	ScopeVersion       string            `json:"scope_version"`
	SpanAttributes     map[string]string `json:"span_attributes"`
	Duration           int64             `json:"duration"`    // ms
	StatusCode         string            `json:"status_code"` // STATUS_CODE_*
	StatusMessage      string            `json:"status_message"`
	Prompts            map[string]string `json:"prompts"`
	Completions        map[string]string `json:"completions"`
	Input              string            `json:"input"`
	Output             string            `json:"output"`

	// Derived columns, filled by the exporter from internal/genai.
	WorkflowName  string `json:"-"`
	EntityName    string `json:"-"`
	AgentName     string `json:"-"`
	RequestModel  string `json:"-"`
	ResponseModel string `json:"-"`
	Vendor        string `json:"-"`
	TotalTokens   int64  `json:"-"`

	// Evaluations are the evaluator results recorded on the span.
	Evaluations []Evaluation `json:"-"`
}

// Evaluation is one evaluator result recorded on a span. Output holds the
// evaluator's raw result fields; after a round trip through a Store its
// numbers are float64 (JSON semantics).
type Evaluation struct {
	Name       string         `json:"name"`
	ScoreValue float64        `json:"score_value"`
	ScoreLabel string         `json:"score_label,omitempty"`
	Output     map[string]any `json:"output,omitempty"`
	MonitorID  string         `json:"monitor_id,omitempty"`
	Error      string         `json:"error,omitempty"`
}

// SpanPage is one page of a span query.
type SpanPage struct {
	Spans []Span
	// TotalResults counts every span matching the query as of the first
	// page (it stays the same on every page of one pagination).
	TotalResults int64
	// NextCursor is "" on the last page.
	NextCursor string
}

// Metric sources.
const (
	SourceEvaluator = "evaluator"
	SourceOTLP      = "otlp"
)

// MetricPoint is one metric data point: an evaluator output field or an
// ingested OTLP data point. Exactly one of BoolValue, NumericValue and
// EnumValue is normally set. Maps read back from a Store are never nil.
// The JSON names are those of the API's point object; the other fields
// are for storage and filtering (the exporter copies trace and span ids
// into Labels too).
type MetricPoint struct {
	Environment    string            `json:"-"`
	OrganizationID string            `json:"-"`
	MetricName     string            `json:"-"`
	Source         string            `json:"-"`          // SourceEvaluator or SourceOTLP
	EventTime      int64             `json:"event_time"` // Unix ms
	BoolValue      *bool             `json:"bool_value,omitempty"`
	NumericValue   *float64          `json:"numeric_value,omitempty"`
	EnumValue      *string           `json:"enum_value,omitempty"`
	TraceID        string            `json:"-"`
	SpanID         string            `json:"-"`
	Labels         map[string]string `json:"labels"`
	Attributes     map[string]string `json:"-"`
}

// MetricGroup holds the points of one metric name within a page.
type MetricGroup struct {
	MetricName     string
	OrganizationID string
	Points         []MetricPoint
}

// MetricPage is one page of a metric query: one group per metric name
// present in the page, in the order of each name's first point.
type MetricPage struct {
	Groups []MetricGroup
	// NextCursor is the integer cursor of the next page in decimal, "" on
	// the last page.
	NextCursor string
	// TotalPoints counts the points in this page.
	TotalPoints int64
	// TotalResults counts every point matching the query as of the first
	// page.
	TotalResults int64
}

// EncodeEvaluations renders evaluations as a JSON array for storage. An
// evaluation that JSON cannot carry (a NaN or infinite score, an odd output
// value) is kept with its score zeroed, its output dropped and the reason
// in Error, so one bad result never loses the span.
func EncodeEvaluations(evals []Evaluation) string {
	if len(evals) == 0 {
		return "[]"
	}
	if b, err := json.Marshal(evals); err == nil {
		return string(b)
	}
	safe := make([]Evaluation, len(evals))
	for i, ev := range evals {
		if _, err := json.Marshal(ev); err != nil {
			ev.ScoreValue, ev.Output = 0, nil
			ev.Error = strings.TrimSpace(ev.Error + " (not storable: " + err.Error() + ")")
		}
		safe[i] = ev
	}
	b, _ := json.Marshal(safe) // every element encodes now
	return string(b)
}

// FillMetricPage groups pts (one page, in query order) by metric name into
// page and sets TotalPoints and, when more points follow, NextCursor: the
// snapshot and the next offset packed by EncodeMetricCursor. Backends call
// it after reading a page of limit points starting at offset.
func FillMetricPage(page *MetricPage, pts []MetricPoint, more bool, snapshot, offset int64, limit int) error {
	page.TotalPoints = int64(len(pts))
	index := map[string]int{}
	for _, p := range pts {
		i, ok := index[p.MetricName]
		if !ok {
			i = len(page.Groups)
			index[p.MetricName] = i
			page.Groups = append(page.Groups, MetricGroup{MetricName: p.MetricName, OrganizationID: p.OrganizationID})
		}
		page.Groups[i].Points = append(page.Groups[i].Points, p)
	}
	if more {
		next, err := EncodeMetricCursor(snapshot, offset+int64(limit))
		if err != nil {
			return &QueryError{Field: "cursor", Msg: "paging deeper than the cursor can reach; narrow the query: " + err.Error()}
		}
		page.NextCursor = FormatMetricCursor(next)
	}
	return nil
}
