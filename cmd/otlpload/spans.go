package main

import (
	"encoding/binary"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/chattext"
)

// app is one simulated LLM application: a service with its workflows.
type app struct {
	res       *resource.Resource
	workflows []string
}

var apps = []app{
	{resource.NewSchemaless(attribute.String("service.name", "support-bot"), attribute.String("deployment.environment.name", "production")),
		[]string{"ticket_triage", "answer_question"}},
	{resource.NewSchemaless(attribute.String("service.name", "writer"), attribute.String("service.version", "2.3.1")),
		[]string{"draft_article", "summarise_document"}},
	{resource.NewSchemaless(attribute.String("service.name", "sales-agent")),
		[]string{"lead_qualification"}},
	{resource.NewSchemaless(attribute.String("service.name", "code-helper"), attribute.String("host.name", "worker-7")),
		[]string{"explain_code", "review_pull_request"}},
}

var models = []struct{ vendor, model string }{
	{"openai", "gpt-4o"}, {"openai", "gpt-4o-mini"}, {"anthropic", "claude-3-5-sonnet"}, {"mistral", "mistral-large"},
}

// spanGen makes LLM spans, each with a unique trace and span id.
type spanGen struct {
	text     *chattext.Gen
	runID    uint64
	seq      uint64
	minBytes int
	maxBytes int
}

func newSpanGen(seed, runID uint64, minBytes, maxBytes int) *spanGen {
	return &spanGen{text: chattext.New(seed), runID: runID, minBytes: minBytes, maxBytes: maxBytes}
}

// batch returns n spans of one application (one OTLP resource), alternating
// between the GenAI semantic-convention keys and the legacy OpenLLMetry
// keys.
func (g *spanGen) batch(n int) []sdktrace.ReadOnlySpan {
	rng := g.text.Rand()
	a := apps[rng.IntN(len(apps))]
	now := time.Now()
	out := make([]sdktrace.ReadOnlySpan, n)
	for i := range n {
		g.seq++
		var tid trace.TraceID
		var sid trace.SpanID
		binary.BigEndian.PutUint64(tid[:8], g.runID)
		binary.BigEndian.PutUint64(tid[8:], g.seq)
		binary.BigEndian.PutUint64(sid[:], g.runID^g.seq<<1|1)
		m := models[rng.IntN(len(models))]
		wf := a.workflows[rng.IntN(len(a.workflows))]
		prompt := g.text.Text(g.minBytes, g.maxBytes)
		completion := g.text.Text(g.minBytes, g.maxBytes)
		inTok, outTok := len(prompt)/4, len(completion)/4
		attrs := []attribute.KeyValue{
			attribute.String("traceloop.workflow.name", wf),
			attribute.String("traceloop.entity.name", wf+"_step"),
			attribute.Int("llm.usage.total_tokens", inTok+outTok),
		}
		name := m.vendor + ".chat"
		if g.seq%2 == 0 {
			attrs = append(attrs,
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.system", m.vendor),
				attribute.String("gen_ai.request.model", m.model),
				attribute.String("gen_ai.response.model", m.model),
				attribute.Int("gen_ai.usage.input_tokens", inTok),
				attribute.Int("gen_ai.usage.output_tokens", outTok),
				attribute.Float64("gen_ai.request.temperature", float64(rng.IntN(10))/10),
				attribute.String("gen_ai.prompt.0.role", "user"),
				attribute.String("gen_ai.prompt.0.content", prompt),
				attribute.String("gen_ai.completion.0.role", "assistant"),
				attribute.String("gen_ai.completion.0.content", completion),
				attribute.String("gen_ai.completion.0.finish_reason", "stop"),
			)
			name = fmt.Sprintf("chat %s", m.model)
		} else {
			attrs = append(attrs,
				attribute.String("llm.request.type", "chat"),
				attribute.String("llm.vendor", m.vendor),
				attribute.String("llm.request.model", m.model),
				attribute.String("llm.prompts.0.role", "system"),
				attribute.String("llm.prompts.0.content", "You are a helpful assistant for the "+wf+" workflow."),
				attribute.String("llm.prompts.1.role", "user"),
				attribute.String("llm.prompts.1.content", prompt),
				attribute.String("llm.completions.0.role", "assistant"),
				attribute.String("llm.completions.0.content", completion),
			)
		}
		status := sdktrace.Status{Code: codes.Ok}
		if rng.IntN(50) == 0 {
			status = sdktrace.Status{Code: codes.Error, Description: "rate limited"}
		}
		dur := time.Duration(200+rng.IntN(3000)) * time.Millisecond
		out[i] = tracetest.SpanStub{
			Name:                 name,
			SpanContext:          trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
			SpanKind:             trace.SpanKindClient,
			StartTime:            now.Add(-dur),
			EndTime:              now,
			Attributes:           attrs,
			Status:               status,
			Resource:             a.res,
			InstrumentationScope: instrumentation.Scope{Name: "opentelemetry.instrumentation.openai", Version: "0.40.0"},
		}.Snapshot()
	}
	return out
}
