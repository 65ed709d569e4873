package genai

import (
	"reflect"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

func attrMap(t testing.TB, raw map[string]any) pcommon.Map {
	t.Helper()
	m := pcommon.NewMap()
	if err := m.FromRaw(raw); err != nil {
		t.Fatalf("FromRaw: %v", err)
	}
	return m
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		want  Content
	}{
		{
			name: "legacy OpenLLMetry llm.prompts",
			attrs: map[string]any{
				"llm.request.type":                "chat",
				"llm.vendor":                      "OpenAI",
				"llm.request.model":               "gpt-3.5-turbo",
				"llm.response.model":              "gpt-3.5-turbo-0125",
				"llm.prompts.0.role":              "system",
				"llm.prompts.0.content":           "Answer from the context. Context: Paris is the capital of France.",
				"llm.prompts.1.role":              "user",
				"llm.prompts.1.content":           "What is the capital of France?",
				"llm.completions.0.role":          "assistant",
				"llm.completions.0.content":       "Paris.",
				"llm.completions.0.finish_reason": "stop",
				"llm.usage.prompt_tokens":         25,
				"llm.usage.completion_tokens":     2,
				"llm.usage.total_tokens":          27,
				"traceloop.workflow.name":         "qa",
				"traceloop.entity.name":           "openai.chat",
			},
			want: Content{
				Prompts: []Message{
					{Role: "system", Content: "Answer from the context. Context: Paris is the capital of France."},
					{Role: "user", Content: "What is the capital of France?"},
				},
				Completions:   []Message{{Role: "assistant", Content: "Paris.", FinishReason: "stop"}},
				Input:         "What is the capital of France?",
				Output:        "Paris.",
				RequestModel:  "gpt-3.5-turbo",
				ResponseModel: "gpt-3.5-turbo-0125",
				Vendor:        "OpenAI",
				InputTokens:   25, OutputTokens: 2, TotalTokens: 27,
				Workflow: "qa", Entity: "openai.chat",
			},
		},
		{
			name: "OpenLLMetry 0.8-0.22 gen_ai.prompt with string token counts",
			attrs: map[string]any{
				"gen_ai.system":                      "Anthropic",
				"gen_ai.request.model":               "claude-3-haiku-20240307",
				"gen_ai.response.model":              "claude-3-haiku-20240307",
				"llm.request.type":                   "chat",
				"gen_ai.prompt.0.role":               "user",
				"gen_ai.prompt.0.content":            "Tell me a joke about OpenTelemetry",
				"gen_ai.completion.0.role":           "assistant",
				"gen_ai.completion.0.content":        "Why did the span cross the road?",
				"gen_ai.completion.0.finish_reason":  "end_turn",
				"gen_ai.usage.prompt_tokens":         "14",
				"gen_ai.usage.completion_tokens":     "9",
				"traceloop.workflow.name":            "joke_generator",
				"traceloop.entity.name":              "anthropic.chat",
				"traceloop.association.properties.x": "y",
			},
			want: Content{
				Prompts:       []Message{{Role: "user", Content: "Tell me a joke about OpenTelemetry"}},
				Completions:   []Message{{Role: "assistant", Content: "Why did the span cross the road?", FinishReason: "end_turn"}},
				Input:         "Tell me a joke about OpenTelemetry",
				Output:        "Why did the span cross the road?",
				RequestModel:  "claude-3-haiku-20240307",
				ResponseModel: "claude-3-haiku-20240307",
				Vendor:        "Anthropic",
				InputTokens:   14, OutputTokens: 9, TotalTokens: 23,
				Workflow: "joke_generator", Entity: "anthropic.chat",
			},
		},
		{
			name: "GenAI semconv input/output messages JSON with system instructions and tool result",
			attrs: map[string]any{
				"gen_ai.operation.name":      "chat",
				"gen_ai.provider.name":       "openai",
				"gen_ai.system":              "OpenAI",
				"gen_ai.request.model":       "gpt-4o-mini",
				"gen_ai.response.model":      "gpt-4o-mini-2024-07-18",
				"gen_ai.system_instructions": `[{"type":"text","content":"You are a weather bot."}]`,
				"gen_ai.input.messages": `[{"role":"user","parts":[{"type":"text","content":"Weather in Paris?"}]},` +
					`{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
					`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":"rainy, 57F"}]},` +
					`{"role":"user","parts":[{"type":"text","content":"And tomorrow?"}]}]`,
				"gen_ai.output.messages":         `[{"role":"assistant","parts":[{"type":"text","content":"Tomorrow will be sunny."}],"finish_reason":"stop"}]`,
				"gen_ai.usage.input_tokens":      120,
				"gen_ai.usage.output_tokens":     7,
				"gen_ai.response.finish_reasons": []any{"stop"},
				"gen_ai.agent.name":              "weather-agent",
				"traceloop.workflow.name":        "assistant",
			},
			want: Content{
				Prompts: []Message{
					{Role: "system", Content: "You are a weather bot."},
					{Role: "user", Content: "Weather in Paris?"},
					{Role: "assistant"},
					{Role: "tool", Content: "rainy, 57F"},
					{Role: "user", Content: "And tomorrow?"},
				},
				Completions:   []Message{{Role: "assistant", Content: "Tomorrow will be sunny.", FinishReason: "stop"}},
				Input:         "Weather in Paris?",
				Output:        "Tomorrow will be sunny.",
				RequestModel:  "gpt-4o-mini",
				ResponseModel: "gpt-4o-mini-2024-07-18",
				Vendor:        "openai",
				InputTokens:   120, OutputTokens: 7, TotalTokens: 127,
				Workflow: "assistant", Agent: "weather-agent",
			},
		},
		{
			name: "GenAI semconv finish reasons from the span attribute",
			attrs: map[string]any{
				"gen_ai.input.messages":          `[{"role":"user","parts":[{"type":"text","content":"hi"}]}]`,
				"gen_ai.output.messages":         `[{"role":"assistant","parts":[{"type":"text","content":"hello"}]}]`,
				"gen_ai.response.finish_reasons": []any{"length"},
			},
			want: Content{
				Prompts:     []Message{{Role: "user", Content: "hi"}},
				Completions: []Message{{Role: "assistant", Content: "hello", FinishReason: "length"}},
				Input:       "hi", Output: "hello",
			},
		},
		{
			name: "OpenInference llm.input_messages",
			attrs: map[string]any{
				"openinference.span.kind":                  "LLM",
				"llm.model_name":                           "gpt-4o-mini-2024-07-18",
				"llm.provider":                             "openai",
				"llm.system":                               "openai",
				"input.value":                              `{"messages":[{"role":"system","content":"Be terse."},{"role":"user","content":"2+2?"}],"model":"gpt-4o-mini"}`,
				"input.mime_type":                          "application/json",
				"output.value":                             `{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"4"}}]}`,
				"llm.input_messages.0.message.role":        "system",
				"llm.input_messages.0.message.content":     "Be terse.",
				"llm.input_messages.1.message.role":        "user",
				"llm.input_messages.1.message.content":     "2+2?",
				"llm.output_messages.0.message.role":       "assistant",
				"llm.output_messages.0.message.content":    "4",
				"llm.token_count.prompt":                   20,
				"llm.token_count.completion":               1,
				"llm.token_count.total":                    21,
				"llm.invocation_parameters":                `{"model":"gpt-4o-mini"}`,
				"llm.output_messages.0.message.tool_calls": "ignored",
			},
			want: Content{
				Prompts:       []Message{{Role: "system", Content: "Be terse."}, {Role: "user", Content: "2+2?"}},
				Completions:   []Message{{Role: "assistant", Content: "4"}},
				Input:         "2+2?",
				Output:        "4",
				RequestModel:  "gpt-4o-mini-2024-07-18",
				ResponseModel: "gpt-4o-mini-2024-07-18",
				Vendor:        "openai",
				InputTokens:   20, OutputTokens: 1, TotalTokens: 21,
			},
		},
		{
			name: "OpenInference multi-part contents",
			attrs: map[string]any{
				"llm.input_messages.0.message.role":                                       "user",
				"llm.input_messages.0.message.contents.0.message_content.type":            "text",
				"llm.input_messages.0.message.contents.0.message_content.text":            "What is in this image?",
				"llm.input_messages.0.message.contents.1.message_content.type":            "image",
				"llm.input_messages.0.message.contents.1.message_content.image.image.url": "https://example.com/cat.png",
			},
			want: Content{
				Prompts: []Message{{Role: "user", Content: "What is in this image?"}},
				Input:   "What is in this image?",
			},
		},
		{
			name: "OpenInference chain span with input.value only",
			attrs: map[string]any{
				"openinference.span.kind": "CHAIN",
				"input.value":             "summarise the report",
				"output.value":            "the report says ...",
			},
			want: Content{Input: "summarise the report", Output: "the report says ..."},
		},
		{
			name: "Traceloop workflow span with entity input and output",
			attrs: map[string]any{
				"traceloop.span.kind":     "workflow",
				"traceloop.workflow.name": "rag_pipeline",
				"traceloop.entity.name":   "rag_pipeline",
				"traceloop.entity.input":  `{"args":["What is evalcol?"],"kwargs":{}}`,
				"traceloop.entity.output": `"An OpenTelemetry collector that evaluates LLM spans."`,
			},
			want: Content{
				Input:    `{"args":["What is evalcol?"],"kwargs":{}}`,
				Output:   `"An OpenTelemetry collector that evaluates LLM spans."`,
				Workflow: "rag_pipeline", Entity: "rag_pipeline", SpanKind: "workflow",
			},
		},
		{
			name: "Traceloop agent span names the agent",
			attrs: map[string]any{
				"traceloop.span.kind":     "agent",
				"traceloop.workflow.name": "research",
				"traceloop.entity.name":   "researcher",
			},
			want: Content{Workflow: "research", Entity: "researcher", Agent: "researcher", SpanKind: "agent"},
		},
		{
			name: "legacy multi-part content JSON and index holes",
			attrs: map[string]any{
				"llm.prompts.0.role":    "user",
				"llm.prompts.0.content": `[{"type":"text","text":"Describe this"},{"type":"image_url","image_url":{"url":"data:..."}}]`,
				"llm.prompts.3.role":    "user",
				"llm.prompts.3.content": "[not json",
			},
			want: Content{
				Prompts: []Message{{Role: "user", Content: "Describe this"}, {Role: "user", Content: "[not json"}},
				Input:   "Describe this",
			},
		},
		{
			name: "absurd message index is ignored",
			attrs: map[string]any{
				"llm.prompts.99999999999.content": "huge",
				"llm.prompts.x.content":           "bad",
				"llm.prompts.0":                   "no field",
				"llm.prompts.0.content":           "ok",
			},
			want: Content{Prompts: []Message{{Content: "ok"}}, Input: "ok"},
		},
		{
			name: "invalid gen_ai.input.messages falls back to indexed prompts",
			attrs: map[string]any{
				"gen_ai.input.messages":   `{"oops":`,
				"gen_ai.prompt.0.role":    "user",
				"gen_ai.prompt.0.content": "fallback",
			},
			want: Content{Prompts: []Message{{Role: "user", Content: "fallback"}}, Input: "fallback"},
		},
		{
			name: "vendor precedence and plain-string system instructions",
			attrs: map[string]any{
				"llm.vendor":                 "OpenAI",
				"gen_ai.provider.name":       "azure.ai.openai",
				"gen_ai.system_instructions": "Be kind.",
				"gen_ai.input.messages":      `[{"role":"user","content":"hello"}]`,
			},
			want: Content{
				Prompts: []Message{{Role: "system", Content: "Be kind."}, {Role: "user", Content: "hello"}},
				Input:   "hello",
				Vendor:  "azure.ai.openai",
			},
		},
		{
			name: "message content as a list of parts and a structured tool response",
			attrs: map[string]any{
				"gen_ai.input.messages": `[{"role":"user","content":[{"type":"text","text":"Look:"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"what is it?"}]},` +
					`{"role":"tool","parts":[{"type":"tool_call_response","id":"c1","response":{"temp":21,"unit":"C"}}]}]`,
			},
			want: Content{
				Prompts: []Message{
					{Role: "user", Content: "Look:\nwhat is it?"},
					{Role: "tool", Content: `{"temp":21,"unit":"C"}`},
				},
				Input: "Look:\nwhat is it?",
			},
		},
		{
			name: "OpenInference text parts joined in part order",
			attrs: map[string]any{
				"llm.output_messages.0.message.role":                                 "assistant",
				"llm.output_messages.0.message.contents.10.message_content.text":     "third",
				"llm.output_messages.0.message.contents.2.message_content.text":      "second",
				"llm.output_messages.0.message.contents.0.message_content.text":      "first",
				"llm.output_messages.0.message.contents.1.message_content.image.url": "https://example.com/x.png",
			},
			want: Content{
				Completions: []Message{{Role: "assistant", Content: "first\nsecond\nthird"}},
				Output:      "first\nsecond\nthird",
			},
		},
		{
			name: "finish reasons as JSON text",
			attrs: map[string]any{
				"gen_ai.completion.0.role":       "assistant",
				"gen_ai.completion.0.content":    "Hi.",
				"gen_ai.response.finish_reasons": `["stop"]`,
			},
			want: Content{
				Completions: []Message{{Role: "assistant", Content: "Hi.", FinishReason: "stop"}},
				Output:      "Hi.",
			},
		},
		{
			name: "typed values: structured content parts, numeric finish reasons",
			attrs: map[string]any{
				"llm.prompts.0.role":             "user",
				"llm.prompts.0.content":          []any{map[string]any{"type": "text", "text": "Describe"}, map[string]any{"type": "image_url"}},
				"llm.completions.0.content":      "A cat.",
				"gen_ai.response.finish_reasons": []any{int64(1)},
			},
			want: Content{
				Prompts:     []Message{{Role: "user", Content: "Describe"}},
				Completions: []Message{{Content: "A cat.", FinishReason: "1"}},
				Input:       "Describe",
				Output:      "A cat.",
			},
		},
		{
			name:  "span without LLM content",
			attrs: map[string]any{"http.method": "GET", "http.route": "/users/{id}"},
			want:  Content{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs := attrMap(t, tt.attrs)
			got := Extract(attrs)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Extract() =\n%+v\nwant\n%+v", got, tt.want)
			}
			// The warehouse keeps every attribute as its text and derives
			// the messages, input and output from that at read.
			stored := map[string]string{}
			for k, v := range attrs.All() {
				stored[k] = v.AsString()
			}
			for range 5 { // map order varies between runs
				back := ExtractStrings(stored)
				if !reflect.DeepEqual(back.Prompts, got.Prompts) || !reflect.DeepEqual(back.Completions, got.Completions) ||
					back.Input != got.Input || back.Output != got.Output {
					t.Fatalf("ExtractStrings() of the stored attributes =\n%+v\nwant the messages, input and output of\n%+v", back, got)
				}
			}
		})
	}
}

func TestContentHelpers(t *testing.T) {
	c := Content{
		Prompts: []Message{
			{Role: "system", Content: "You answer from the documents."},
			{Role: "user", Content: "first question"},
			{Role: "assistant", Content: "first answer"},
			{Role: "tool", Content: "doc: the sky is blue"},
			{Role: "user", Content: "second question"},
			{Role: "user"},
		},
		Completions: []Message{{Role: "assistant", Content: "second answer", FinishReason: "stop"}, {Role: "assistant"}},
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"LastUserPrompt skips empty prompts", c.LastUserPrompt(), "second question"},
		{"FirstUserPrompt", c.FirstUserPrompt(), "first question"},
		{"LastCompletion skips empty completions", c.LastCompletion(), "second answer"},
		{"SystemContext joins system and tool", c.SystemContext(), "You answer from the documents.\n\ndoc: the sky is blue"},
		{"UserPrompts", c.UserPrompts(), []string{"first question", "second question"}},
		{"AssistantTurns", c.AssistantTurns(), []string{"first answer", "second answer"}},
		{"PromptMap", c.PromptMap(), map[string]string{
			"llm.prompts.0.role": "system", "llm.prompts.0.content": "You answer from the documents.",
			"llm.prompts.1.role": "user", "llm.prompts.1.content": "first question",
			"llm.prompts.2.role": "assistant", "llm.prompts.2.content": "first answer",
			"llm.prompts.3.role": "tool", "llm.prompts.3.content": "doc: the sky is blue",
			"llm.prompts.4.role": "user", "llm.prompts.4.content": "second question",
			"llm.prompts.5.role": "user", "llm.prompts.5.content": "",
		}},
		{"CompletionMap", c.CompletionMap(), map[string]string{
			"llm.completions.0.role": "assistant", "llm.completions.0.content": "second answer", "llm.completions.0.finish_reason": "stop",
			"llm.completions.1.role": "assistant", "llm.completions.1.content": "",
		}},
		{"Empty", c.Empty(), false},
		{"zero Content is Empty", (&Content{}).Empty(), true},
		{"zero Content LastUserPrompt", (&Content{}).LastUserPrompt(), ""},
	}
	for _, ck := range checks {
		t.Run(ck.name, func(t *testing.T) {
			if !reflect.DeepEqual(ck.got, ck.want) {
				t.Errorf("got %#v, want %#v", ck.got, ck.want)
			}
		})
	}
}

func benchAttrs(b *testing.B) pcommon.Map {
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 23) // ~1 KB
	return attrMap(b, map[string]any{
		"gen_ai.operation.name":      "chat",
		"gen_ai.provider.name":       "openai",
		"gen_ai.request.model":       "gpt-4o-mini",
		"gen_ai.response.model":      "gpt-4o-mini-2024-07-18",
		"gen_ai.usage.input_tokens":  250,
		"gen_ai.usage.output_tokens": 250,
		"gen_ai.input.messages":      `[{"role":"user","parts":[{"type":"text","content":"` + text + `"}]}]`,
		"gen_ai.output.messages":     `[{"role":"assistant","parts":[{"type":"text","content":"` + text + `"}],"finish_reason":"stop"}]`,
		"traceloop.workflow.name":    "bench",
		"http.method":                "POST",
		"server.address":             "api.openai.com",
	})
}

func BenchmarkExtractSemconvJSON(b *testing.B) {
	attrs := benchAttrs(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = Extract(attrs)
	}
}

func BenchmarkExtractLegacy(b *testing.B) {
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 23)
	attrs := attrMap(b, map[string]any{
		"llm.vendor": "OpenAI", "llm.request.model": "gpt-4", "llm.response.model": "gpt-4-0613",
		"llm.prompts.0.role": "user", "llm.prompts.0.content": text,
		"llm.completions.0.role": "assistant", "llm.completions.0.content": text,
		"llm.usage.prompt_tokens": 250, "llm.usage.completion_tokens": 250, "llm.usage.total_tokens": 500,
	})
	b.ReportAllocs()
	for b.Loop() {
		_ = Extract(attrs)
	}
}

func BenchmarkExtractNoLLM(b *testing.B) {
	attrs := attrMap(b, map[string]any{
		"http.method": "GET", "http.route": "/users/{id}", "http.status_code": 200,
		"net.peer.name": "db", "db.system": "postgresql",
	})
	b.ReportAllocs()
	for b.Loop() {
		_ = Extract(attrs)
	}
}

// TestUsageStrings: the token counts UsageStrings reads are those
// ExtractStrings reads, per convention.
func TestUsageStrings(t *testing.T) {
	for _, attrs := range []map[string]string{
		{"gen_ai.usage.input_tokens": "12", "gen_ai.usage.output_tokens": "34", "gen_ai.prompt.0.content": "hi"},
		{"llm.usage.prompt_tokens": "5", "llm.usage.completion_tokens": "7", "llm.usage.total_tokens": "12"},
		{"llm.token_count.prompt": "100", "llm.token_count.completion": "1"},
		{"llm.usage.total_tokens": "9"},
		{"gen_ai.usage.input_tokens": "not a number"},
		{},
	} {
		in, out := UsageStrings(attrs)
		c := ExtractStrings(attrs)
		if in != c.InputTokens || out != c.OutputTokens {
			t.Errorf("UsageStrings(%v) = %d, %d; ExtractStrings reads %d, %d", attrs, in, out, c.InputTokens, c.OutputTokens)
		}
	}
	if in, out := UsageStrings(map[string]string{"gen_ai.usage.prompt_tokens": "3", "gen_ai.usage.completion_tokens": "4"}); in != 3 || out != 4 {
		t.Errorf("UsageStrings = %d, %d; want 3, 4", in, out)
	}
}
