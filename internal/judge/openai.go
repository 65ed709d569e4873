package judge

import (
	"encoding/json"
	"errors"
	"net/http"
)

// openAI speaks OpenAI's Chat Completions API (also served by Azure
// OpenAI, vLLM, Ollama, llama.cpp's server, LiteLLM, ...).
type openAI struct{}

type oaMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type oaRequest struct {
	Model            string      `json:"model"`
	Messages         []oaMessage `json:"messages"`
	Temperature      *float64    `json:"temperature,omitempty"`
	MaxTokens        *int        `json:"max_tokens,omitempty"`
	TopP             *float64    `json:"top_p,omitempty"`
	FrequencyPenalty *float64    `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64    `json:"presence_penalty,omitempty"`
	ResponseFormat   *oaFormat   `json:"response_format,omitempty"`
	Tools            []oaTool    `json:"tools,omitempty"`
	ToolChoice       any         `json:"tool_choice,omitempty"`
}

type oaFormat struct {
	Type       string        `json:"type"`
	JSONSchema *oaJSONSchema `json:"json_schema,omitempty"`
}

type oaJSONSchema struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
	Strict bool           `json:"strict"`
}

type oaTool struct {
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

type oaResponse struct {
	Choices []struct {
		Message struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

func (openAI) modes() []mode    { return []mode{modeJSONSchema, modeTool, modeText} }
func (openAI) endpoint() string { return "/chat/completions" }

func (openAI) authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

func (openAI) body(c call, m mode) any {
	req := oaRequest{Model: c.model, Temperature: c.params.Temperature, MaxTokens: c.params.MaxTokens, TopP: c.params.TopP,
		FrequencyPenalty: c.params.FrequencyPenalty, PresencePenalty: c.params.PresencePenalty}
	for _, msg := range c.messages {
		req.Messages = append(req.Messages, oaMessage(msg))
	}
	switch m {
	case modeJSONSchema:
		req.ResponseFormat = &oaFormat{Type: "json_schema", JSONSchema: &oaJSONSchema{Name: "evaluation", Schema: c.schema, Strict: true}}
	case modeTool:
		req.Tools = []oaTool{{Type: "function", Function: oaFunction{Name: toolName, Description: "Record the evaluation.", Parameters: c.schema}}}
		req.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": toolName}}
	case modeText:
		// Into the leading system message (some chat templates refuse a
		// system message anywhere else).
		instruction := textInstruction(c.outputs, c.schema)
		if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
			req.Messages[0].Content += "\n\n" + instruction
		} else {
			req.Messages = append([]oaMessage{{Role: "system", Content: instruction}}, req.Messages...)
		}
	}
	return req
}

func (openAI) parse(body []byte) (answer, error) {
	var r oaResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return answer{}, errors.New("the answer is not a chat completion (invalid JSON)")
	}
	if len(r.Choices) == 0 {
		return answer{}, errors.New("the answer has no choices")
	}
	a := answer{usage: Usage{InputTokens: r.Usage.PromptTokens, OutputTokens: r.Usage.CompletionTokens}}
	msg := r.Choices[0].Message
	if msg.Content != nil {
		a.text = *msg.Content
	}
	for _, tc := range msg.ToolCalls {
		if tc.Function.Name == toolName {
			a.toolArgs = json.RawMessage(tc.Function.Arguments)
			break
		}
	}
	return a, nil
}

func (openAI) errorMessage(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return s
	}
	return ""
}
