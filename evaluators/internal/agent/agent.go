// Package agent holds what the agent evaluators share: reading the
// trajectories and tool calls that Traceloop's agent evaluators take as
// JSON serialized into strings, comparing tool calls, and spotting
// failures in what a tool or an agent answered.
package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// Turn is one message of a trajectory sent as an object.
type turn struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// ParseTurns decodes a JSON array of strings or of {role, content}
// objects (content a string, or OpenAI's array of {type, text} parts;
// other values are kept as their JSON text); "system" turns are left out.
// The error says what is wrong, for a 400 naming the field.
func ParseTurns(raw string) ([]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &items); err != nil {
		return nil, fmt.Errorf("must be a JSON array (of strings or of {role, content} objects) serialized into a string: %w", err)
	}
	if items == nil {
		return nil, fmt.Errorf("must be a JSON array (of strings or of {role, content} objects) serialized into a string, not null")
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err == nil {
			out = append(out, s)
			continue
		}
		var t turn
		if err := json.Unmarshal(it, &t); err != nil || bytes.HasPrefix(bytes.TrimSpace(it), []byte("[")) {
			return nil, fmt.Errorf("[%d] must be a string or a {role, content} object", i)
		}
		if strings.EqualFold(t.Role, "system") {
			continue
		}
		out = append(out, contentText(t.Content))
	}
	return out, nil
}

// contentText is the text of a message content: a string, the texts of
// an array of {type, text} parts, or else the JSON itself.
func contentText(c json.RawMessage) string {
	if len(c) == 0 || string(c) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(c, &parts) == nil {
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return string(c)
}

// ToolCall is one tool call: its name and its arguments decoded from
// JSON (nil when it has none; a string when the arguments are a string
// that is not JSON).
type ToolCall struct {
	Name string
	Args any
}

// String renders the call as name(args).
func (c ToolCall) String() string {
	if c.Args == nil {
		return c.Name + "()"
	}
	b, err := json.Marshal(c.Args)
	if err != nil {
		return c.Name + "(?)"
	}
	return c.Name + "(" + string(b) + ")"
}

// ParseToolCalls decodes a JSON array of tool calls in the shapes
// OpenAI, Anthropic and OpenLLMetry write them: a string (the tool name
// alone), {"name", "arguments" | "input" | "args" | "parameters"},
// {"function": {"name", "arguments"}} (OpenAI's, with an optional "type"
// and "id"), {"tool_name" | "tool", ...}; arguments as an object or as
// a JSON object serialized into a string (OpenAI's form). An object of
// {"tool_calls": [...]} (an assistant message) is read for its calls.
func ParseToolCalls(raw string) ([]ToolCall, error) {
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &items); err != nil {
		return nil, fmt.Errorf("must be a JSON array of tool calls ({\"name\", \"arguments\"} or {\"function\": {\"name\", \"arguments\"}} objects) serialized into a string: %w", err)
	}
	if items == nil {
		return nil, fmt.Errorf("must be a JSON array of tool calls serialized into a string, not null")
	}
	out := make([]ToolCall, 0, len(items))
	for i, it := range items {
		calls, err := parseToolCall(it)
		if err != nil {
			return nil, fmt.Errorf("[%d] %w", i, err)
		}
		out = append(out, calls...)
	}
	return out, nil
}

func parseToolCall(it json.RawMessage) ([]ToolCall, error) {
	var name string
	if json.Unmarshal(it, &name) == nil {
		if strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("is an empty tool name")
		}
		return []ToolCall{{Name: strings.TrimSpace(name)}}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(it, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("must be a tool name or a tool call object")
	}
	if tc, ok := obj["tool_calls"]; ok {
		var nested []json.RawMessage
		if err := json.Unmarshal(tc, &nested); err != nil {
			return nil, fmt.Errorf("tool_calls must be an array")
		}
		var out []ToolCall
		for _, n := range nested {
			c, err := parseToolCall(n)
			if err != nil {
				return nil, err
			}
			out = append(out, c...)
		}
		return out, nil
	}
	if fn, ok := obj["function"]; ok {
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(fn, &inner); err == nil && inner != nil {
			obj = inner
		}
	}
	for _, k := range []string{"name", "tool_name", "tool"} {
		if v, ok := obj[k]; ok && json.Unmarshal(v, &name) == nil && strings.TrimSpace(name) != "" {
			break
		}
		name = ""
	}
	if name == "" {
		return nil, fmt.Errorf("has no tool name (\"name\", \"function.name\", \"tool_name\" or \"tool\")")
	}
	c := ToolCall{Name: strings.TrimSpace(name)}
	for _, k := range []string{"arguments", "input", "args", "parameters", "tool_input"} {
		v, ok := obj[k]
		if !ok {
			continue
		}
		c.Args = decodeArgs(v)
		break
	}
	return []ToolCall{c}, nil
}

// decodeArgs decodes arguments given as JSON, or as JSON serialized into
// a string; a string that is not JSON stays a string; {} and null are no
// arguments.
func decodeArgs(v json.RawMessage) any {
	var a any
	if json.Unmarshal(v, &a) != nil {
		return nil
	}
	if s, ok := a.(string); ok {
		var inner any
		if strings.TrimSpace(s) == "" {
			return nil
		}
		if json.Unmarshal([]byte(s), &inner) != nil {
			return s
		}
		a = inner
	}
	if m, ok := a.(map[string]any); ok && len(m) == 0 {
		return nil
	}
	return a
}

// SameCall reports whether two calls are the same: the same name (case
// and surrounding space aside), and, when withArgs, equal arguments
// (decoded JSON compared as values: key order and number spelling do not
// matter).
func SameCall(a, b ToolCall, withArgs bool) bool {
	if !strings.EqualFold(a.Name, b.Name) {
		return false
	}
	return !withArgs || reflect.DeepEqual(a.Args, b.Args)
}

// Match is the comparison of executed tool calls with expected ones.
type Match struct {
	// Exact: the same calls in the same order, nothing else.
	Exact bool
	// InOrder: the expected calls occur among the executed ones in
	// their order (other calls may come between).
	InOrder bool
	// AnyOrder: every expected call occurs among the executed ones.
	AnyOrder bool
	// Matched is the number of expected calls found: in order (the
	// longest common subsequence) when order counts, else as a multiset.
	Matched int
	// Missing and Unexpected are the expected calls not executed and
	// the executed calls not expected (as a multiset).
	Missing, Unexpected []ToolCall
}

// Compare compares executed with expected calls.
func Compare(executed, expected []ToolCall, withArgs, ordered bool) Match {
	var m Match
	used := make([]bool, len(executed))
	for _, e := range expected {
		found := false
		for j, x := range executed {
			if !used[j] && SameCall(x, e, withArgs) {
				used[j], found = true, true
				break
			}
		}
		if found {
			m.Matched++
		} else {
			m.Missing = append(m.Missing, e)
		}
	}
	for j, x := range executed {
		if !used[j] {
			m.Unexpected = append(m.Unexpected, x)
		}
	}
	m.AnyOrder = len(m.Missing) == 0
	lcs := commonSubsequence(executed, expected, withArgs)
	m.InOrder = lcs == len(expected)
	m.Exact = m.InOrder && len(executed) == len(expected)
	if ordered {
		m.Matched = lcs
	}
	return m
}

// commonSubsequence is the length of the longest common subsequence of
// the two call lists.
func commonSubsequence(a, b []ToolCall, withArgs bool) int {
	return textsim.CommonSubsequence(a, b, func(x, y ToolCall) bool { return SameCall(x, y, withArgs) })
}

// Names lists the calls as name(args), at most max of them.
func Names(calls []ToolCall, max int) string {
	parts := make([]string, 0, min(len(calls), max))
	for i, c := range calls {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(calls)-max))
			break
		}
		parts = append(parts, c.String())
	}
	return strings.Join(parts, ", ")
}

// SortedKeys returns the keys of m, sorted.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
