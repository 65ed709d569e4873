// Package spanconv turns pdata into warehouse rows: spans with their
// normalised LLM content and evaluation results, metric points from
// evaluation events, and metric points from OTLP metrics.
package spanconv

import (
	"encoding/json"
	"github.com/evalcol/evalcol/internal/tenant"
	"math"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/genai"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// OrganizationFunc maps an environment to its organization id.
type OrganizationFunc func(environment string) string

// Options of a conversion.
type Options struct {
	// Environment, when set, is the environment of everything converted
	// (the environment of the API key that authenticated the request: the
	// key decides, whatever the resource says).
	Environment string
	// DefaultEnvironment is used when Environment is empty and the
	// resource names none.
	DefaultEnvironment string
	// Organization maps an environment to its organization id; nil means "".
	Organization OrganizationFunc
	// Redact drops or hashes the prompt and completion text of spans
	// (RedactDrop, RedactHash); RedactNone (empty) keeps it.
	Redact string
}

// environment returns the environment of a resource's data.
func (o Options) environment(res pcommon.Map) string {
	if o.Environment != "" {
		return o.Environment
	}
	return Environment(res, o.DefaultEnvironment)
}

func (o Options) organization(env string) string {
	if o.Organization == nil {
		return ""
	}
	return o.Organization(env)
}

// MaxSpanTime returns the latest span start or end time stored: the largest
// time a signed 64-bit count of nanoseconds holds (2262-04-11T23:47:16Z),
// the range of pdata's Timestamp.AsTime, Go's time.Unix and the OTel SDKs.
// A later OTLP time (they are unsigned) is a broken clock or encoding; it
// used to wrap when converted, and the span was stored near 1715.
func MaxSpanTime() time.Time { return time.Unix(0, math.MaxInt64).UTC() }

// ValidSpanTime reports whether ts is no later than MaxSpanTime.
func ValidSpanTime(ts pcommon.Timestamp) bool { return uint64(ts) <= math.MaxInt64 }

// Dropped is a span that cannot be stored, and why.
type Dropped struct {
	TraceID, SpanID, Reason string
}

// TraceBatch is the warehouse form of one ptrace.Traces.
type TraceBatch struct {
	Spans   []warehouse.Span
	Points  []warehouse.MetricPoint
	Dropped []Dropped
}

// Resource attribute and metric label names.
const (
	attrEnvironment     = tenant.EnvironmentAttribute
	attrServiceName     = "service.name"
	metricSourceLabel   = "metric_source"
	evaluatorNameLabel  = LabelEvaluator
	defaultServiceLabel = "service_name"
	verdictLabel        = LabelVerdict
)

// Labels of evaluation metric points that readers group by (the console's
// scores page).
const (
	// LabelEvaluator is the evaluator's slug.
	LabelEvaluator = "evaluator_name"
	// LabelVerdict is the result's verdict: pass or fail (absent for an
	// evaluator outside the catalogue).
	LabelVerdict = "verdict"
	// LabelWorkflow is the span's workflow name.
	LabelWorkflow = "workflow"
)

// Environment returns the environment of a resource (tenant.EnvironmentOf),
// else def.
func Environment(res pcommon.Map, def string) string {
	if env := tenant.EnvironmentOf(res); env != "" {
		return env
	}
	return def
}

// Traces converts td.
func Traces(td ptrace.Traces, opts Options) TraceBatch {
	var b TraceBatch
	b.Spans = make([]warehouse.Span, 0, td.SpanCount())
	// Evaluation events give a point each, mostly: size the points once
	// (the slice would otherwise be copied as it grows, per span and per
	// batch, a tenth of the exporter's allocations).
	if n := evaluationCount(td); n > 0 {
		b.Points = make([]warehouse.MetricPoint, 0, n)
	}
	var vals pointValues
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		res := rs.Resource().Attributes()
		env := opts.environment(res)
		service := ""
		if v, ok := res.Get(attrServiceName); ok {
			service = v.AsString()
		}
		resAttrs := stringMap(res)
		org := opts.organization(env)
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				sp := spans.At(k)
				if sp.TraceID().IsEmpty() || sp.SpanID().IsEmpty() {
					b.Dropped = append(b.Dropped, Dropped{TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), Reason: "empty trace or span id"})
					continue
				}
				if !ValidSpanTime(sp.StartTimestamp()) || !ValidSpanTime(sp.EndTimestamp()) {
					// The tenant processor rejects these and tells the
					// sender; without it, they are still never stored at a
					// wrapped time.
					b.Dropped = append(b.Dropped, Dropped{TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), Reason: "start or end time after " + MaxSpanTime().Format(time.RFC3339)})
					continue
				}
				s := span(sp, env, service, resAttrs, ss.Scope())
				if opts.Redact != RedactNone {
					redact(&s, opts.Redact)
					// Hashed JSON messages no longer yield the (hashed)
					// prompts: the store keeps the redacted values as given.
					s.DerivedContent = false
				}
				b.Spans = append(b.Spans, s)
				b.Points = evaluationPoints(b.Points, &vals, &s, sp, org)
			}
		}
	}
	return b
}

func span(sp ptrace.Span, env, service string, resAttrs map[string]string, scope pcommon.InstrumentationScope) warehouse.Span {
	content := genai.Extract(sp.Attributes())
	start, end := sp.StartTimestamp(), sp.EndTimestamp()
	var durMs int64
	if end > start {
		durMs = int64(end-start) / 1e6
	}
	s := warehouse.Span{
		Environment:        env,
		Timestamp:          int64(start) / 1e6,
		TraceID:            sp.TraceID().String(),
		SpanID:             sp.SpanID().String(),
		ParentSpanID:       parentID(sp),
		TraceState:         sp.TraceState().AsRaw(),
		SpanName:           sp.Name(),
		SpanKind:           spanKind(sp.Kind()),
		ServiceName:        service,
		ResourceAttributes: resAttrs,
		ScopeName:          scope.Name(),
		ScopeVersion:       scope.Version(),
		SpanAttributes:     stringMap(sp.Attributes()),
		Duration:           durMs,
		StatusCode:         statusCode(sp.Status().Code()),
		StatusMessage:      sp.Status().Message(),
		Prompts:            content.PromptMap(),
		Completions:        content.CompletionMap(),
		Input:              content.Input,
		Output:             content.Output,
		WorkflowName:       content.Workflow,
		EntityName:         content.Entity,
		AgentName:          content.Agent,
		RequestModel:       content.RequestModel,
		ResponseModel:      content.ResponseModel,
		Vendor:             content.Vendor,
		TotalTokens:        content.TotalTokens,
		// Prompts, completions, input and output come from the attributes
		// as stored (SpanAttributes, every value as its text) just as
		// warehouse.DeriveContent reads them back.
		DerivedContent: true,
	}
	s.Evaluations = evaluations(sp.Events())
	s.SpanAttributes = keepException(s.SpanAttributes, sp.Events())
	return s
}

// Exception attributes (OpenTelemetry's exception event).
const (
	AttrExceptionType       = "exception.type"
	AttrExceptionMessage    = "exception.message"
	AttrExceptionStacktrace = "exception.stacktrace"
	// maxStacktraceBytes bounds the stack trace kept.
	maxStacktraceBytes = 16 << 10
)

// keepException keeps the span's last exception event (the error an
// instrumentation recorded: its type, message and stack trace) as span
// attributes of the same names, which the warehouse stores, filters and
// searches like the others; attributes the span already has win. The
// stack trace is cut to 16 KiB. It returns attrs (made when it was nil).
func keepException(attrs map[string]string, events ptrace.SpanEventSlice) map[string]string {
	for i := events.Len() - 1; i >= 0; i-- {
		ev := events.At(i)
		if ev.Name() != "exception" {
			continue
		}
		for _, k := range []string{AttrExceptionType, AttrExceptionMessage, AttrExceptionStacktrace} {
			v, ok := ev.Attributes().Get(k)
			if !ok || v.AsString() == "" {
				continue
			}
			if _, has := attrs[k]; has {
				continue
			}
			if attrs == nil {
				attrs = map[string]string{}
			}
			text := v.AsString()
			if k == AttrExceptionStacktrace && len(text) > maxStacktraceBytes {
				text = strings.ToValidUTF8(text[:maxStacktraceBytes], "") + "\n…"
			}
			attrs[k] = text
		}
		return attrs
	}
	return attrs
}

func parentID(sp ptrace.Span) string {
	if sp.ParentSpanID().IsEmpty() {
		return ""
	}
	return sp.ParentSpanID().String()
}

func spanKind(k ptrace.SpanKind) string {
	switch k {
	case ptrace.SpanKindInternal:
		return "SPAN_KIND_INTERNAL"
	case ptrace.SpanKindServer:
		return "SPAN_KIND_SERVER"
	case ptrace.SpanKindClient:
		return "SPAN_KIND_CLIENT"
	case ptrace.SpanKindProducer:
		return "SPAN_KIND_PRODUCER"
	case ptrace.SpanKindConsumer:
		return "SPAN_KIND_CONSUMER"
	default:
		return "SPAN_KIND_UNSPECIFIED"
	}
}

func statusCode(c ptrace.StatusCode) string {
	switch c {
	case ptrace.StatusCodeOk:
		return "STATUS_CODE_OK"
	case ptrace.StatusCodeError:
		return "STATUS_CODE_ERROR"
	default:
		return "STATUS_CODE_UNSET"
	}
}

// stringMap renders attributes with string values; other values become
// their JSON text (pcommon.Value.AsString).
func stringMap(m pcommon.Map) map[string]string {
	out := make(map[string]string, m.Len())
	m.Range(func(k string, v pcommon.Value) bool {
		out[k] = v.AsString()
		return true
	})
	return out
}

// evaluations reads the evaluation result events of a span.
func evaluations(events ptrace.SpanEventSlice) []warehouse.Evaluation {
	var out []warehouse.Evaluation
	for i := 0; i < events.Len(); i++ {
		ev := events.At(i)
		if ev.Name() != genai.EvaluationEvent {
			continue
		}
		if out == nil {
			out = make([]warehouse.Evaluation, 0, events.Len()-i)
		}
		a := ev.Attributes()
		e := warehouse.Evaluation{Name: str(a, genai.AttrEvaluationName), ScoreLabel: str(a, genai.AttrEvaluationScoreLabel), MonitorID: str(a, genai.AttrMonitorID)}
		if v, ok := a.Get(genai.AttrEvaluationScoreValue); ok {
			e.ScoreValue = v.Double()
		}
		if t := str(a, genai.AttrErrorType); t != "" {
			e.Error = t
			if msg := str(a, genai.AttrEvaluationErrorMessage); msg != "" {
				e.Error = t + ": " + msg
			}
		}
		if v, ok := a.Get(genai.AttrTruncated); ok && v.Type() == pcommon.ValueTypeBool {
			e.Truncated = v.Bool()
		}
		e.Explanation = explanation(a)
		a.Range(func(k string, v pcommon.Value) bool {
			if field, ok := strings.CutPrefix(k, genai.AttrEvaluationOutputPrefix); ok {
				if e.Output == nil {
					e.Output = map[string]any{}
				}
				e.Output[field] = v.AsRaw()
			}
			return true
		})
		// The verdict the evaluator processor decided; an event another
		// tool wrote gets the evaluator's pass condition.
		if e.Verdict = str(a, genai.AttrEvaluationVerdict); !warehouse.IsVerdict(e.Verdict) {
			e.Verdict = string(evaluators.VerdictOf(e.Name, e.Output, e.Error))
		}
		e.Time = int64(ev.Timestamp()) / 1e6
		out = append(out, e)
	}
	return out
}

// explanation reads an evaluation event's explanation: the JSON the
// evaluator processor records, else (an event another tool wrote) the
// free-form gen_ai.evaluation.explanation as its summary; nil for none.
func explanation(a pcommon.Map) *evaluators.Explanation {
	if v, ok := a.Get(genai.AttrEvaluationExplanationJSON); ok {
		var e evaluators.Explanation
		if err := json.Unmarshal([]byte(v.AsString()), &e); err == nil {
			return &e
		}
	}
	if s := str(a, genai.AttrEvaluationExplanation); s != "" {
		return &evaluators.Explanation{Summary: s}
	}
	return nil
}

func str(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// evaluationCount is the number of evaluation result events in td.
func evaluationCount(td ptrace.Traces) int {
	n := 0
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				events := spans.At(k).Events()
				for e := 0; e < events.Len(); e++ {
					if events.At(e).Name() == genai.EvaluationEvent {
						n++
					}
				}
			}
		}
	}
	return n
}

// pointValues hands out the values the points' BoolValue, NumericValue
// and EnumValue point to, from chunks instead of one allocation each.
type pointValues struct {
	bools chunks[bool]
	nums  chunks[float64]
	strs  chunks[string]
}

// chunks stores values in slices allocated pointValuesChunk at a time. A
// value never changes once stored: a full chunk is left to the pointers
// into it.
type chunks[T any] struct{ cur []T }

const pointValuesChunk = 64

// put stores v and returns its address.
func (c *chunks[T]) put(v T) *T {
	if len(c.cur) == cap(c.cur) {
		c.cur = make([]T, 0, pointValuesChunk)
	}
	c.cur = append(c.cur, v)
	return &c.cur[len(c.cur)-1]
}

// evaluationPoints appends to pts the successful evaluations of s as
// metric points: one per output field, named <slug>.<field>. Booleans set
// bool_value, numbers numeric_value, enumerated strings enum_value; free
// text (e.g. the uncertainty detector's answer) becomes a label of the
// other points.
func evaluationPoints(pts []warehouse.MetricPoint, vals *pointValues, s *warehouse.Span, sp ptrace.Span, org string) []warehouse.MetricPoint {
	if len(s.Evaluations) == 0 {
		return pts
	}
	attrs := filterContent(s.SpanAttributes)
	eventTime := int64(sp.EndTimestamp()) / 1e6
	for _, ev := range s.Evaluations {
		if ev.Error != "" || ev.Output == nil {
			continue
		}
		def, ok := evaluators.Lookup(ev.Name)
		if !ok {
			continue
		}
		labels := map[string]string{
			evaluatorNameLabel: ev.Name, metricSourceLabel: warehouse.SourceEvaluator, "monitor_id": ev.MonitorID,
			"trace_id": s.TraceID, "span_id": s.SpanID, defaultServiceLabel: s.ServiceName, "environment": s.Environment,
			LabelWorkflow: s.WorkflowName, "agent_name": s.AgentName, "entity_name": s.EntityName,
			"model": firstNonEmpty(s.ResponseModel, s.RequestModel), "vendor": s.Vendor,
		}
		if ev.Verdict != "" {
			labels[verdictLabel] = ev.Verdict
		}
		for _, f := range def.Outputs {
			if v, ok := ev.Output[f.Name].(string); ok && f.Type == evaluators.TypeString && len(f.EnumValues) == 0 {
				labels[f.Name] = v
			}
		}
		for _, f := range def.Outputs {
			p := warehouse.MetricPoint{
				Environment: s.Environment, OrganizationID: org, MetricName: ev.Name + "." + f.Name,
				Source: warehouse.SourceEvaluator, EventTime: eventTime, TraceID: s.TraceID, SpanID: s.SpanID,
				Labels: labels, Attributes: attrs,
			}
			switch v := ev.Output[f.Name].(type) {
			case bool:
				p.BoolValue = vals.bools.put(v)
			case float64:
				p.NumericValue = vals.nums.put(v)
			case int64:
				p.NumericValue = vals.nums.put(float64(v))
			case string:
				if len(f.EnumValues) == 0 {
					continue
				}
				p.EnumValue = vals.strs.put(v)
			default:
				continue
			}
			pts = append(pts, p)
		}
	}
	return pts
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// contentKeys are the attribute keys (or key prefixes, ending in '.') that
// carry prompt and completion text; metric points do not copy them.
var contentKeys = []string{
	"llm.prompts.", "llm.completions.", "gen_ai.prompt.", "gen_ai.completion.", "gen_ai.input.messages",
	"gen_ai.output.messages", "gen_ai.system_instructions", "llm.input_messages.", "llm.output_messages.",
	"input.value", "output.value", "traceloop.entity.input", "traceloop.entity.output",
}

// filterContent returns attrs without the LLM content keys.
func filterContent(attrs map[string]string) map[string]string {
	out := make(map[string]string, len(attrs))
	for k, v := range attrs {
		if !isContentKey(k) {
			out[k] = v
		}
	}
	return out
}

func isContentKey(k string) bool {
	for _, c := range contentKeys {
		if strings.HasPrefix(k, c) {
			return true
		}
	}
	return false
}
