package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/agent"
)

var agentToolErrorDetector = Definition{
	Slug:        "agent-tool-error-detector",
	Category:    CategoryQuality,
	Description: "Detects errors or failures in a tool's execution from its output: error fields, failed statuses, HTTP error codes, exceptions and tracebacks.",
	Inputs: []Field{
		textInput("tool_input", "Tool input", "The tool's input: JSON serialized into a string (or plain text)."),
		textInput("tool_output", "Tool output", "The tool's output: JSON serialized into a string (or plain text)."),
	},
	Outputs: []Field{
		{Name: "result", Type: TypeString, EnumValues: []string{"success", "error"}, Label: "Result", Description: "success, or error when the output reports a failure."},
		{Name: "reason", Type: TypeString, Label: "Reason", Description: "What in the output shows the failure, or that none was found."},
	},
	Side:    SideOutput,
	Score:   "result",
	PassDoc: `result == "success"`,
	run:     runAgentToolErrorDetector,
	pass:    func(r Result) bool { return r["result"] == "success" },
}

// runAgentToolErrorDetector reads the tool output as agent.ToolFailure
// does: as JSON when it is JSON (an error, errors, exception or traceback
// key with a value; a status, state or result of failure such as "error"
// or "failed"; success or ok false; is_error or isError true, the flags of
// Anthropic's and MCP's tool results; an HTTP status code from 400 to
// 599), at any depth of nested objects; as text otherwise (an error or
// exception line, a traceback, an HTTP error status, a refused
// connection, a denied permission, a timeout, "failed to / unable to /
// could not" + an operation). Words such as "error" inside the data a
// JSON output returns (a search result about error handling) are not
// failures. An empty output is no failure. The tool input is not judged;
// it is named in the reason of a failure.
func runAgentToolErrorDetector(_ context.Context, req Request) (Result, error) {
	if failed, why := agent.ToolFailure(req.Text("tool_output")); failed {
		return Result{"result": "error", "reason": "The tool call failed: " + why + "."}, nil
	}
	return Result{"result": "success", "reason": "The tool output reports no error."}, nil
}
