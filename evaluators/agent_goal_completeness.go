package evaluators

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/judge"
)

var agentGoalCompleteness = Definition{
	Slug:        "agent-goal-completeness",
	Category:    CategoryQuality,
	Description: "Measures whether an agent accomplished all of the user's goals: each prompt of the trajectory is a goal, met when a later completion takes it up without reporting a failure.",
	Inputs:      trajectoryInputs(),
	Config:      []Field{{Name: "threshold", Type: TypeNumber, Default: 0.5, Min: &zero, Max: &one, Label: "Threshold", Description: "Least score that is complete."}},
	Outputs: []Field{
		scoreOutput("score", "Score", "0..1: the mean over goals of how well they were accomplished."),
		{Name: "result", Type: TypeString, EnumValues: []string{"complete", "incomplete"}, Label: "Result", Description: "complete when score >= threshold."},
		{Name: "reason", Type: TypeString, Label: "Reason", Description: "The goals not accomplished, or that all were."},
	},
	Side:    SideBoth,
	Score:   "score",
	PassDoc: `result == "complete" (score >= config.threshold)`,
	run:     runAgentGoalCompleteness,
	pass:    func(r Result) bool { return r["result"] == "complete" },
}

// runAgentGoalCompleteness takes every non-empty prompt of the trajectory
// as a goal. A goal's degree is the best, over the completions from its
// own step on, of min(1, soft coverage of the goal's content words by the
// completion / 0.5) (judge.SoftCoverage: stems, IDF weights, GloVe
// neighbours), where a completion that reports a failure (judge.Failure)
// counts 0: "Create new account" is met by "Account created", not by "I
// could not create the account". A goal of stop words only is met by any
// completion that is not a failure. The score is the mean degree; the
// result is complete when it reaches threshold.
func runAgentGoalCompleteness(_ context.Context, req Request) (Result, error) {
	t, err := parseTrajectory(req)
	if err != nil {
		return nil, err
	}
	var sum float64
	goals := 0
	var missed []string
	for i, p := range t.prompts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		goals++
		best := 0.0
		for j := i; j < len(t.completions); j++ {
			c := t.completions[j]
			if strings.TrimSpace(c) == "" || judge.Failure(c) {
				continue
			}
			cov, total := judge.SoftCoverage(t.ptoks[i], t.ctoks[j])
			d := 1.0
			if total > 0 {
				d = math.Min(1, cov/0.5)
			}
			best = math.Max(best, d)
		}
		sum += best
		if best < 0.5 {
			missed = append(missed, fmt.Sprintf("%q", clipText(p, 60)))
		}
	}
	score := 0.0
	if goals > 0 {
		score = sum / float64(goals)
	}
	result := "incomplete"
	if score >= req.Float("threshold") {
		result = "complete"
	}
	reason := fmt.Sprintf("All %d goals were accomplished.", goals)
	switch {
	case goals == 0:
		reason = "The trajectory holds no user goal."
	case len(missed) > 0:
		reason = fmt.Sprintf("%d of %d goals were not accomplished: %s.", len(missed), goals, strings.Join(missed, ", "))
	}
	return Result{"score": score, "result": result, "reason": reason}, nil
}

// clipText cuts s to at most n runes, with "..." when cut.
func clipText(s string, n int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
