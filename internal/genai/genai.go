// Package genai reads the LLM content of a span (prompts, completions,
// input, output, model, vendor, token usage, workflow, entity and agent
// names) whatever instrumentation wrote it: legacy OpenLLMetry (llm.*),
// OpenLLMetry 0.8–0.22 (gen_ai.prompt.N.*), the current OpenTelemetry GenAI
// semantic conventions (gen_ai.input.messages JSON), OpenInference
// (llm.input_messages.N.*, input.value) and Traceloop's traceloop.* keys.
//
// Extract runs on every evaluated span: it reads the attributes in a single
// pass and decodes JSON only when a JSON-valued key is present.
package genai

import (
	"strconv"
	"strings"
)

// Message is one prompt or completion message.
type Message struct {
	Role         string
	Content      string
	FinishReason string
}

// Content is the normalised LLM content of one span.
type Content struct {
	// Prompts are the request messages in order, system instructions first.
	Prompts []Message
	// Completions are the response messages in order.
	Completions []Message
	// Input is the entity input (traceloop.entity.input), else the first
	// user prompt, else OpenInference's input.value.
	Input string
	// Output is the entity output (traceloop.entity.output), else the last
	// completion, else OpenInference's output.value.
	Output        string
	RequestModel  string
	ResponseModel string
	// Vendor is the provider (gen_ai.provider.name, gen_ai.system,
	// llm.vendor or llm.provider).
	Vendor       string
	InputTokens  int64
	OutputTokens int64
	// TotalTokens is the reported total, else InputTokens+OutputTokens.
	TotalTokens int64
	// Workflow is traceloop.workflow.name.
	Workflow string
	// Entity is traceloop.entity.name.
	Entity string
	// Agent is gen_ai.agent.name (or agent.name), else the entity name of
	// a span whose traceloop.span.kind is "agent".
	Agent string
	// SpanKind is traceloop.span.kind (workflow, task, agent, tool, ...).
	SpanKind string
}

// Empty reports whether the span carries no prompt, completion, input or
// output text.
func (c *Content) Empty() bool {
	return len(c.Prompts) == 0 && len(c.Completions) == 0 && c.Input == "" && c.Output == ""
}

// messageKeys are the /v2 keys of one prompt or completion message.
type messageKeys struct{ role, content, finishReason string }

// The keys of the first messages, built once (most spans have a few).
var promptKeys, completionKeys = keysOf("llm.prompts."), keysOf("llm.completions.")

func keysOf(prefix string) [8]messageKeys {
	var ks [8]messageKeys
	for i := range ks {
		ks[i] = messageKeysAt(prefix, i)
	}
	return ks
}

func messageKeysAt(prefix string, i int) messageKeys {
	p := prefix + strconv.Itoa(i) + "."
	return messageKeys{p + "role", p + "content", p + "finish_reason"}
}

func keysFor(table *[8]messageKeys, prefix string, i int) messageKeys {
	if i < len(table) {
		return table[i]
	}
	return messageKeysAt(prefix, i)
}

// PromptMap returns the prompts in the /v2 span form:
// llm.prompts.<i>.role and llm.prompts.<i>.content.
func (c *Content) PromptMap() map[string]string {
	m := make(map[string]string, 2*len(c.Prompts))
	for i, p := range c.Prompts {
		k := keysFor(&promptKeys, "llm.prompts.", i)
		m[k.role] = p.Role
		m[k.content] = p.Content
	}
	return m
}

// CompletionMap returns the completions in the /v2 span form:
// llm.completions.<i>.role, .content and, when known, .finish_reason.
func (c *Content) CompletionMap() map[string]string {
	m := make(map[string]string, 3*len(c.Completions))
	for i, p := range c.Completions {
		k := keysFor(&completionKeys, "llm.completions.", i)
		m[k.role] = p.Role
		m[k.content] = p.Content
		if p.FinishReason != "" {
			m[k.finishReason] = p.FinishReason
		}
	}
	return m
}

// LastUserPrompt returns the content of the last user prompt with text; a
// prompt without a role counts as a user prompt. It is "" when there is none.
func (c *Content) LastUserPrompt() string {
	for i := len(c.Prompts) - 1; i >= 0; i-- {
		p := c.Prompts[i]
		if p.Content != "" && isUserRole(p.Role) {
			return p.Content
		}
	}
	return ""
}

// FirstUserPrompt returns the content of the first user prompt with text.
func (c *Content) FirstUserPrompt() string {
	for _, p := range c.Prompts {
		if p.Content != "" && isUserRole(p.Role) {
			return p.Content
		}
	}
	return ""
}

// UserPrompts returns the contents of the user prompts with text, in order.
func (c *Content) UserPrompts() []string {
	var out []string
	for _, p := range c.Prompts {
		if p.Content != "" && isUserRole(p.Role) {
			out = append(out, p.Content)
		}
	}
	return out
}

// AssistantTurns returns the contents of the assistant turns of the
// conversation, in order: assistant messages among the prompts (earlier
// turns) followed by the completions.
func (c *Content) AssistantTurns() []string {
	var out []string
	for _, p := range c.Prompts {
		if p.Content != "" && p.Role == "assistant" {
			out = append(out, p.Content)
		}
	}
	for _, p := range c.Completions {
		if p.Content != "" {
			out = append(out, p.Content)
		}
	}
	return out
}

// LastCompletion returns the content of the last completion with text, or
// "" when there is none.
func (c *Content) LastCompletion() string {
	for i := len(c.Completions) - 1; i >= 0; i-- {
		if c.Completions[i].Content != "" {
			return c.Completions[i].Content
		}
	}
	return ""
}

// SystemContext returns the system, developer and tool message contents of
// the prompts joined by blank lines: the instructions and retrieved context
// the completion should be faithful to.
func (c *Content) SystemContext() string {
	var b strings.Builder
	for _, p := range c.Prompts {
		switch p.Role {
		case "system", "developer", "tool", "function":
			if p.Content == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(p.Content)
		}
	}
	return b.String()
}

func isUserRole(role string) bool {
	return role == "user" || role == "human" || role == ""
}
