package judge

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// anthropic speaks Anthropic's Messages API.
type anthropic struct{}

// anthropicVersion is the API version header sent.
const anthropicVersion = "2023-06-01"

// defaultAnthropicMaxTokens is max_tokens when the evaluator sets none
// (the Messages API requires one).
const defaultAnthropicMaxTokens = 1024

type anMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

type anRequest struct {
	Model       string      `json:"model"`
	MaxTokens   int         `json:"max_tokens"`
	System      string      `json:"system,omitempty"`
	Messages    []anMessage `json:"messages"`
	Temperature *float64    `json:"temperature,omitempty"`
	TopP        *float64    `json:"top_p,omitempty"`
	Tools       []anTool    `json:"tools,omitempty"`
	ToolChoice  any         `json:"tool_choice,omitempty"`
}

type anResponse struct {
	Content []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	Usage struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
}

func (anthropic) modes() []mode    { return []mode{modeTool, modeText} }
func (anthropic) endpoint() string { return "/v1/messages" }

func (anthropic) authorize(h http.Header, key string) {
	if key != "" {
		h.Set("X-Api-Key", key)
	}
	h.Set("Anthropic-Version", anthropicVersion)
}

// body sends the system messages as the system prompt (the Messages API
// has no system role); frequency and presence penalties have no
// counterpart and are not sent.
func (anthropic) body(c call, m mode) any {
	req := anRequest{Model: c.model, MaxTokens: defaultAnthropicMaxTokens, Temperature: c.params.Temperature, TopP: c.params.TopP}
	if c.params.MaxTokens != nil {
		req.MaxTokens = *c.params.MaxTokens
	}
	var system []string
	for _, msg := range c.messages {
		if msg.Role == "system" {
			system = append(system, msg.Content)
			continue
		}
		req.Messages = append(req.Messages, anMessage(msg))
	}
	switch m {
	case modeTool:
		req.Tools = []anTool{{Name: toolName, Description: "Record the evaluation.", InputSchema: c.schema}}
		req.ToolChoice = map[string]string{"type": "tool", "name": toolName}
	case modeText:
		system = append(system, textInstruction(c.outputs, c.schema))
	}
	req.System = strings.Join(system, "\n\n")
	return req
}

func (anthropic) parse(body []byte) (answer, error) {
	var r anResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return answer{}, errors.New("the answer is not a Messages API response (invalid JSON)")
	}
	a := answer{usage: Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}}
	var text []string
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			text = append(text, c.Text)
		case "tool_use":
			if c.Name == toolName && a.toolArgs == nil {
				a.toolArgs = c.Input
			}
		}
	}
	a.text = strings.Join(text, "\n")
	return a, nil
}

func (anthropic) errorMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Error.Message
}
