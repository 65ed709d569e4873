package evaluators

import "testing"

func TestAgentToolTrajectory(t *testing.T) {
	in := func(executed, expected string) map[string]any {
		return map[string]any{"executed_tool_calls": executed, "expected_tool_calls": expected}
	}
	search := `{"name": "search", "input": {"query": "weather"}}`
	book := `{"name": "book", "arguments": {"id": 7}}`
	pay := `{"name": "pay", "args": {"amount": 10}}`
	runCases(t, "agent-tool-trajectory", []evalCase{
		{name: "exact", input: in("["+search+"]", "["+search+"]"), want: Result{"score": 1.0, "result": "pass", "reason": "~Exact match"}, pass: passes},
		{name: "openai shape and string arguments", input: in(`[{"type": "function", "id": "c1", "function": {"name": "search", "arguments": "{\"query\": \"weather\"}"}}]`, "["+search+"]"), want: Result{"score": 1.0, "reason": "~Exact match"}},
		{name: "names only", input: in(`["search", "book"]`, `["search", "book"]`), want: Result{"score": 1.0}},
		{name: "argument key order and number spelling", input: in(`[{"name": "f", "arguments": {"a": 1, "b": 2.0}}]`, `[{"name": "f", "arguments": "{\"b\": 2, \"a\": 1.0}"}]`), want: Result{"score": 1.0}},
		{name: "other arguments", input: in(`[{"name": "search", "input": {"query": "news"}}]`, "["+search+"]"), want: Result{"score": 0.0, "result": "fail", "reason": "~Missing: search({\"query\":\"weather\"})"}, pass: fails},
		{name: "other arguments, params not compared", input: in(`[{"name": "search", "input": {"query": "news"}}]`, "["+search+"]"), config: map[string]any{"input_params_sensitive": false}, want: Result{"score": 1.0}},
		{name: "any order", input: in("["+book+","+search+"]", "["+search+","+book+"]"), want: Result{"score": 1.0, "result": "pass", "reason": "~Any-order match"}},
		{name: "order sensitive", input: in("["+book+","+search+"]", "["+search+","+book+"]"), config: map[string]any{"order_sensitive": true}, want: Result{"score": 0.5, "result": "pass", "reason": "~not in the expected order"}},
		{name: "order sensitive, threshold", input: in("["+book+","+search+"]", "["+search+","+book+"]"), config: map[string]any{"order_sensitive": true, "threshold": 0.6}, want: Result{"score": 0.5, "result": "fail"}, pass: fails},
		{name: "in order with an extra call", input: in("["+search+","+pay+","+book+"]", "["+search+","+book+"]"), config: map[string]any{"order_sensitive": true}, want: Result{"score": 1.0, "reason": "~In-order match"}},
		{name: "extra call, mismatch sensitive", input: in("["+search+","+pay+","+book+"]", "["+search+","+book+"]"), config: map[string]any{"mismatch_sensitive": true}, want: Result{"score": 2.0 / 3, "reason": "~Unexpected: pay({\"amount\":10})"}},
		{name: "missing call", input: in("["+search+"]", "["+search+","+book+"]"), want: Result{"score": 0.5, "result": "pass", "reason": "~Partial match: 1 of 2"}},
		{name: "nothing executed", input: in(`[]`, "["+search+"]"), want: Result{"score": 0.0, "result": "fail"}},
		{name: "nothing expected", input: in("["+search+"]", `[]`), want: Result{"score": 1.0}},
		{name: "nothing expected, mismatch sensitive", input: in("["+search+"]", `[]`), config: map[string]any{"mismatch_sensitive": true}, want: Result{"score": 0.0}},
		{name: "assistant message with tool_calls", input: in(`[{"role": "assistant", "tool_calls": [{"function": {"name": "search", "arguments": "{\"query\":\"weather\"}"}}]}]`, "["+search+"]"), want: Result{"score": 1.0}},
		{name: "not JSON", input: in(`search, book`, `[]`), errField: "input.executed_tool_calls", errMsg: `input.executed_tool_calls must be a JSON array of tool calls ({"name", "arguments"} or {"function": {"name", "arguments"}} objects) serialized into a string: invalid character 's' looking for beginning of value`},
		{name: "no name", input: in(`[]`, `[{"arguments": {}}]`), errField: "input.expected_tool_calls", errMsg: `input.expected_tool_calls[0] has no tool name ("name", "function.name", "tool_name" or "tool")`},
		{name: "threshold out of range", input: in(`[]`, `[]`), config: map[string]any{"threshold": 2.0}, errField: "config.threshold", errMsg: "config.threshold must be between 0 and 1, got 2"},
	})
}

func TestAgentToolErrorDetector(t *testing.T) {
	out := func(s string) map[string]any {
		return map[string]any{"tool_input": `{"action": "search"}`, "tool_output": s}
	}
	ok := Result{"result": "success"}
	failed := Result{"result": "error"}
	runCases(t, "agent-tool-error-detector", []evalCase{
		{name: "results", input: out(`{"status": "success", "results": [{"flight": "AF123", "price": 450}]}`), want: ok, pass: passes},
		{name: "data about errors is no error", input: out(`{"results": [{"title": "Error handling in Go", "snippet": "how to return an error"}]}`), want: ok},
		{name: "plain text answer", input: out(`The weather in Paris is sunny, 21 degrees.`), want: ok},
		{name: "empty output", input: out(``), want: ok},
		{name: "error false", input: out(`{"error": null, "data": [1]}`), want: ok},
		{name: "error key", input: out(`{"error": "rate limit exceeded"}`), want: Result{"result": "error", "reason": "~\"error\": \"rate limit exceeded\""}, pass: fails},
		{name: "failed status", input: out(`{"status": "failed", "message": "card declined"}`), want: failed, pass: fails},
		{name: "success false", input: out(`{"success": false}`), want: failed},
		{name: "MCP isError", input: out(`{"content": [{"type": "text", "text": "boom"}], "isError": true}`), want: failed},
		{name: "HTTP status code", input: out(`{"status_code": 503, "body": ""}`), want: failed},
		{name: "nested error", input: out(`{"response": {"error": {"code": 404, "message": "not found"}}}`), want: failed},
		{name: "python traceback", input: out("Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'id'"), want: failed},
		{name: "exception line", input: out("ValueError: invalid literal for int()"), want: failed},
		{name: "timeout text", input: out("Request timed out after 30s"), want: failed},
		{name: "connection refused", input: out("dial tcp 127.0.0.1:5432: connect: connection refused"), want: failed},
		{name: "JSON string with an error", input: out(`"Error: file not found"`), want: failed},
		{name: "missing output", input: map[string]any{"tool_input": "{}"}, errField: "input.tool_output", errMsg: "input.tool_output is required"},
	})
}
