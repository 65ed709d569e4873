// Package synthspans makes synthetic spans for benchmarks and the load test:
// a fixed shape (services, span names, 20 attributes per span) so that
// query selectivities are known.
package synthspans

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/evalcol/evalcol/internal/chattext"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Shape of the generated data.
const (
	Services  = 50
	SpanNames = 1000
	// Users is the number of distinct user.id values: an equality filter
	// on one of them matches 1/Users of the spans.
	Users = 100
	// Attributes is the number of span attributes per span.
	Attributes = 20
)

var models = []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "claude-3-haiku", "llama-3-70b",
	"mistral-large", "gemini-1.5-pro", "gpt-4.1", "o3-mini", "command-r"}

// Generator makes spans deterministically from a seed.
type Generator struct {
	rng *rand.Rand
	env string
	// text, when set (WithText), writes a user prompt and a completion
	// into each span, as the exporter stores them.
	text *chattext.Gen
}

// WithText makes g write a prompt (60–240 bytes) and a completion
// (120–600 bytes) of cmd/otlpload's English into each span
// (gen_ai.prompt.0.content, gen_ai.completion.0.content, the content
// derived from them as the exporter does), for the full-text search
// benchmarks. It returns g.
func (g *Generator) WithText(seed uint64) *Generator {
	g.text = chattext.New(seed)
	return g
}

// New returns a generator of spans in environment env.
func New(env string, seed uint64) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), env: env}
}

// SpanName returns the i-th span name.
func SpanName(i int) string { return fmt.Sprintf("llm.operation.%03d", i) }

// UserID returns the i-th user id.
func UserID(i int) string { return fmt.Sprintf("user-%03d", i) }

func (g *Generator) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rng.IntN(16)]
	}
	return string(b)
}

// Span returns one span starting at ts (Unix ms).
func (g *Generator) Span(ts int64) warehouse.Span {
	r := g.rng
	svc := r.IntN(Services)
	model := models[r.IntN(len(models))]
	in, out := r.Int64N(2000), r.Int64N(1000)
	workflow := "workflow-" + strconv.Itoa(svc%10)
	entity := "entity-" + strconv.Itoa(r.IntN(30))
	attrs := map[string]string{
		"llm.vendor":              "openai",
		"llm.request.model":       model,
		"llm.response.model":      model,
		"llm.usage.input_tokens":  strconv.FormatInt(in, 10),
		"llm.usage.output_tokens": strconv.FormatInt(out, 10),
		"llm.usage.total_tokens":  strconv.FormatInt(in+out, 10),
		"user.id":                 UserID(r.IntN(Users)),
		"session.id":              g.hex(16),
		"http.method":             "POST",
		"http.status_code":        "200",
		"traceloop.workflow.name": workflow,
		"traceloop.entity.name":   entity,
		"llm.request.type":        "chat",
		"llm.temperature":         "0.7",
		"llm.top_p":               "1",
		"llm.is_streaming":        "false",
		"gen_ai.system":           "openai",
		"gen_ai.operation.name":   "chat",
		"server.address":          "api.openai.com",
		"net.peer.port":           "443",
	}
	sp := warehouse.Span{
		Environment:  g.env,
		Timestamp:    ts,
		TraceID:      g.hex(32),
		SpanID:       g.hex(16),
		ParentSpanID: g.hex(16),
		SpanName:     SpanName(r.IntN(SpanNames)),
		SpanKind:     "SPAN_KIND_CLIENT",
		ServiceName:  "service-" + strconv.Itoa(svc),
		ResourceAttributes: map[string]string{
			"service.name":           "service-" + strconv.Itoa(svc),
			"deployment.environment": g.env,
			"telemetry.sdk.name":     "opentelemetry",
			"telemetry.sdk.language": "python",
			"telemetry.sdk.version":  "1.27.0",
		},
		ScopeName:      "opentelemetry.instrumentation.openai",
		ScopeVersion:   "0.33.0",
		SpanAttributes: attrs,
		Duration:       r.Int64N(30000),
		StatusCode:     "STATUS_CODE_UNSET",
		WorkflowName:   workflow,
		EntityName:     entity,
		RequestModel:   model,
		ResponseModel:  model,
		Vendor:         "openai",
		TotalTokens:    in + out,
	}
	if g.text != nil {
		attrs["gen_ai.prompt.0.role"] = "user"
		attrs["gen_ai.prompt.0.content"] = g.text.Text(60, 240)
		attrs["gen_ai.completion.0.role"] = "assistant"
		attrs["gen_ai.completion.0.content"] = g.text.Text(120, 600)
		warehouse.DeriveContent(&sp)
	}
	return sp
}

// Batch returns n spans with timestamps spread evenly over [from, to).
func (g *Generator) Batch(n int, from, to int64) []warehouse.Span {
	out := make([]warehouse.Span, n)
	for i := range out {
		out[i] = g.Span(from + (to-from)*int64(i)/int64(n))
	}
	return out
}
