package warehouse

import (
	"encoding/json"
	"strings"

	"github.com/evalcol/evalcol/evaluators"
)

// Span is one stored span: the span's own fields, the derived LLM columns
// (for filtering and sorting) and the evaluations recorded on it. The /v2
// API's JSON form of it belongs to the HTTP layer.
//
// Maps read back from a Store are never nil (an empty map stands for none).
type Span struct {
	Environment        string
	Timestamp          int64 // start time, Unix ms
	TraceID            string
	SpanID             string
	ParentSpanID       string
	TraceState         string
	SpanName           string
	SpanKind           string // SPAN_KIND_*
	ServiceName        string
	ResourceAttributes map[string]string
	ScopeName          string
	ScopeVersion       string
	SpanAttributes     map[string]string
	Duration           int64  // ms
	StatusCode         string // STATUS_CODE_*
	StatusMessage      string
	Prompts            map[string]string
	Completions        map[string]string
	Input              string
	Output             string

	// Derived columns, filled by the exporter from internal/genai.
	WorkflowName  string
	EntityName    string
	AgentName     string
	RequestModel  string
	ResponseModel string
	Vendor        string
	TotalTokens   int64

	// Evaluations are the evaluator results recorded on the span.
	Evaluations []Evaluation

	// DerivedContent reports that Prompts, Completions, Input and Output
	// are what DeriveContent reads from SpanAttributes (the exporter
	// derives them so). A store may then keep only the attributes, each
	// text once, and derive the four again at read; without it, a store
	// returns the four as they were written.
	DerivedContent bool

	// Prepared is a store's own encoding of the span, made by its
	// PrepareSpans (see Preparer); a store ignores a value it did not
	// make. A span must not change after it was prepared.
	Prepared any
}

// Evaluation is one evaluator result recorded on a span. Output holds the
// evaluator's raw result fields; after a round trip through a Store its
// numbers are float64 (JSON semantics). The JSON names are the storage
// format of EncodeEvaluations.
type Evaluation struct {
	Name       string         `json:"name"`
	ScoreValue float64        `json:"score_value"`
	ScoreLabel string         `json:"score_label,omitempty"`
	Output     map[string]any `json:"output,omitempty"`
	MonitorID  string         `json:"monitor_id,omitempty"`
	Error      string         `json:"error,omitempty"`
	// Time is when the result was recorded (Unix ms; 0 when unknown).
	Time int64 `json:"time,omitempty"`
	// Verdict is pass, fail or error as the evaluators package decided it
	// when the result was recorded (evaluators.VerdictOf), "" for none
	// (an evaluator outside the catalogue, or a result stored before
	// verdicts were).
	Verdict string `json:"verdict,omitempty"`
	// Truncated is true when an input was cut to the evaluator's size
	// limit before it ran: the verdict is about the first part only.
	Truncated bool `json:"truncated,omitempty"`
	// Explanation says why the evaluator answered as it did (nil: it
	// gave none, e.g. a detector that found nothing).
	Explanation *evaluators.Explanation `json:"explanation,omitempty"`
}

// SpanPage is one page of a span query.
type SpanPage struct {
	Spans []Span
	// TotalResults counts every span matching the query as of the first
	// page (it stays the same on every page of one pagination).
	TotalResults int64
	// NextCursor is "" on the last page.
	NextCursor string
	// CutByBytes reports that the page holds fewer spans than the query's
	// limit because they reached the page's size bound (DefaultPageBytes);
	// NextCursor continues after the last of them.
	CutByBytes bool
}

// Metric sources.
const (
	SourceEvaluator = "evaluator"
	SourceOTLP      = "otlp"
	// SourceAnnotation marks the points of human annotations (one per
	// tag value).
	SourceAnnotation = "annotation"
	// SourceExperiment marks the points of experiment runs' evaluations.
	SourceExperiment = "experiment"
)

// MetricPoint is one metric data point: an evaluator output field or an
// ingested OTLP data point. Exactly one of BoolValue, NumericValue and
// EnumValue is normally set. Maps read back from a Store are never nil.
// The exporter copies trace and span ids into Labels too.
type MetricPoint struct {
	Environment    string
	OrganizationID string
	MetricName     string
	Source         string // SourceEvaluator, SourceOTLP or SourceAnnotation
	EventTime      int64  // Unix ms
	BoolValue      *bool
	NumericValue   *float64
	EnumValue      *string
	TraceID        string
	SpanID         string
	Labels         map[string]string
	Attributes     map[string]string

	// Prepared is a store's own encoding of the point, made by its
	// PreparePoints (see Preparer); a store ignores a value it did not
	// make. A point must not change after it was prepared.
	Prepared any
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
	// CutByBytes reports that the page holds fewer points than the
	// query's limit because they reached the page's size bound
	// (DefaultPageBytes); NextCursor continues after the last of them.
	CutByBytes bool
}

// EncodeEvaluations renders evaluations as a JSON array for storage. An
// evaluation that JSON cannot carry (a NaN or infinite score, an odd output
// value) is kept with its score zeroed, its output dropped and the reason
// in Error, so one bad result never loses the span.
func EncodeEvaluations(evals []Evaluation) string {
	if len(evals) == 0 {
		return "[]"
	}
	if b, ok := appendEvaluationsJSON(make([]byte, 0, 192*len(evals)), evals); ok {
		return string(b)
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
