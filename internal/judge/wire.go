package judge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// mode is how a call asks for structured output.
type mode string

const (
	// modeJSONSchema: OpenAI's response_format {type: json_schema}.
	modeJSONSchema mode = "json_schema"
	// modeTool: a forced call of one tool whose parameters are the output
	// schema.
	modeTool mode = "tool"
	// modeText: an instruction in the prompt; the first JSON object of
	// the text is the answer.
	modeText mode = "text"
)

// toolName is the tool the model is asked to call with its verdict.
const toolName = "record_evaluation"

// call is one rendered request, whatever the protocol.
type call struct {
	model    string
	messages []Message
	params   Params
	schema   map[string]any
	outputs  []Field
}

// answer is what a provider answered: the text, or the arguments of the
// tool call (JSON), and the tokens.
type answer struct {
	text     string
	toolArgs json.RawMessage
	usage    Usage
}

// Usage counts the tokens of a call.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// protocol is one provider protocol: how a call becomes an HTTP request
// and an answer comes back.
type protocol interface {
	// modes lists the structured-output modes to try, best first.
	modes() []mode
	// endpoint is the path appended to the base URL.
	endpoint() string
	// authorize sets the key and the protocol's headers.
	authorize(h http.Header, key string)
	// body returns the JSON request body of c in mode m.
	body(c call, m mode) any
	// parse decodes a successful answer.
	parse(body []byte) (answer, error)
	// errorMessage extracts the message of an error body ("" if none).
	errorMessage(body []byte) string
}

// textInstruction is appended to the prompt in modeText.
func textInstruction(fs []Field, schema map[string]any) string {
	var b strings.Builder
	b.WriteString("Answer with one JSON object and nothing else. Its fields:\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "- %s (%s)", f.Name, f.Type)
		if len(f.EnumValues) > 0 {
			fmt.Fprintf(&b, ", one of %s", strings.Join(f.EnumValues, ", "))
		}
		if f.Description != "" {
			b.WriteString(": " + f.Description)
		}
		b.WriteByte('\n')
	}
	enc, _ := json.Marshal(schema)
	b.WriteString("JSON schema: ")
	b.Write(enc)
	return b.String()
}
