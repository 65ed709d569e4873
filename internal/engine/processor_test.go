package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/genai"
	"github.com/evalcol/evalcol/internal/monitor"
	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// chatAttrs is what OpenLLMetry emits for a RAG chat call.
func chatAttrs() map[string]any {
	return map[string]any{
		"gen_ai.operation.name":          "chat",
		"gen_ai.system":                  "openai",
		"gen_ai.request.model":           "gpt-4o-mini",
		"gen_ai.prompt.0.role":           "system",
		"gen_ai.prompt.0.content":        "Answer from this document: the Eiffel Tower is 330 m tall.",
		"gen_ai.prompt.1.role":           "user",
		"gen_ai.prompt.1.content":        "How tall is the Eiffel Tower?",
		"gen_ai.completion.0.role":       "assistant",
		"gen_ai.completion.0.content":    "It is 330 metres tall.",
		"gen_ai.evaluation.ground_truth": "330 m",
		"gen_ai.completion.logprobs":     "[-0.1, -0.2, -0.05]",
	}
}

// newTraces builds one resource and scope holding one span per attribute
// set, each in its own trace.
func newTraces(t testing.TB, spans ...map[string]any) ptrace.Traces {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "chatbot")
	ss := rs.ScopeSpans().AppendEmpty()
	for i, attrs := range spans {
		s := ss.Spans().AppendEmpty()
		s.SetName(fmt.Sprintf("openai.chat %d", i))
		s.SetTraceID(pcommon.TraceID{0xab, byte(i + 1), 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, byte(i)})
		s.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, byte(i + 1)})
		if err := s.Attributes().FromRaw(attrs); err != nil {
			t.Fatal(err)
		}
	}
	return td
}

func spanAt(td ptrace.Traces, i int) ptrace.Span {
	return td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(i)
}

// evalEvents returns the attributes of the span's evaluation events.
func evalEvents(s ptrace.Span) []map[string]any {
	var out []map[string]any
	for i := 0; i < s.Events().Len(); i++ {
		if e := s.Events().At(i); e.Name() == genai.EvaluationEvent {
			out = append(out, e.Attributes().AsRaw())
		}
	}
	return out
}

func compile(t testing.TB, specs ...monitor.Spec) []*monitor.Monitor {
	t.Helper()
	c, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	ms := make([]*monitor.Monitor, len(specs))
	for i, s := range specs {
		if s.ID == "" {
			s.ID = s.Name
		}
		if s.SampleRate == 0 {
			s.SampleRate = 1
		}
		if ms[i], err = c.Compile(s); err != nil {
			t.Fatal(err)
		}
	}
	return ms
}

func evs(slugs ...string) []monitor.EvaluatorSpec {
	out := make([]monitor.EvaluatorSpec, len(slugs))
	for i, s := range slugs {
		out[i] = monitor.EvaluatorSpec{Slug: s}
	}
	return out
}

type recorder struct {
	mu     sync.Mutex
	inputs map[string]map[string]string
}

// run records each request's input and answers with a fixed result that
// fits the evaluator's outputs.
func (r *recorder) run(_ context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
	r.mu.Lock()
	if r.inputs == nil {
		r.inputs = map[string]map[string]string{}
	}
	r.inputs[def.Slug] = req.Input
	r.mu.Unlock()
	return fakeResult(def), nil
}

func fakeResult(def *evaluators.Definition) evaluators.Result {
	res := evaluators.Result{}
	for _, f := range def.Outputs {
		switch {
		case len(f.EnumValues) > 0:
			res[f.Name] = f.EnumValues[len(f.EnumValues)-1]
		case f.Type == evaluators.TypeBoolean:
			res[f.Name] = true
		case f.Type == evaluators.TypeInteger:
			res[f.Name] = 7
		case f.Type == evaluators.TypeNumber:
			res[f.Name] = 0.25
		default:
			res[f.Name] = "text"
		}
	}
	return res
}

type testProc struct {
	*Processor
	reader *sdkmetric.ManualReader
}

func newProc(t testing.TB, set Settings, run runFunc) testProc {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	set.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	if set.Timeout == 0 {
		set.Timeout = 2 * time.Second
	}
	if set.GroundTruthAttribute == "" {
		set.GroundTruthAttribute = DefaultGroundTruth
	}
	p, err := New(set)
	if err != nil {
		t.Fatal(err)
	}
	if run != nil {
		p.run = run
		p.explain = nil // a stub's results are not the evaluators' to explain
	}
	return testProc{p, reader}
}

// counter returns the sum of an Int64 counter's points whose attributes
// include want.
func (tp testProc) counter(t *testing.T, name string, want map[string]string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tp.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s is %T", name, m.Data)
			}
		points:
			for _, dp := range sum.DataPoints {
				for k, v := range want {
					if got, ok := dp.Attributes.Value(attribute.Key(k)); !ok || got.AsString() != v {
						continue points
					}
				}
				n += dp.Value
			}
		}
	}
	return n
}

func (tp testProc) process(t *testing.T, td ptrace.Traces) ptrace.Traces {
	t.Helper()
	out, err := tp.ProcessTraces(context.Background(), td)
	if err != nil {
		t.Fatalf("ProcessTraces: %v", err)
	}
	return out
}

func TestDefaultInputMapping(t *testing.T) {
	conversation := chatAttrs()
	conversation["gen_ai.prompt.2.role"] = "assistant"
	conversation["gen_ai.prompt.2.content"] = "Anything else?"
	conversation["gen_ai.prompt.3.role"] = "user"
	conversation["gen_ai.prompt.3.content"] = "Who built it?"
	tests := []struct {
		name  string
		slug  string
		attrs map[string]any
		want  map[string]string
	}{
		{"input side reads the last user prompt", "prompt-injection", chatAttrs(), map[string]string{"prompt": "How tall is the Eiffel Tower?"}},
		{"input side prompt", "prompt-injection", chatAttrs(), map[string]string{"prompt": "How tall is the Eiffel Tower?"}},
		{"exchange side text: the prompt and the completion", "pii-detector", chatAttrs(), map[string]string{"text": "How tall is the Eiffel Tower?\n\nIt is 330 metres tall."}},
		{"output side reads the last completion", "toxicity-detector", chatAttrs(), map[string]string{"text": "It is 330 metres tall."}},
		{"output side prompt field", "uncertainty-detector", chatAttrs(), map[string]string{"prompt": "It is 330 metres tall."}},
		{"faithfulness", "faithfulness", chatAttrs(), map[string]string{
			"completion": "It is 330 metres tall.",
			"context":    "Answer from this document: the Eiffel Tower is 330 m tall.",
			"question":   "How tall is the Eiffel Tower?",
		}},
		{"answer relevancy", "answer-relevancy", chatAttrs(), map[string]string{"answer": "It is 330 metres tall.", "question": "How tall is the Eiffel Tower?"}},
		{"ground truth from the attribute", "answer-correctness", chatAttrs(), map[string]string{
			"question": "How tall is the Eiffel Tower?", "completion": "It is 330 metres tall.", "ground_truth": "330 m",
		}},
		{"reference from the attribute", "semantic-similarity", chatAttrs(), map[string]string{"completion": "It is 330 metres tall.", "reference": "330 m"}},
		{"conversation as JSON arrays", "conversation-quality", conversation, map[string]string{
			"prompts":     `["How tall is the Eiffel Tower?","Who built it?"]`,
			"completions": `["Anything else?","It is 330 metres tall."]`,
		}},
		{"logprobs from the attribute", "perplexity", chatAttrs(), map[string]string{"logprobs": "[-0.1, -0.2, -0.05]"}},
		{"legacy logprobs key", "perplexity", map[string]any{"llm.completions.0.logprobs": "[-1]"}, map[string]string{"logprobs": "[-1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs(tt.slug)})}, rec.run)
			td := tp.process(t, newTraces(t, tt.attrs))
			if got := rec.inputs[tt.slug]; fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("input = %v\nwant    %v", got, tt.want)
			}
			if n := len(evalEvents(spanAt(td, 0))); n != 1 {
				t.Errorf("%d events, want 1", n)
			}
		})
	}
}

func TestSkippedWithoutContent(t *testing.T) {
	tests := []struct {
		name  string
		slug  string
		attrs map[string]any
	}{
		{"no ground truth", "answer-correctness", map[string]any{"gen_ai.prompt.0.content": "q", "gen_ai.completion.0.content": "a"}},
		{"no completion", "toxicity-detector", map[string]any{"gen_ai.prompt.0.content": "q"}},
		{"no logprobs", "perplexity", chatAttrsWithout("gen_ai.completion.logprobs")},
		{"html inputs have no default", "html-comparison", chatAttrs()},
		{"not an LLM span", "word-count", map[string]any{"http.method": "GET"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs(tt.slug)})}, rec.run)
			td := tp.process(t, newTraces(t, tt.attrs))
			if ev := evalEvents(spanAt(td, 0)); len(ev) != 0 {
				t.Errorf("events = %v, want none", ev)
			}
			if len(rec.inputs) != 0 {
				t.Errorf("evaluator ran with %v", rec.inputs)
			}
			if n := tp.counter(t, MetricSkipped, map[string]string{"slug": tt.slug}); n != 1 {
				t.Errorf("skipped = %d, want 1", n)
			}
		})
	}
}

func chatAttrsWithout(key string) map[string]any {
	m := chatAttrs()
	delete(m, key)
	return m
}

func TestResultEvents(t *testing.T) {
	ms := compile(t,
		monitor.Spec{Name: "safety", Evaluators: evs("toxicity-detector", "word-count"), Condition: `attributes["gen_ai.operation.name"] == "chat"`},
		monitor.Spec{Name: "other", Evaluators: evs("char-count"), Condition: `attributes["gen_ai.operation.name"] == "embeddings"`},
	)
	// word-count runs for real; the others answer fakes.
	run := func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
		if def.Slug == "word-count" {
			return def.Run(ctx, req)
		}
		return fakeResult(def), nil
	}
	tp := newProc(t, Settings{Static: ms}, run)
	td := newTraces(t, chatAttrs(), map[string]any{"http.method": "GET"})
	first := spanAt(td, 0)
	first.Events().AppendEmpty().SetName("existing")
	before := spanAt(td, 1)
	var want bytes.Buffer
	b, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(singleSpan(before))
	want.Write(b)

	td = tp.process(t, td)
	first = spanAt(td, 0)
	if first.Events().Len() != 3 || first.Events().At(0).Name() != "existing" {
		t.Fatalf("events = %d, first %q; want the existing event then 2 results", first.Events().Len(), first.Events().At(0).Name())
	}
	got := evalEvents(first)
	wantEvents := []map[string]any{
		{
			genai.AttrEvaluationName: "toxicity-detector", genai.AttrMonitorID: "safety",
			genai.AttrEvaluationScoreValue: 0.0, genai.AttrEvaluationScoreLabel: "unsafe",
			genai.AttrEvaluationOutputPrefix + "is_safe": "unsafe", genai.AttrEvaluationVerdict: "fail",
		},
		{
			genai.AttrEvaluationName: "word-count", genai.AttrMonitorID: "safety",
			genai.AttrEvaluationScoreValue: 5.0, genai.AttrEvaluationOutputPrefix + "word_count": int64(5), genai.AttrEvaluationVerdict: "pass",
		},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantEvents) {
		t.Errorf("events =\n%v\nwant\n%v", got, wantEvents)
	}
	if first.Events().At(1).Timestamp() == 0 {
		t.Error("event has no timestamp")
	}
	// The span that matched nothing is unchanged.
	b, _ = (&ptrace.JSONMarshaler{}).MarshalTraces(singleSpan(spanAt(td, 1)))
	if !bytes.Equal(b, want.Bytes()) {
		t.Errorf("unmatched span changed:\n%s\nwant\n%s", b, want.Bytes())
	}
	if td.SpanCount() != 2 || spanAt(td, 0).Name() != "openai.chat 0" || spanAt(td, 1).Name() != "openai.chat 1" {
		t.Error("spans reordered or dropped")
	}
	if n := tp.counter(t, MetricEvaluations, map[string]string{"slug": "word-count", "outcome": "ok"}); n != 1 {
		t.Errorf("evaluations{word-count,ok} = %d, want 1", n)
	}
}

func singleSpan(s ptrace.Span) ptrace.Traces {
	td := ptrace.NewTraces()
	s.CopyTo(td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty())
	return td
}

func TestNoMonitorNoChange(t *testing.T) {
	tests := []struct {
		name string
		ms   []*monitor.Monitor
	}{
		{"no monitors", nil},
		{"condition false", compile(t, monitor.Spec{Name: "m", Evaluators: evs("word-count"), Condition: `attributes["x"] == "y"`})},
		{"sample rate 0", compile(t, monitor.Spec{Name: "m", Evaluators: evs("word-count")})},
	}
	tests[2].ms[0].SampleRate = 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newProc(t, Settings{Static: tt.ms}, func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
				t.Error("evaluator ran")
				return nil, nil
			})
			td := newTraces(t, chatAttrs(), chatAttrs())
			want, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
			got, _ := (&ptrace.ProtoMarshaler{}).MarshalTraces(tp.process(t, td))
			if !bytes.Equal(got, want) {
				t.Error("traces changed")
			}
		})
	}
}

func TestErrorPaths(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name     string
		run      runFunc
		wantType string
		wantMsg  string
	}{
		{"panic", func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
			panic("boom")
		}, ErrorPanic, "evaluator panicked: boom"},
		{"panic recovered by the evaluator library", func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
			return nil, &evaluators.Error{Kind: evaluators.KindInternal, Msg: "internal error", Err: fmt.Errorf("%w: evaluator word-count: boom\ngoroutine 1 [running]:", evaluators.ErrPanic)}
		}, ErrorPanic, "internal error: evaluator panicked: evaluator word-count: boom"},
		{"ignores its context", func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
			<-release // never returns before the test ends
			return evaluators.Result{}, nil
		}, ErrorTimeout, "evaluation timed out after 50ms"},
		{"honours its context", func(ctx context.Context, _ *evaluators.Definition, _ evaluators.Request) (evaluators.Result, error) {
			<-ctx.Done()
			return nil, &evaluators.Error{Kind: evaluators.KindInternal, Msg: "evaluation cancelled", Err: ctx.Err()}
		}, ErrorTimeout, "evaluation timed out after 50ms"},
		{"invalid input", func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
			return nil, evaluators.InvalidInput("input.text", "input.text is not valid")
		}, ErrorInvalidInput, "input.text is not valid"},
		{"internal", func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
			return nil, errors.New("evaluator not implemented yet")
		}, ErrorInternal, "evaluator not implemented yet"},
		{"no result", func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
			return nil, nil
		}, ErrorInternal, "evaluator returned no result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs("word-count")}), Timeout: 50 * time.Millisecond}, tt.run)
			td := tp.process(t, newTraces(t, chatAttrs(), chatAttrs()))
			for i := range 2 {
				got := evalEvents(spanAt(td, i))
				want := []map[string]any{{genai.AttrEvaluationName: "word-count", genai.AttrMonitorID: "m", genai.AttrErrorType: tt.wantType, genai.AttrEvaluationErrorMessage: tt.wantMsg,
					genai.AttrEvaluationVerdict: "error"}}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("span %d events = %v\nwant %v", i, got, want)
				}
			}
			if n := tp.counter(t, MetricEvaluations, map[string]string{"slug": "word-count", "outcome": tt.wantType}); n != 2 {
				t.Errorf("evaluations{%s} = %d, want 2", tt.wantType, n)
			}
			wantTimeouts := int64(0)
			if tt.wantType == ErrorTimeout {
				wantTimeouts = 2
			}
			if n := tp.counter(t, MetricTimeouts, nil); n != wantTimeouts {
				t.Errorf("timeouts = %d, want %d", n, wantTimeouts)
			}
		})
	}
}

func TestInputExpressionsAndValidation(t *testing.T) {
	rec := &recorder{}
	ms := compile(t, monitor.Spec{
		Name:       "custom",
		Evaluators: evs("html-comparison", "conversation-quality"),
		Inputs: map[string]string{
			"html1":       `attributes["page.expected"]`,
			"html2":       `attributes["page.actual"]`,
			"prompts":     `attributes["turns"]`,
			"completions": `"[\"ok\"]"`,
		},
	})
	tp := newProc(t, Settings{Static: ms}, rec.run)
	attrs := chatAttrs()
	attrs["page.expected"] = "<p>a</p>"
	attrs["page.actual"] = "<p>b</p>"
	attrs["turns"] = []any{"hello", "bye"}
	td := tp.process(t, newTraces(t, attrs))
	want := map[string]map[string]string{
		"html-comparison":      {"html1": "<p>a</p>", "html2": "<p>b</p>"},
		"conversation-quality": {"prompts": `["hello","bye"]`, "completions": `["ok"]`},
	}
	if fmt.Sprint(rec.inputs) != fmt.Sprint(want) {
		t.Errorf("inputs = %v\nwant %v", rec.inputs, want)
	}
	if n := len(evalEvents(spanAt(td, 0))); n != 2 {
		t.Errorf("%d events, want 2", n)
	}
}

func TestTruncation(t *testing.T) {
	rec := &recorder{}
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs("toxicity-detector", "prompt-injection")}), MaxTextBytes: 9}, rec.run)
	attrs := map[string]any{
		"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "short",
		"gen_ai.completion.0.content": "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e", // é is bytes 3-4, è bytes 8-9
	}
	td := tp.process(t, newTraces(t, attrs))
	if got := rec.inputs["toxicity-detector"]["text"]; got != "caf\u00e9 cr" {
		t.Errorf("truncated text = %q, want %q", got, "caf\u00e9 cr")
	}
	ev := evalEvents(spanAt(td, 0))
	if len(ev) != 2 || ev[0][genai.AttrTruncated] != true {
		t.Errorf("toxicity event = %v, want %s = true", ev, genai.AttrTruncated)
	}
	if _, ok := ev[1][genai.AttrTruncated]; ok {
		t.Errorf("prompt-injection input was short, event = %v", ev[1])
	}
}

func TestTruncateUTF8(t *testing.T) {
	tests := []struct {
		in      string
		max     int
		want    string
		wantCut bool
	}{
		{"hello", 10, "hello", false},
		{"hello", 5, "hello", false},
		{"hello", 4, "hell", true},
		{"h\u00e9llo", 2, "h", true}, // é is 2 bytes at 1..2
		{"\U0001F600x", 3, "", true}, // a 4-byte rune
		{"abc", 0, "abc", false},     // no limit
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%d", tt.in, tt.max), func(t *testing.T) {
			got, cut := truncateUTF8(tt.in, tt.max)
			if got != tt.want || cut != tt.wantCut {
				t.Errorf("got %q, %v; want %q, %v", got, cut, tt.want, tt.wantCut)
			}
		})
	}
}

type fakeProvider struct {
	monitor.Set
	mu        sync.Mutex
	evaluated []string
}

func (f *fakeProvider) Evaluated(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.evaluated = append(f.evaluated, id)
}

func TestProviderMonitors(t *testing.T) {
	rec := &recorder{}
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "static", Evaluators: evs("word-count")})}, rec.run)
	prov := &fakeProvider{}
	prov.Replace(compile(t,
		monitor.Spec{ID: "setup-1", Name: "workflow qa", Evaluators: evs("char-count"), Condition: `attributes["gen_ai.operation.name"] == "chat"`},
		monitor.Spec{ID: "setup-2", Name: "never", Evaluators: evs("char-count"), Condition: `attributes["nope"] != nil`},
	))
	tp.SetProvider(prov)
	td := tp.process(t, newTraces(t, chatAttrs(), chatAttrs()))
	for i := range 2 {
		ev := evalEvents(spanAt(td, i))
		if len(ev) != 2 || ev[0][genai.AttrMonitorID] != "static" || ev[1][genai.AttrMonitorID] != "setup-1" {
			t.Errorf("span %d events = %v", i, ev)
		}
	}
	if fmt.Sprint(prov.evaluated) != "[setup-1]" {
		t.Errorf("Evaluated calls = %v, want [setup-1] once per batch", prov.evaluated)
	}
	prov.Replace(nil)
	td = tp.process(t, newTraces(t, chatAttrs()))
	if ev := evalEvents(spanAt(td, 0)); len(ev) != 1 {
		t.Errorf("after the provider dropped its monitors: %v", ev)
	}
}

func TestWorkersBoundConcurrency(t *testing.T) {
	var running, peak atomic.Int64
	run := func(context.Context, *evaluators.Definition, evaluators.Request) (evaluators.Result, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		return evaluators.Result{"word_count": 1}, nil
	}
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs("word-count")}), Workers: 2}, run)
	spans := make([]map[string]any, 12)
	for i := range spans {
		spans[i] = chatAttrs()
	}
	var wg sync.WaitGroup
	for range 3 { // concurrent batches share the bound
		wg.Go(func() {
			td, err := tp.ProcessTraces(context.Background(), newTraces(t, spans...))
			if err != nil || td.SpanCount() != 12 {
				t.Errorf("ProcessTraces: %v", err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 2 || p < 1 {
		t.Errorf("peak concurrent evaluations = %d, want 1..2", p)
	}
	if n := tp.counter(t, MetricEvaluations, map[string]string{"outcome": "ok"}); n != 36 {
		t.Errorf("evaluations = %d, want 36", n)
	}
}

// TestOlderRequestsGetWorkersFirst: requests that wait for workers are
// served in arrival order, each to the end, instead of sharing the
// workers (when they would all finish late together).
func TestOlderRequestsGetWorkersFirst(t *testing.T) {
	var mu sync.Mutex
	var order []string // the completion of each evaluation, in start order
	started := make(chan struct{}, 100)
	gate := make(chan struct{})
	run := func(_ context.Context, _ *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
		mu.Lock()
		order = append(order, fmt.Sprint(req.Input["text"]))
		mu.Unlock()
		started <- struct{}{}
		<-gate
		return evaluators.Result{"word_count": 1}, nil
	}
	// One worker: the order is deterministic (with more, a worker that took
	// a request's last job may start it after the next request's first).
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs("word-count")}), Workers: 1}, run)
	request := func(name string, n int) ptrace.Traces {
		spans := make([]map[string]any, n)
		for i := range spans {
			a := chatAttrs()
			a["gen_ai.completion.0.content"] = name
			spans[i] = a
		}
		return newTraces(t, spans...)
	}
	waiting := func(n int) func() bool {
		return func() bool { tp.turns.mu.Lock(); defer tp.turns.mu.Unlock(); return tp.turns.waiting.Len() == n }
	}
	var wg sync.WaitGroup
	// Request "first" takes the worker; "second" and "third" arrive in that
	// order while it runs. (A shared semaphore would serve the three in
	// turn, one evaluation each.)
	wg.Go(func() { _, _ = tp.ProcessTraces(context.Background(), request("first", 6)) })
	<-started
	wg.Go(func() { _, _ = tp.ProcessTraces(context.Background(), request("second", 6)) })
	waitFor(t, waiting(1))
	wg.Go(func() { _, _ = tp.ProcessTraces(context.Background(), request("third", 6)) })
	waitFor(t, waiting(2))
	close(gate)
	wg.Wait()
	want := strings.Repeat("first ", 6) + strings.Repeat("second ", 6) + strings.Repeat("third ", 6)
	if got := strings.Join(order, " ") + " "; got != want {
		t.Errorf("evaluations started in the order\n%s\nwant each request to the end, in arrival order", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	_, err := New(Settings{})
	if err == nil || !strings.Contains(err.Error(), "timeout must be positive") {
		t.Fatalf("err = %v", err)
	}
}

func benchTraces(b *testing.B, attrs map[string]any, n int) ptrace.Traces {
	spans := make([]map[string]any, n)
	for i := range spans {
		spans[i] = attrs
	}
	return newTraces(b, spans...)
}

// BenchmarkNoMatch: a batch of 100 non-LLM spans against a monitor whose
// condition none of them meets.
func BenchmarkNoMatch(b *testing.B) {
	tp := newProc(b, Settings{Static: compile(b, monitor.Spec{Name: "m", Evaluators: evs("toxicity-detector"), Condition: `attributes["gen_ai.operation.name"] == "chat"`})}, nil)
	td := benchTraces(b, map[string]any{"http.method": "GET", "http.route": "/users/{id}", "http.status_code": 200}, 100)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tp.ProcessTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
	}
}

func fiveEvaluatorsBench(b *testing.B, run runFunc) { fiveEvaluatorsBenchWith(b, run, false) }

// trackingProvider feeds a real monitoring status tracker, and reports
// every evaluated span stored at once, as the exporter would.
type trackingProvider struct {
	fakeProvider
	tracker *monitoringstatus.Tracker
}

func (p *trackingProvider) SpansEvaluated(at time.Time, spans []monitoringstatus.MatchedSpan) {
	p.tracker.Matched(at, spans)
	stored := make([]warehouse.Span, len(spans))
	for i, s := range spans {
		stored[i] = warehouse.Span{Environment: s.Environment, TraceID: hex.EncodeToString(s.TraceID[:]), SpanID: hex.EncodeToString(s.SpanID[:])}
	}
	p.tracker.Stored(at, stored)
}

func fiveEvaluatorsBenchWith(b *testing.B, run runFunc, observed bool) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23) // ~1 KB
	attrs := map[string]any{
		"gen_ai.operation.name":       "chat",
		"gen_ai.prompt.0.role":        "user",
		"gen_ai.prompt.0.content":     text,
		"gen_ai.completion.0.role":    "assistant",
		"gen_ai.completion.0.content": text,
	}
	ms := compile(b, monitor.Spec{Name: "m", Condition: `attributes["gen_ai.operation.name"] == "chat"`,
		Evaluators: evs("toxicity-detector", "pii-detector", "prompt-injection", "secrets-detector", "word-count")})
	tp := newProc(b, Settings{Static: ms}, run)
	if observed {
		tp.SetProvider(&trackingProvider{tracker: monitoringstatus.NewTracker()})
	}
	td := benchTraces(b, attrs, 1)
	span := spanAt(td, 0)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tp.ProcessTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
		span.Events().RemoveIf(func(ptrace.SpanEvent) bool { return true })
	}
}

// BenchmarkFiveEvaluators runs five real evaluators on one span with 1 KB
// prompt and completion.
func BenchmarkFiveEvaluators(b *testing.B) { fiveEvaluatorsBench(b, nil) }

// BenchmarkFiveEvaluatorsOverhead is the same with evaluators that return at
// once: the processor's own cost per span and evaluation.
func BenchmarkFiveEvaluatorsOverhead(b *testing.B) {
	fiveEvaluatorsBench(b, func(_ context.Context, def *evaluators.Definition, _ evaluators.Request) (evaluators.Result, error) {
		return fakeResult(def), nil
	})
}

// BenchmarkFiveEvaluatorsOverheadObserved is BenchmarkFiveEvaluatorsOverhead
// with the monitoring status following the span (matched, then stored):
// the cost of the status to compare with it.
func BenchmarkFiveEvaluatorsOverheadObserved(b *testing.B) {
	fiveEvaluatorsBenchWith(b, func(_ context.Context, def *evaluators.Definition, _ evaluators.Request) (evaluators.Result, error) {
		return fakeResult(def), nil
	}, true)
}

func TestStuckEvaluationsAreBounded(t *testing.T) {
	release := make(chan struct{})
	var block atomic.Bool
	block.Store(true)
	run := func(_ context.Context, def *evaluators.Definition, _ evaluators.Request) (evaluators.Result, error) {
		if block.Load() {
			<-release
		}
		return fakeResult(def), nil
	}
	tp := newProc(t, Settings{Static: compile(t, monitor.Spec{Name: "m", Evaluators: evs("word-count")}), Workers: 1, Timeout: 5 * time.Millisecond}, run)
	spans := make([]map[string]any, stuckPerWorker+2)
	for i := range spans {
		spans[i] = chatAttrs()
	}
	td := tp.process(t, newTraces(t, spans...))
	for i := range spans {
		ev := evalEvents(spanAt(td, i))
		if len(ev) != 1 || ev[0][genai.AttrErrorType] != ErrorTimeout {
			t.Fatalf("span %d events = %v, want one timeout", i, ev)
		}
		msg := ev[0][genai.AttrEvaluationErrorMessage].(string)
		if i < stuckPerWorker && msg != "evaluation timed out after 5ms" {
			t.Errorf("span %d: message %q", i, msg)
		}
		if i >= stuckPerWorker && msg != fmt.Sprintf("evaluation not started: %d evaluations are still running past their timeout", stuckPerWorker) {
			t.Errorf("span %d: message %q, want the overload message", i, msg)
		}
	}
	// Once the stuck evaluators return, evaluation resumes.
	block.Store(false)
	close(release)
	for tp.stuck.Load() != 0 {
		time.Sleep(time.Millisecond)
	}
	td = tp.process(t, newTraces(t, chatAttrs()))
	if ev := evalEvents(spanAt(td, 0)); len(ev) != 1 || ev[0][genai.AttrErrorType] != nil {
		t.Errorf("after recovery: %v", ev)
	}
}

// BenchmarkSkipNonLLM: a batch of 100 non-LLM spans against a monitor
// without condition: every span is read and every evaluator skipped.
func BenchmarkSkipNonLLM(b *testing.B) {
	tp := newProc(b, Settings{Static: compile(b, monitor.Spec{Name: "m", Evaluators: evs("toxicity-detector", "prompt-injection")})}, nil)
	td := benchTraces(b, map[string]any{"http.method": "GET", "http.route": "/users/{id}", "http.status_code": 200}, 100)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tp.ProcessTraces(ctx, td); err != nil {
			b.Fatal(err)
		}
	}
}

// observingProvider is a provider that also observes evaluated spans.
type observingProvider struct {
	fakeProvider
	batches [][]monitoringstatus.MatchedSpan
}

func (o *observingProvider) SpansEvaluated(_ time.Time, spans []monitoringstatus.MatchedSpan) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.batches = append(o.batches, spans)
}

// TestObserver: a provider that is an Observer learns, once per batch,
// each evaluated span with its environment and outcomes; spans no monitor
// matched are not reported.
func TestObserver(t *testing.T) {
	tp := newProc(t, Settings{}, func(ctx context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
		if def.Slug == "word-count" {
			return nil, errors.New("boom")
		}
		return fakeResult(def), nil
	})
	prov := &observingProvider{}
	prov.Replace(compile(t, monitor.Spec{ID: "s", Name: "s", Evaluators: evs("char-count", "word-count"), Condition: `attributes["gen_ai.operation.name"] == "chat"`}))
	tp.SetProvider(prov)
	plain := chatAttrsWithout("gen_ai.operation.name")
	td := newTraces(t, chatAttrs(), plain, chatAttrs())
	td.ResourceSpans().At(0).Resource().Attributes().PutStr("deployment.environment.name", "prod")
	tp.process(t, td)
	if len(prov.batches) != 1 || len(prov.batches[0]) != 2 {
		t.Fatalf("observed %v, want one batch of the two matched spans", prov.batches)
	}
	for i, want := range []int{0, 2} {
		got := prov.batches[0][i]
		s := spanAt(td, want)
		if got.Environment != "prod" || got.TraceID != [16]byte(s.TraceID()) || got.SpanID != [8]byte(s.SpanID()) || got.OK != 1 || got.Failed != 1 || got.Error != ErrorInternal {
			t.Errorf("observed span %d = %+v", i, got)
		}
	}
}

// TestJobsRunEvaluatorByEvaluator: a batch's evaluations run evaluator by
// evaluator (in order of first appearance, spans in order), while each
// span's events stay in its monitors' evaluator order.
func TestJobsRunEvaluatorByEvaluator(t *testing.T) {
	ms := compile(t,
		monitor.Spec{Name: "a", Evaluators: evs("word-count", "char-count")},
		monitor.Spec{Name: "b", Evaluators: evs("toxicity-detector", "word-count")},
	)
	var mu sync.Mutex
	var ran []string
	run := func(_ context.Context, def *evaluators.Definition, req evaluators.Request) (evaluators.Result, error) {
		mu.Lock()
		ran = append(ran, def.Slug+":"+req.Input["text"])
		mu.Unlock()
		return fakeResult(def), nil
	}
	tp := newProc(t, Settings{Static: ms, Workers: 1}, run)
	spans := make([]map[string]any, 3)
	for i := range spans {
		spans[i] = map[string]any{"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": fmt.Sprintf("answer %d", i)}
	}
	td := tp.process(t, newTraces(t, spans...))
	want := []string{
		"word-count:answer 0", "word-count:answer 0", "word-count:answer 1", "word-count:answer 1", "word-count:answer 2", "word-count:answer 2",
		"char-count:answer 0", "char-count:answer 1", "char-count:answer 2",
		"toxicity-detector:answer 0", "toxicity-detector:answer 1", "toxicity-detector:answer 2",
	}
	if !slices.Equal(ran, want) {
		t.Errorf("evaluations ran in the order\n%q\nwant\n%q", ran, want)
	}
	for i := range spans {
		var names []string
		for _, ev := range evalEvents(spanAt(td, i)) {
			names = append(names, fmt.Sprint(ev[genai.AttrMonitorID], "/", ev[genai.AttrEvaluationName]))
		}
		if w := []string{"a/word-count", "a/char-count", "b/toxicity-detector", "b/word-count"}; !slices.Equal(names, w) {
			t.Errorf("span %d events %q, want %q", i, names, w)
		}
	}
}

func TestEvaluationOrder(t *testing.T) {
	a, b, c := &monitor.Binding{Def: &evaluators.Definition{Slug: "a"}}, &monitor.Binding{Def: &evaluators.Definition{Slug: "b"}}, &monitor.Binding{Def: &evaluators.Definition{Slug: "c"}}
	jobsOf := func(bs ...*monitor.Binding) []job {
		out := make([]job, len(bs))
		for i, x := range bs {
			out[i].binding = x
		}
		return out
	}
	if o := evaluationOrder(jobsOf(a, b, c)); o != nil {
		t.Errorf("one span's jobs: order %v, want nil (job order)", o)
	}
	if o := evaluationOrder(jobsOf(a, a, b)); o != nil {
		t.Errorf("grouped jobs: order %v, want nil", o)
	}
	if o, want := evaluationOrder(jobsOf(a, b, c, a, b, c, b)), []int{0, 3, 1, 4, 6, 2, 5}; !slices.Equal(o, want) {
		t.Errorf("order %v, want %v", o, want)
	}
}
