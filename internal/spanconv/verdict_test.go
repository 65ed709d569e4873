package spanconv

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/genai"
)

// TestVerdictReadAsRecorded: the warehouse keeps the verdict the
// evaluator processor decided; only an event without one (written by
// another tool) gets the evaluator's pass condition applied.
func TestVerdictReadAsRecorded(t *testing.T) {
	td := ptrace.NewTraces()
	span := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.SetTraceID([16]byte{1})
	span.SetSpanID([8]byte{1})
	recorded := span.Events().AppendEmpty()
	recorded.SetName(genai.EvaluationEvent)
	recorded.Attributes().PutStr(genai.AttrEvaluationName, "toxicity-detector")
	recorded.Attributes().PutStr(genai.AttrEvaluationOutputPrefix+"is_safe", "safe")
	recorded.Attributes().PutStr(genai.AttrEvaluationVerdict, "fail") // as decided then, whatever the output says now
	foreign := span.Events().AppendEmpty()
	foreign.SetName(genai.EvaluationEvent)
	foreign.Attributes().PutStr(genai.AttrEvaluationName, "toxicity-detector")
	foreign.Attributes().PutStr(genai.AttrEvaluationOutputPrefix+"is_safe", "safe")
	foreign.Attributes().PutStr(genai.AttrEvaluationVerdict, "maybe") // not a verdict: decided again
	b := Traces(td, Options{DefaultEnvironment: "prod"})
	if len(b.Spans) != 1 || len(b.Spans[0].Evaluations) != 2 {
		t.Fatalf("converted %+v", b.Spans)
	}
	if got := b.Spans[0].Evaluations[0].Verdict; got != "fail" {
		t.Errorf("recorded verdict read as %q, want fail", got)
	}
	if got := b.Spans[0].Evaluations[1].Verdict; got != "pass" {
		t.Errorf("an event without a valid verdict: %q, want pass (decided by the pass condition)", got)
	}
}
