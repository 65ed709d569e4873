package evaluators

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/agent"
)

var agentToolTrajectory = Definition{
	Slug:        "agent-tool-trajectory",
	Category:    CategoryQuality,
	Description: "Compares the tool calls an agent executed with the expected ones: exact, in-order and any-order match, with or without their arguments.",
	Inputs: []Field{
		{Name: "executed_tool_calls", Type: TypeString, Required: true, JSONArray: true, Label: "Executed tool calls", Description: `The calls the agent made: a JSON array serialized into a string, of tool names or of {"name", "arguments"|"input"|"args"} or {"function": {"name", "arguments"}} objects (arguments an object or a JSON string).`},
		{Name: "expected_tool_calls", Type: TypeString, Required: true, JSONArray: true, Label: "Expected tool calls", Description: "The reference calls, in the same shapes."},
	},
	Config: []Field{
		{Name: "threshold", Type: TypeNumber, Default: 0.5, Min: &zero, Max: &one, Label: "Threshold", Description: "Least score that passes."},
		{Name: "mismatch_sensitive", Type: TypeBoolean, Default: false, Label: "Mismatch sensitive", Description: "Count unexpected extra calls against the score (the calls must match exactly), not only missing ones."},
		{Name: "order_sensitive", Type: TypeBoolean, Default: false, Label: "Order sensitive", Description: "The expected calls must come in their order."},
		{Name: "input_params_sensitive", Type: TypeBoolean, Default: true, Label: "Input parameters sensitive", Description: "Calls match only with equal arguments."},
	},
	Outputs: []Field{
		scoreOutput("score", "Score", "0..1: the share of expected calls matched (with mismatch_sensitive, of the larger of the two lists)."),
		{Name: "result", Type: TypeString, EnumValues: []string{"pass", "fail"}, Label: "Result", Description: "pass when score >= threshold."},
		{Name: "reason", Type: TypeString, Label: "Reason", Description: "The kind of match and the missing and unexpected calls."},
	},
	Side:    SideOutput,
	Score:   "score",
	PassDoc: `result == "pass" (score >= config.threshold)`,
	run:     runAgentToolTrajectory,
	pass:    func(r Result) bool { return r["result"] == "pass" },
}

// runAgentToolTrajectory matches the executed calls against the expected
// ones (agent.Compare). Two calls match when their names are equal (case
// aside) and, with input_params_sensitive (the default), their arguments
// are equal as JSON values (key order and number spelling aside;
// arguments given as a JSON string are decoded first). The score is the
// number of expected calls matched — as a multiset, or with
// order_sensitive as the longest common subsequence (the expected calls
// in their order) — divided by the number of expected calls, or with
// mismatch_sensitive by the larger of the two counts, so that unexpected
// extra calls lower it too; with both flags only an exact match scores 1.
// The result passes when the score is at least threshold. No expected
// call: 1 when nothing was executed either or when extra calls do not
// count, else 0. The reason names the match (exact, in order, any order,
// partial) and the missing and unexpected calls.
func runAgentToolTrajectory(_ context.Context, req Request) (Result, error) {
	executed, err := agent.ParseToolCalls(req.Text("executed_tool_calls"))
	if err != nil {
		return nil, invalidf("input.executed_tool_calls", "input.executed_tool_calls%s", sep(err))
	}
	expected, err := agent.ParseToolCalls(req.Text("expected_tool_calls"))
	if err != nil {
		return nil, invalidf("input.expected_tool_calls", "input.expected_tool_calls%s", sep(err))
	}
	ordered, strict := req.Bool("order_sensitive"), req.Bool("mismatch_sensitive")
	m := agent.Compare(executed, expected, req.Bool("input_params_sensitive"), ordered)
	denom := len(expected)
	if strict {
		denom = max(len(expected), len(executed))
	}
	score := 1.0
	if denom > 0 {
		score = float64(m.Matched) / float64(denom)
	}
	result := "fail"
	if score >= req.Float("threshold") {
		result = "pass"
	}
	return Result{"score": score, "result": result, "reason": trajectoryReason(m, len(expected), ordered)}, nil
}

// sep joins a parse error to the field name: "[2] has no tool name"
// directly, anything else after ": ".
func sep(err error) string {
	if s := err.Error(); strings.HasPrefix(s, "[") {
		return s
	}
	return " " + err.Error()
}

func trajectoryReason(m agent.Match, expected int, ordered bool) string {
	var b strings.Builder
	switch {
	case m.Exact:
		b.WriteString("Exact match: the executed tool calls are the expected ones, in order.")
	case m.InOrder:
		b.WriteString("In-order match: every expected call was executed, in the expected order, with other calls too.")
	case m.AnyOrder && ordered:
		b.WriteString("Any-order match: every expected call was executed, but not in the expected order.")
	case m.AnyOrder:
		b.WriteString("Any-order match: every expected call was executed.")
	default:
		fmt.Fprintf(&b, "Partial match: %d of %d expected calls matched%s.", m.Matched, expected, map[bool]string{true: " in order", false: ""}[ordered])
	}
	if len(m.Missing) > 0 {
		fmt.Fprintf(&b, " Missing: %s.", agent.Names(m.Missing, 5))
	}
	if len(m.Unexpected) > 0 {
		fmt.Fprintf(&b, " Unexpected: %s.", agent.Names(m.Unexpected, 5))
	}
	return b.String()
}
