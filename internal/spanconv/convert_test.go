package spanconv

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/genai"
	"github.com/evalcol/evalcol/internal/warehouse"
)

var (
	t0      = time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	traceID = pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
)

// chatTraces builds one chat span with an evaluation event of
// toxicity-detector and one of uncertainty-detector, plus one failed one.
func chatTraces(resourceAttrs map[string]string) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	for k, v := range resourceAttrs {
		rs.Resource().Attributes().PutStr(k, v)
	}
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("openllmetry")
	ss.Scope().SetVersion("0.27.0")
	sp := ss.Spans().AppendEmpty()
	sp.SetTraceID(traceID)
	sp.SetSpanID(pcommon.SpanID{1, 1, 1, 1, 1, 1, 1, 1})
	sp.SetParentSpanID(pcommon.SpanID{2, 2, 2, 2, 2, 2, 2, 2})
	sp.TraceState().FromRaw("vendor=x")
	sp.SetName("openai.chat")
	sp.SetKind(ptrace.SpanKindClient)
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(1500 * time.Millisecond)))
	sp.Status().SetCode(ptrace.StatusCodeOk)
	a := sp.Attributes()
	a.PutStr("llm.vendor", "openai")
	a.PutStr("llm.request.model", "gpt-4o")
	a.PutStr("llm.response.model", "gpt-4o-2024-08-06")
	a.PutInt("llm.usage.total_tokens", 42)
	a.PutBool("llm.is_streaming", false)
	a.PutStr("llm.prompts.0.role", "user")
	a.PutStr("llm.prompts.0.content", "Tell me a joke")
	a.PutStr("llm.completions.0.role", "assistant")
	a.PutStr("llm.completions.0.content", "A pirate walks into a bar")
	a.PutStr("traceloop.workflow.name", "jokes")
	a.PutStr("customer", "acme")

	ev := sp.Events().AppendEmpty()
	ev.SetName(genai.EvaluationEvent)
	ea := ev.Attributes()
	ev.SetTimestamp(pcommon.NewTimestampFromTime(t0.Add(1600 * time.Millisecond)))
	ea.PutStr(genai.AttrEvaluationName, "toxicity-detector")
	ea.PutDouble(genai.AttrEvaluationScoreValue, 1)
	ea.PutStr(genai.AttrEvaluationScoreLabel, "safe")
	ea.PutStr(genai.AttrEvaluationOutputPrefix+"is_safe", "safe")
	ea.PutStr(genai.AttrMonitorID, "mon-1")

	ev = sp.Events().AppendEmpty()
	ev.SetName(genai.EvaluationEvent)
	ea = ev.Attributes()
	ea.PutStr(genai.AttrEvaluationName, "uncertainty-detector")
	ea.PutDouble(genai.AttrEvaluationScoreValue, 0.25)
	ea.PutStr(genai.AttrEvaluationOutputPrefix+"answer", "A pirate walks into a bar")
	ea.PutDouble(genai.AttrEvaluationOutputPrefix+"uncertainty", 0.25)
	ea.PutStr(genai.AttrMonitorID, "mon-1")

	ev = sp.Events().AppendEmpty()
	ev.SetName(genai.EvaluationEvent)
	ea = ev.Attributes()
	ea.PutStr(genai.AttrEvaluationName, "pii-detector")
	ea.PutStr(genai.AttrErrorType, "timeout")
	ea.PutStr(genai.AttrEvaluationErrorMessage, "evaluation exceeded 2s")

	sp.Events().AppendEmpty().SetName("some.other.event")
	return td
}

func TestTracesSpanFields(t *testing.T) {
	b := Traces(chatTraces(map[string]string{"service.name": "jokes-svc", "deployment.environment": "staging"}), Options{DefaultEnvironment: "default"})
	if len(b.Spans) != 1 || len(b.Dropped) != 0 {
		t.Fatalf("got %d spans, %d dropped", len(b.Spans), len(b.Dropped))
	}
	s := b.Spans[0]
	want := map[string][2]any{
		"environment":    {s.Environment, "staging"},
		"timestamp":      {s.Timestamp, t0.UnixMilli()},
		"duration":       {s.Duration, int64(1500)},
		"trace_id":       {s.TraceID, "0102030405060708090a0b0c0d0e0f10"},
		"span_id":        {s.SpanID, "0101010101010101"},
		"parent_span_id": {s.ParentSpanID, "0202020202020202"},
		"trace_state":    {s.TraceState, "vendor=x"},
		"span_kind":      {s.SpanKind, "SPAN_KIND_CLIENT"},
		"status_code":    {s.StatusCode, "STATUS_CODE_OK"},
		"service_name":   {s.ServiceName, "jokes-svc"},
		"scope":          {s.ScopeName + " " + s.ScopeVersion, "openllmetry 0.27.0"},
		"int attr":       {s.SpanAttributes["llm.usage.total_tokens"], "42"},
		"bool attr":      {s.SpanAttributes["llm.is_streaming"], "false"},
		"prompt":         {s.Prompts["llm.prompts.0.content"], "Tell me a joke"},
		"completion":     {s.Completions["llm.completions.0.content"], "A pirate walks into a bar"},
		"input":          {s.Input, "Tell me a joke"},
		"output":         {s.Output, "A pirate walks into a bar"},
		"workflow":       {s.WorkflowName, "jokes"},
		"response model": {s.ResponseModel, "gpt-4o-2024-08-06"},
		"tokens":         {s.TotalTokens, int64(42)},
		"vendor":         {s.Vendor, "openai"},
	}
	for name, w := range want {
		if w[0] != w[1] {
			t.Errorf("%s = %v, want %v", name, w[0], w[1])
		}
	}
	if len(s.Evaluations) != 3 {
		t.Fatalf("got %d evaluations, want 3 (other events ignored)", len(s.Evaluations))
	}
	if e := s.Evaluations[2]; e.Name != "pii-detector" || e.Error != "timeout: evaluation exceeded 2s" {
		t.Errorf("failed evaluation = %+v", e)
	}
}

func TestEnvironmentPrecedence(t *testing.T) {
	tests := []struct {
		attrs map[string]string
		want  string
	}{
		{map[string]string{"deployment.environment.name": "new", "deployment.environment": "old"}, "new"},
		{map[string]string{"deployment.environment": "old"}, "old"},
		{nil, "fallback"},
	}
	for _, tt := range tests {
		if got := Traces(chatTraces(tt.attrs), Options{DefaultEnvironment: "fallback"}).Spans[0].Environment; got != tt.want {
			t.Errorf("attrs %v: environment %q, want %q", tt.attrs, got, tt.want)
		}
	}
}

func TestEvaluationPoints(t *testing.T) {
	b := Traces(chatTraces(map[string]string{"service.name": "jokes-svc"}), Options{
		DefaultEnvironment: "prod", Organization: func(env string) string { return "org-of-" + env },
	})
	byName := map[string]warehouse.MetricPoint{}
	for _, p := range b.Points {
		byName[p.MetricName] = p
	}
	if len(b.Points) != 2 {
		t.Fatalf("got %d points %v, want toxicity-detector.is_safe and uncertainty-detector.uncertainty", len(b.Points), byName)
	}
	tox := byName["toxicity-detector.is_safe"]
	if tox.EnumValue == nil || *tox.EnumValue != "safe" || tox.BoolValue != nil || tox.NumericValue != nil {
		t.Errorf("toxicity point values = %v %v %v, want enum safe only", tox.EnumValue, tox.BoolValue, tox.NumericValue)
	}
	if tox.EventTime != t0.Add(1500*time.Millisecond).UnixMilli() || tox.OrganizationID != "org-of-prod" || tox.Source != "evaluator" {
		t.Errorf("toxicity point = %+v", tox)
	}
	wantLabels := map[string]string{
		"evaluator_name": "toxicity-detector", "metric_source": "evaluator", "monitor_id": "mon-1", "trace_id": "0102030405060708090a0b0c0d0e0f10",
		"span_id": "0101010101010101", "service_name": "jokes-svc", "environment": "prod", "workflow": "jokes", "model": "gpt-4o-2024-08-06", "vendor": "openai",
		"verdict": "pass",
	}
	for k, v := range wantLabels {
		if tox.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, tox.Labels[k], v)
		}
	}
	if tox.Attributes["customer"] != "acme" {
		t.Errorf("attributes lack the span's attribute customer: %v", tox.Attributes)
	}
	if _, ok := tox.Attributes["llm.prompts.0.content"]; ok {
		t.Errorf("attributes copy prompt text: %v", tox.Attributes)
	}
	unc := byName["uncertainty-detector.uncertainty"]
	if unc.NumericValue == nil || *unc.NumericValue != 0.25 || unc.Labels["answer"] != "A pirate walks into a bar" {
		t.Errorf("uncertainty point = %+v (labels %v)", unc, unc.Labels)
	}
	// The stored evaluations carry the verdict the catalogue decides
	// (safe passes; uncertainty 0.25 < 0.5 passes; the timeout is an
	// error).
	want := map[string]string{"toxicity-detector": "pass", "uncertainty-detector": "pass", "pii-detector": "error"}
	for _, ev := range b.Spans[0].Evaluations {
		if ev.Verdict != want[ev.Name] {
			t.Errorf("evaluation %s verdict %q, want %q", ev.Name, ev.Verdict, want[ev.Name])
		}
	}
	if tm := b.Spans[0].Evaluations[0].Time; tm != t0.Add(1600*time.Millisecond).UnixMilli() {
		t.Errorf("evaluation time %d, want the event's", tm)
	}
}

// TestVerdicts: each evaluation gets the verdict of evaluators.VerdictOf
// (fail, pass, error; none for an evaluator outside the catalogue), and
// its metric points the same verdict label.
func TestVerdicts(t *testing.T) {
	td := chatTraces(nil)
	sp := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	sp.Events().RemoveIf(func(ptrace.SpanEvent) bool { return true })
	add := func(name string, fill func(pcommon.Map)) {
		ev := sp.Events().AppendEmpty()
		ev.SetName(genai.EvaluationEvent)
		ev.Attributes().PutStr(genai.AttrEvaluationName, name)
		fill(ev.Attributes())
	}
	add("toxicity-detector", func(a pcommon.Map) { a.PutStr(genai.AttrEvaluationOutputPrefix+"is_safe", "unsafe") })
	add("pii-detector", func(a pcommon.Map) { a.PutBool(genai.AttrEvaluationOutputPrefix+"has_pii", false) })
	add("secrets-detector", func(a pcommon.Map) {
		a.PutStr(genai.AttrErrorType, "timeout")
		a.PutStr(genai.AttrEvaluationErrorMessage, "evaluation timed out after 2s")
	})
	add("my-own-judge", func(a pcommon.Map) { a.PutDouble(genai.AttrEvaluationOutputPrefix+"score", 0.1) })
	b := Traces(td, Options{DefaultEnvironment: "prod"})
	got := map[string]string{}
	for _, ev := range b.Spans[0].Evaluations {
		got[ev.Name] = ev.Verdict
	}
	want := map[string]string{"toxicity-detector": "fail", "pii-detector": "pass", "secrets-detector": "error", "my-own-judge": ""}
	if !maps.Equal(got, want) {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	for _, p := range b.Points {
		v, ok := p.Labels["verdict"]
		if w := want[p.Labels["evaluator_name"]]; v != w || ok != (w != "") {
			t.Errorf("point %s: verdict label %q (present %v), want %q", p.MetricName, v, ok, w)
		}
	}
	if idx := warehouse.VerdictIndex(b.Spans[0].Evaluations); !strings.Contains(idx, warehouse.VerdictNeedle("toxicity-detector", "fail")) ||
		strings.Contains(idx, warehouse.VerdictNeedle("pii-detector", "fail")) || !strings.Contains(idx, warehouse.VerdictNeedle("", "error")) {
		t.Errorf("verdict index %q", idx)
	}
}

func TestDropsSpanWithoutIDs(t *testing.T) {
	td := chatTraces(nil)
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().AppendEmpty().SetName("no ids")
	b := Traces(td, Options{DefaultEnvironment: "d"})
	if len(b.Spans) != 1 || len(b.Dropped) != 1 || b.Dropped[0].Reason != "empty trace or span id" {
		t.Fatalf("spans %d dropped %+v", len(b.Spans), b.Dropped)
	}
}

func TestMetrics(t *testing.T) {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "svc")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	ts := pcommon.NewTimestampFromTime(t0)

	g := ms.AppendEmpty()
	g.SetName("queue.depth")
	dp := g.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetIntValue(7)
	dp.SetTimestamp(ts)
	dp.Attributes().PutStr("queue", "a")

	h := ms.AppendEmpty()
	h.SetName("latency")
	h.SetUnit("ms")
	hp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
	hp.SetTimestamp(ts)
	hp.SetCount(6)
	hp.SetSum(42.5)
	hp.ExplicitBounds().FromRaw([]float64{10, 100})
	hp.BucketCounts().FromRaw([]uint64{1, 3, 2})

	pts := Metrics(md, Options{DefaultEnvironment: "prod"})
	type row struct {
		name, le string
		v        float64
	}
	var got []row
	for _, p := range pts {
		if p.Source != "otlp" || p.Labels["metric_source"] != "otlp" || p.Environment != "prod" || p.EventTime != t0.UnixMilli() || p.NumericValue == nil {
			t.Errorf("point %+v lacks source, environment, time or value", p)
			continue
		}
		got = append(got, row{p.MetricName, p.Labels["le"], *p.NumericValue})
	}
	want := []row{{"queue.depth", "", 7}, {"latency.count", "", 6}, {"latency.sum", "", 42.5}, {"latency.bucket", "10", 1}, {"latency.bucket", "100", 3}, {"latency.bucket", "+Inf", 2}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
	if pts[0].Attributes["queue"] != "a" || pts[1].Labels["unit"] != "ms" {
		t.Errorf("attributes %v / labels %v", pts[0].Attributes, pts[1].Labels)
	}
}

// TestRedactContent: drop removes the prompt and completion text
// everywhere it is stored (prompts, completions, input, output, the
// content attributes) and hash replaces it by its SHA-256; everything
// else of the span, and the evaluation points, stay.
func TestRedactContent(t *testing.T) {
	td := chatTraces(map[string]string{"service.name": "jokes-svc"})
	a := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes()
	a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Tell me a joke"}]}]`)
	a.PutStr("traceloop.entity.output", "A pirate walks into a bar")
	plain := Traces(td, Options{DefaultEnvironment: "default"})
	for _, mode := range []string{RedactDrop, RedactHash} {
		t.Run(mode, func(t *testing.T) {
			b := Traces(td, Options{DefaultEnvironment: "default", Redact: mode})
			s := b.Spans[0]
			for k, v := range s.SpanAttributes {
				for _, text := range []string{"Tell me a joke", "A pirate walks into a bar"} {
					if v == text || len(v) > len(text) && strings.Contains(v, text) {
						t.Errorf("attribute %s still holds %q", k, text)
					}
				}
			}
			for _, k := range []string{"customer", "llm.request.model", "llm.usage.total_tokens", "traceloop.workflow.name"} {
				if s.SpanAttributes[k] != plain.Spans[0].SpanAttributes[k] {
					t.Errorf("attribute %s = %q, want it kept (%q)", k, s.SpanAttributes[k], plain.Spans[0].SpanAttributes[k])
				}
			}
			if s.WorkflowName != "jokes" || s.TotalTokens != 42 || len(s.Evaluations) != 3 || len(b.Points) != len(plain.Points) {
				t.Errorf("derived columns, evaluations or points changed: %+v, %d points", s, len(b.Points))
			}
			switch mode {
			case RedactDrop:
				if len(s.Prompts) != 0 || len(s.Completions) != 0 || s.Input != "" || s.Output != "" {
					t.Errorf("drop kept %v %v %q %q", s.Prompts, s.Completions, s.Input, s.Output)
				}
				if _, ok := s.SpanAttributes["llm.prompts.0.content"]; ok {
					t.Error("drop kept llm.prompts.0.content")
				}
			case RedactHash:
				sum := sha256.Sum256([]byte("Tell me a joke"))
				h := "sha256:" + hex.EncodeToString(sum[:])
				if s.Input != h || s.SpanAttributes["llm.prompts.0.content"] != h || s.Prompts["llm.prompts.0.content"] != h {
					t.Errorf("hash: input %q, attribute %q, prompt %q; want %q", s.Input, s.SpanAttributes["llm.prompts.0.content"], s.Prompts["llm.prompts.0.content"], h)
				}
				if len(s.Prompts) != len(plain.Spans[0].Prompts) {
					t.Errorf("hash changed the prompt keys: %v", s.Prompts)
				}
			}
		})
	}
	if err := CheckRedact("mask"); err == nil {
		t.Error("CheckRedact accepted mask")
	}
}
