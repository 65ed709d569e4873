package evaluators

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/judge"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var agentFlowQuality = Definition{
	Slug:        "agent-flow-quality",
	Category:    CategoryQuality,
	Description: "Validates an agent trajectory against user-defined conditions (\"searched flights\", \"no payment before confirmation\", \"search before booking\"): the share of conditions the steps meet.",
	Inputs:      trajectoryInputs(),
	Config: []Field{
		{Name: "conditions", Type: TypeStringArray, Label: "Conditions", Description: `The rules the trajectory must meet, an array of strings: "X" (some step does X), "no X" / "never X" / "without X" (no step does X), "X before Y" / "X then Y" / "Y after X" (X happens at an earlier step than Y).`},
		{Name: "threshold", Type: TypeNumber, Default: 0.5, Min: &zero, Max: &one, Label: "Threshold", Description: "Least score that passes."},
	},
	Outputs: []Field{
		scoreOutput("score", "Score", "0..1: the share of conditions met (1 when there is none)."),
		{Name: "result", Type: TypeString, EnumValues: []string{"pass", "fail"}, Label: "Result", Description: "pass when score >= threshold."},
		{Name: "reason", Type: TypeString, Label: "Reason", Description: "The conditions not met, or that all were."},
	},
	Side:    SideBoth,
	Score:   "score",
	PassDoc: `result == "pass" (score >= config.threshold)`,
	run:     runAgentFlowQuality,
	pass:    func(r Result) bool { return r["result"] == "pass" },
}

// Condition forms (lower-cased).
var (
	conditionNegative = regexp.MustCompile(`^(?:no|never|not|without|avoid|avoids|avoided|do not|does not|did not|don't|doesn't|didn't|must not|should not|shouldn't|mustn't|zero|none of)\s+(.+)$`)
	conditionBefore   = regexp.MustCompile(`^(?:first\s+)?(.+?)\s*,?\s+(?:before|then|followed by|and then|prior to)\s+(.+)$`)
	conditionAfter    = regexp.MustCompile(`^(.+?)\s+(?:after|following|once)\s+(.+)$`)
)

// conditionFound is the least soft coverage of a condition's content
// words by a step for the step to do what the condition names.
const conditionFound = 0.75

// runAgentFlowQuality checks each condition against the steps, a step
// being prompt i with completion i. A condition names something done
// ("searched for flights"), is a negation of one ("no", "never",
// "without", "do not", ... + what must not happen), or an order of two
// ("X before Y", "X then Y", "first X, then Y", "Y after X"). A step does
// X when the soft coverage of X's content words by the step's text
// (judge.SoftCoverage: stems, IDF weights, GloVe neighbours) is at least
// 0.75; an order holds when the first step doing X comes before the first
// step doing Y (and both exist). The score is the share of conditions
// met, 1 when no condition is given; the result passes at threshold.
// Conditions are read lexically: one that needs understanding ("the
// agent was polite") is met only by steps that use its words.
func runAgentFlowQuality(_ context.Context, req Request) (Result, error) {
	t, err := parseTrajectory(req)
	if err != nil {
		return nil, err
	}
	conds := req.Strings("conditions")
	steps := make([][]textsim.Token, t.steps())
	for i := range steps {
		var text string
		if i < len(t.prompts) {
			text = t.prompts[i]
		}
		c, _ := t.completion(i)
		steps[i] = textsim.Tokenize(text + "\n" + c)
	}
	met := 0
	var failed []string
	counted := 0
	for _, c := range conds {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		counted++
		if conditionMet(c, steps) {
			met++
		} else {
			failed = append(failed, fmt.Sprintf("%q", clipText(c, 80)))
		}
	}
	score := 1.0
	reason := "No condition was given."
	if counted > 0 {
		score = float64(met) / float64(counted)
		reason = fmt.Sprintf("All %d conditions are met.", counted)
		if len(failed) > 0 {
			reason = fmt.Sprintf("%d of %d conditions are not met: %s.", len(failed), counted, strings.Join(failed, ", "))
		}
	}
	result := "fail"
	if score >= req.Float("threshold") {
		result = "pass"
	}
	return Result{"score": score, "result": result, "reason": reason}, nil
}

func conditionMet(c string, steps [][]textsim.Token) bool {
	l := strings.TrimRight(strings.ToLower(c), ".!")
	if m := conditionNegative.FindStringSubmatch(l); m != nil {
		return firstStep(m[1], steps) < 0
	}
	if m := conditionBefore.FindStringSubmatch(l); m != nil {
		a, b := firstStep(m[1], steps), firstStep(m[2], steps)
		return a >= 0 && b >= 0 && a < b
	}
	if m := conditionAfter.FindStringSubmatch(l); m != nil {
		later, earlier := firstStep(m[1], steps), firstStep(m[2], steps)
		return later >= 0 && earlier >= 0 && earlier < later
	}
	return firstStep(l, steps) >= 0
}

// firstStep is the index of the first step that does what phrase names,
// -1 when none does.
func firstStep(phrase string, steps [][]textsim.Token) int {
	p := textsim.Tokenize(phrase)
	for i, s := range steps {
		cov, total := judge.SoftCoverage(p, s)
		if total == 0 {
			return -1
		}
		if cov >= conditionFound {
			return i
		}
	}
	return -1
}
