package ingestbench

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/evalcol/evalcol/internal/chattext"
	"github.com/evalcol/evalcol/internal/engine"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

const spansPerRequest = 100

// requests returns n OTLP requests of 100 spans shaped like cmd/otlpload's
// (1 KB prompt and completion from chattext, GenAI semantic-convention
// and legacy OpenLLMetry keys alternating), as protobuf.
func requests(b *testing.B, n int) [][]byte {
	g := chattext.New(1)
	services := []string{"support-bot", "writer", "sales-agent", "code-helper"}
	models := [][2]string{{"openai", "gpt-4o"}, {"openai", "gpt-4o-mini"}, {"anthropic", "claude-3-5-sonnet"}, {"mistral", "mistral-large"}}
	now := time.Now()
	out := make([][]byte, n)
	seq := 0
	for r := range out {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", services[r%len(services)])
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("opentelemetry.instrumentation.openai")
		ss.Scope().SetVersion("0.40.0")
		for range spansPerRequest {
			seq++
			s := ss.Spans().AppendEmpty()
			s.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, byte(seq >> 24), byte(seq >> 16), byte(seq >> 8), byte(seq)})
			s.SetSpanID(pcommon.SpanID{9, 9, 9, 9, byte(seq >> 24), byte(seq >> 16), byte(seq >> 8), byte(seq)})
			s.SetKind(ptrace.SpanKindClient)
			s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(-time.Second)))
			s.SetEndTimestamp(pcommon.NewTimestampFromTime(now))
			s.Status().SetCode(ptrace.StatusCodeOk)
			m := models[seq%len(models)]
			wf := fmt.Sprintf("workflow_%d", seq%7)
			prompt, completion := g.Text(1024, 1024), g.Text(1024, 1024)
			a := s.Attributes()
			a.PutStr("traceloop.workflow.name", wf)
			a.PutStr("traceloop.entity.name", wf+"_step")
			a.PutInt("llm.usage.total_tokens", int64(len(prompt)+len(completion))/4)
			if seq%2 == 0 {
				s.SetName("chat " + m[1])
				a.PutStr("gen_ai.operation.name", "chat")
				a.PutStr("gen_ai.system", m[0])
				a.PutStr("gen_ai.request.model", m[1])
				a.PutStr("gen_ai.response.model", m[1])
				a.PutInt("gen_ai.usage.input_tokens", int64(len(prompt)/4))
				a.PutInt("gen_ai.usage.output_tokens", int64(len(completion)/4))
				a.PutDouble("gen_ai.request.temperature", 0.7)
				a.PutStr("gen_ai.prompt.0.role", "user")
				a.PutStr("gen_ai.prompt.0.content", prompt)
				a.PutStr("gen_ai.completion.0.role", "assistant")
				a.PutStr("gen_ai.completion.0.content", completion)
				a.PutStr("gen_ai.completion.0.finish_reason", "stop")
			} else {
				s.SetName(m[0] + ".chat")
				a.PutStr("llm.request.type", "chat")
				a.PutStr("llm.vendor", m[0])
				a.PutStr("llm.request.model", m[1])
				a.PutStr("llm.prompts.0.role", "system")
				a.PutStr("llm.prompts.0.content", "You are a helpful assistant for the "+wf+" workflow.")
				a.PutStr("llm.prompts.1.role", "user")
				a.PutStr("llm.prompts.1.content", prompt)
				a.PutStr("llm.completions.0.role", "assistant")
				a.PutStr("llm.completions.0.content", completion)
			}
		}
		buf, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
		if err != nil {
			b.Fatal(err)
		}
		out[r] = buf
	}
	return out
}

// path is the per-request work of the load test's full pipeline up to the
// warehouse writer.
type path struct {
	proc  *engine.Processor
	store *sqlite.Store
	ctx   context.Context
}

func newPath(b *testing.B) *path {
	c, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		b.Fatal(err)
	}
	var evs []monitor.EvaluatorSpec
	for _, s := range []string{"toxicity-detector", "pii-detector", "secrets-detector", "prompt-injection", "char-count"} {
		evs = append(evs, monitor.EvaluatorSpec{Slug: s})
	}
	m, err := c.Compile(monitor.Spec{ID: "load", Name: "load", SampleRate: 1, Evaluators: evs})
	if err != nil {
		b.Fatal(err)
	}
	proc, err := engine.New(engine.Settings{Static: []*monitor.Monitor{m}, Timeout: 2 * time.Second, MaxTextBytes: 65536,
		GroundTruthAttribute: engine.DefaultGroundTruth})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = proc.Close() })
	store, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = store.Close() })
	ctx := tenant.NewContext(context.Background(), tenant.Tenant{Environment: "production"})
	return &path{proc: proc, store: store, ctx: ctx}
}

func (p *path) decode(b *testing.B, buf []byte) ptrace.Traces {
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(buf); err != nil {
		b.Fatal(err)
	}
	return req.Traces()
}

func (p *path) evaluate(b *testing.B, td ptrace.Traces) {
	tenant.StampTraces(p.ctx, td)
	if _, err := p.proc.ProcessTraces(p.ctx, td); err != nil {
		b.Fatal(err)
	}
}

// evaluated returns n load-test requests decoded and evaluated.
func (p *path) evaluated(b *testing.B, n int) []ptrace.Traces {
	tds := make([]ptrace.Traces, n)
	for i, buf := range requests(b, n) {
		tds[i] = p.decode(b, buf)
		p.evaluate(b, tds[i])
	}
	return tds
}

// convert is the exporter's conversion of td.
func (p *path) convert(td ptrace.Traces) spanconv.TraceBatch {
	return spanconv.Traces(td, spanconv.Options{Environment: "production", DefaultEnvironment: "default"})
}

func (p *path) export(td ptrace.Traces) int {
	batch := p.convert(td)
	p.store.PrepareSpans(batch.Spans)
	p.store.PreparePoints(batch.Points)
	return len(batch.Spans) + len(batch.Points)
}

// BenchmarkRequest is one load-test request (100 spans, five evaluators
// on each) through the collector's path up to the warehouse writer:
//
//   - full: OTLP decoding, tenant stamp, evaluator processor, conversion
//     and encoding of the rows;
//   - decode: the OTLP decoding alone;
//   - export: the conversion and encoding of evaluated requests (the
//     exporter's work before its commit);
//   - store: the storage-only pipeline (no evaluator): decoding, tenant
//     stamp, conversion, encoding and the warehouse's commit of the spans
//     (each request under new trace and span ids, each span its own trace as
//     in the load test, 50 ms after the one before);
//   - write: export and the warehouse's commit of the spans and of the
//     evaluations' metric points (each request under new span ids, so
//     nothing is a duplicate, and 50 ms later than the one before, as
//     live traffic is: the dedup keys are ordered by time).
//
// It reports the process CPU time (all goroutines, GC included) per span,
// the steadier figure on a shared machine.
func BenchmarkRequest(b *testing.B) {
	b.Run("full", func(b *testing.B) {
		p := newPath(b)
		reqs := requests(b, 20)
		run := func(i int) {
			td := p.decode(b, reqs[i%len(reqs)])
			p.evaluate(b, td)
			p.export(td)
		}
		run(0) // loads the models
		loop(b, run)
	})
	b.Run("decode", func(b *testing.B) {
		p := newPath(b)
		reqs := requests(b, 20)
		loop(b, func(i int) { p.decode(b, reqs[i%len(reqs)]) })
	})
	b.Run("export", func(b *testing.B) {
		p := newPath(b)
		tds := p.evaluated(b, 20)
		loop(b, func(i int) { p.export(tds[i%len(tds)]) })
	})
	b.Run("store", func(b *testing.B) {
		p := newPath(b)
		reqs := requests(b, 20)
		loop(b, func(i int) {
			td := p.decode(b, reqs[i%len(reqs)])
			tenant.StampTraces(p.ctx, td)
			batch := p.convert(td)
			renumber(&batch, i)
			for j := range batch.Spans { // each span its own new trace
				batch.Spans[j].TraceID = fmt.Sprintf("%s%016x", batch.Spans[j].TraceID[:16], i*spansPerRequest+j)
			}
			p.store.PrepareSpans(batch.Spans)
			if err := p.store.WriteSpans(p.ctx, batch.Spans); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("write", func(b *testing.B) {
		p := newPath(b)
		tds := p.evaluated(b, 20)
		loop(b, func(i int) {
			batch := p.convert(tds[i%len(tds)])
			renumber(&batch, i)
			p.store.PrepareSpans(batch.Spans)
			p.store.PreparePoints(batch.Points)
			if err := p.store.WriteSpans(p.ctx, batch.Spans); err != nil {
				b.Fatal(err)
			}
			if err := p.store.WriteMetricPoints(p.ctx, batch.Points); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// renumber makes run i's batch new to the store: its span ids get the
// suffix "-i" and its times move 50 ms a run, as live traffic's do.
func renumber(batch *spanconv.TraceBatch, i int) {
	suffix := fmt.Sprintf("-%d", i)
	later := int64(i) * 50
	for j := range batch.Spans {
		batch.Spans[j].SpanID += suffix
		batch.Spans[j].Timestamp += later
	}
	for j := range batch.Points {
		batch.Points[j].SpanID += suffix
		batch.Points[j].EventTime += later
	}
}

func loop(b *testing.B, run func(i int)) {
	b.ReportAllocs()
	n := 0
	cpu0 := processCPU(b)
	for b.Loop() {
		run(n)
		n++
	}
	cpu := processCPU(b) - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*spansPerRequest), "cpu-ns/span")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*spansPerRequest), "ns/span")
}

// processCPU is the user and system CPU time of the process so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
