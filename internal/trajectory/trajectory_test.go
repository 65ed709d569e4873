package trajectory

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// agentTrace is an OpenLLMetry agent's trace, out of order: a workflow
// root, an LLM call that asks for a tool, the tool (OpenLLMetry), a
// second tool in the GenAI conventions that fails, an OpenInference tool,
// and the final LLM answer.
func agentTrace() []warehouse.Span {
	return []warehouse.Span{
		{SpanID: "llm2", ParentSpanID: "root", Timestamp: 500, SpanAttributes: map[string]string{
			"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Book a flight to Oslo",
			"gen_ai.prompt.1.role": "tool", "gen_ai.prompt.1.content": `{"flight": "SK123"}`,
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Booked SK123 to Oslo."}},
		{SpanID: "root", Timestamp: 100, Duration: 600, SpanName: "trip_agent.workflow", SpanAttributes: map[string]string{
			"traceloop.span.kind": "workflow", "traceloop.workflow.name": "trip_agent",
			"traceloop.entity.input": `{"request": "Book a flight to Oslo"}`}},
		{SpanID: "llm1", ParentSpanID: "root", Timestamp: 150, SpanAttributes: map[string]string{
			"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Book a flight to Oslo",
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Calling search_flights."}},
		{SpanID: "tool1", ParentSpanID: "root", Timestamp: 200, SpanName: "search_flights.tool", SpanAttributes: map[string]string{
			"traceloop.span.kind": "tool", "traceloop.entity.name": "search_flights",
			"traceloop.entity.input": `{"to": "OSL"}`, "traceloop.entity.output": `{"flight": "SK123"}`}},
		{SpanID: "tool2", ParentSpanID: "root", Timestamp: 300, StatusCode: "STATUS_CODE_ERROR", SpanAttributes: map[string]string{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "book_hotel",
			"gen_ai.tool.call.arguments": `{"city": "Oslo"}`, "gen_ai.tool.call.result": "error: no rooms"}},
		{SpanID: "tool3", ParentSpanID: "root", Timestamp: 400, SpanAttributes: map[string]string{
			"openinference.span.kind": "TOOL", "tool.name": "book_flight", "input.value": "SK123", "output.value": "confirmed"}},
	}
}

func TestFromSpans(t *testing.T) {
	tr := FromSpans(agentTrace())
	if tr.Root.SpanID != "root" {
		t.Errorf("root = %s, want the span without a parent", tr.Root.SpanID)
	}
	var kinds, ids []string
	for _, s := range tr.Steps {
		kinds, ids = append(kinds, s.Kind), append(ids, s.SpanID)
	}
	if want := []string{"llm1", "tool1", "tool2", "tool3", "llm2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("steps = %v, want %v in start order, the workflow's own span left out", ids, want)
	}
	if want := []string{KindLLM, KindTool, KindTool, KindTool, KindLLM}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("kinds = %v, want %v", kinds, want)
	}
	if tr.Question != "Book a flight to Oslo" || tr.Answer != "Booked SK123 to Oslo." {
		t.Errorf("question %q, answer %q", tr.Question, tr.Answer)
	}
	in := tr.Inputs()
	var calls []map[string]any
	if err := json.Unmarshal([]byte(in["executed_tool_calls"]), &calls); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || calls[0]["name"] != "search_flights" || calls[1]["name"] != "book_hotel" || calls[2]["name"] != "book_flight" ||
		!reflect.DeepEqual(calls[0]["arguments"], map[string]any{"to": "OSL"}) || calls[2]["arguments"] != "SK123" {
		t.Errorf("executed_tool_calls = %s", in["executed_tool_calls"])
	}
	var prompts, completions []string
	_ = json.Unmarshal([]byte(in["trajectory_prompts"]), &prompts)
	_ = json.Unmarshal([]byte(in["trajectory_completions"]), &completions)
	if len(prompts) != 5 || len(completions) != 5 || prompts[1] != `{"to": "OSL"}` || completions[4] != "Booked SK123 to Oslo." {
		t.Errorf("trajectory = %q / %q", prompts, completions)
	}
	var conv []string
	_ = json.Unmarshal([]byte(in["completions"]), &conv)
	if len(conv) != 2 {
		t.Errorf("completions (the LLM calls only) = %q", conv)
	}
	if in["tool_input"] != `{"city": "Oslo"}` || in["tool_output"] != "error: no rooms" {
		t.Errorf("tool input/output = %q / %q, want the failed call's", in["tool_input"], in["tool_output"])
	}
	for _, k := range []string{"completion", "answer", "response", "text"} {
		if in[k] != "Booked SK123 to Oslo." {
			t.Errorf("%s = %q, want the final answer", k, in[k])
		}
	}
}

func TestWithoutLLMCallsTheRootSpeaks(t *testing.T) {
	tr := FromSpans([]warehouse.Span{{SpanID: "root", SpanAttributes: map[string]string{
		"traceloop.span.kind": "workflow", "traceloop.entity.input": "hello", "traceloop.entity.output": "bye"}}})
	if tr.Question != "hello" || tr.Answer != "bye" || len(tr.Steps) != 0 {
		t.Errorf("trajectory = %+v", tr)
	}
	in := tr.Inputs()
	if _, ok := in["trajectory_prompts"]; ok {
		t.Errorf("a trace without steps has trajectory inputs: %v", in)
	}
	if len(FromSpans(nil).Inputs()) != 0 {
		t.Error("no spans, some inputs")
	}
}
