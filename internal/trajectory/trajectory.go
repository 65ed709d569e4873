// Package trajectory reads an agent's trajectory from the stored spans of
// one trace: its LLM calls and tool calls in start order, as OpenLLMetry
// (traceloop.span.kind, gen_ai.prompt/completion), OpenInference
// (openinference.span.kind, llm.input_messages, tool.name, input.value)
// and the OpenTelemetry GenAI conventions (gen_ai.operation.name
// execute_tool, gen_ai.tool.name, gen_ai.tool.call.arguments) record them.
// Trace-level monitors build the inputs of agent evaluators from it.
package trajectory

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/evalcol/evalcol/internal/genai"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// Step kinds.
const (
	KindLLM  = "llm"
	KindTool = "tool"
)

// Step is one LLM call or tool call of the trajectory.
type Step struct {
	Kind   string
	SpanID string
	// Prompt is the LLM call's last user message, or the tool's input.
	Prompt string
	// Completion is the LLM call's answer, or the tool's output.
	Completion string
	// Tool is the tool's name (KindTool).
	Tool string
	// Error is set when the span's status is an error.
	Error bool
}

// Trajectory is a trace's steps in start order, and its root span.
type Trajectory struct {
	Steps []Step
	// Root is the trace's root span (no parent), else its earliest span.
	Root warehouse.Span
	// Question is the first user message of the trace's LLM calls (else
	// the root's entity input), Answer the last LLM answer (else the
	// root's entity output).
	Question, Answer string
}

// FromSpans builds the trajectory of one trace's spans (any order).
func FromSpans(spans []warehouse.Span) Trajectory {
	var t Trajectory
	if len(spans) == 0 {
		return t
	}
	ordered := append([]warehouse.Span(nil), spans...)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Timestamp < ordered[j].Timestamp })
	t.Root = ordered[0]
	for _, s := range ordered {
		if s.ParentSpanID == "" {
			t.Root = s
			break
		}
	}
	for _, s := range ordered {
		c := genai.ExtractStrings(s.SpanAttributes)
		isErr := s.StatusCode == "STATUS_CODE_ERROR"
		if name, ok := toolName(s, &c); ok {
			t.Steps = append(t.Steps, Step{Kind: KindTool, SpanID: s.SpanID, Tool: name, Prompt: toolArguments(s, &c),
				Completion: toolResult(s, &c), Error: isErr})
			continue
		}
		prompt, answer := c.LastUserPrompt(), c.LastCompletion()
		if prompt == "" && answer == "" {
			continue // a workflow's, task's or agent's own span
		}
		t.Steps = append(t.Steps, Step{Kind: KindLLM, SpanID: s.SpanID, Prompt: prompt, Completion: answer, Error: isErr})
		if t.Question == "" {
			t.Question = c.FirstUserPrompt()
		}
		if answer != "" {
			t.Answer = answer
		}
	}
	if t.Question == "" || t.Answer == "" {
		rc := genai.ExtractStrings(t.Root.SpanAttributes)
		if t.Question == "" {
			t.Question = rc.Input
		}
		if t.Answer == "" {
			t.Answer = rc.Output
		}
	}
	return t
}

// toolName returns the name of a tool span (ok false for other spans).
func toolName(s warehouse.Span, c *genai.Content) (string, bool) {
	a := s.SpanAttributes
	isTool := c.SpanKind == "tool" || a["gen_ai.operation.name"] == "execute_tool" || strings.EqualFold(a["openinference.span.kind"], "TOOL")
	if !isTool {
		return "", false
	}
	for _, k := range []string{"gen_ai.tool.name", "tool.name", "traceloop.entity.name"} {
		if v := a[k]; v != "" {
			return v, true
		}
	}
	return s.SpanName, true
}

func toolArguments(s warehouse.Span, c *genai.Content) string {
	for _, k := range []string{"gen_ai.tool.call.arguments", "tool.parameters", "traceloop.entity.input", "input.value"} {
		if v := s.SpanAttributes[k]; v != "" {
			return v
		}
	}
	return c.Input
}

func toolResult(s warehouse.Span, c *genai.Content) string {
	for _, k := range []string{"gen_ai.tool.call.result", "traceloop.entity.output", "output.value"} {
		if v := s.SpanAttributes[k]; v != "" {
			return v
		}
	}
	return c.Output
}

// Inputs returns the trajectory as the inputs agent evaluators take:
// trajectory_prompts and trajectory_completions (JSON arrays of the
// steps' prompts and completions), prompts and completions (of the LLM
// calls only: the conversation), executed_tool_calls (a JSON array of
// {name, arguments}), question (also query), completion (the final
// answer; also answer, response and text), and tool_input / tool_output
// of the last failed tool call, else of the last tool call. Empty inputs
// are left out.
func (t Trajectory) Inputs() map[string]string {
	in := map[string]string{}
	var prompts, completions, userTurns, answers []string
	type call struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments,omitempty"`
	}
	calls := []call{}
	var lastTool, failedTool *Step
	for i := range t.Steps {
		st := &t.Steps[i]
		prompts = append(prompts, st.Prompt)
		completions = append(completions, st.Completion)
		if st.Kind == KindLLM {
			userTurns = append(userTurns, st.Prompt)
			answers = append(answers, st.Completion)
		}
		if st.Kind == KindTool {
			var args any
			if st.Prompt != "" {
				if json.Valid([]byte(st.Prompt)) {
					args = json.RawMessage(st.Prompt)
				} else {
					args = st.Prompt
				}
			}
			calls = append(calls, call{Name: st.Tool, Arguments: args})
			lastTool = st
			if st.Error {
				failedTool = st
			}
		}
	}
	if len(t.Steps) > 0 {
		in["trajectory_prompts"] = jsonText(prompts)
		in["trajectory_completions"] = jsonText(completions)
	}
	if len(userTurns) > 0 {
		in["prompts"], in["completions"] = jsonText(userTurns), jsonText(answers)
	}
	if len(calls) > 0 {
		in["executed_tool_calls"] = jsonText(calls)
	}
	if failedTool != nil {
		lastTool = failedTool
	}
	if lastTool != nil {
		in["tool_input"], in["tool_output"] = lastTool.Prompt, lastTool.Completion
	}
	in["question"], in["query"] = t.Question, t.Question
	for _, k := range []string{"completion", "answer", "response", "text"} {
		in[k] = t.Answer
	}
	for k, v := range in {
		if v == "" {
			delete(in, k)
		}
	}
	return in
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
