package evaluators

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/agent"
	"github.com/evalcol/evalcol/evaluators/internal/judge"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// trajectoryInputs are the inputs of the trajectory evaluators.
func trajectoryInputs() []Field {
	return []Field{
		{Name: "trajectory_prompts", Type: TypeString, Required: true, JSONArray: true, Label: "Trajectory prompts", Description: "The prompts of the agent's steps (user requests, tool inputs): a JSON array (of strings or of {role, content} objects) serialized into a string."},
		{Name: "trajectory_completions", Type: TypeString, Required: true, JSONArray: true, Label: "Trajectory completions", Description: "The completions of the agent's steps, one per prompt: a JSON array (of strings or of {role, content} objects) serialized into a string."},
	}
}

// trajectory is an agent's steps: prompt i was answered by completion i.
type trajectory struct {
	prompts, completions []string
	ptoks, ctoks         [][]textsim.Token
}

// parseTrajectory decodes the two trajectory inputs; a trajectory with no
// step is a 400.
func parseTrajectory(req Request) (*trajectory, error) {
	t := &trajectory{}
	for _, in := range []struct {
		name string
		dst  *[]string
	}{{"trajectory_prompts", &t.prompts}, {"trajectory_completions", &t.completions}} {
		v, err := agent.ParseTurns(req.Text(in.name))
		if err != nil {
			return nil, invalidf("input."+in.name, "input.%s%s", in.name, sep(err))
		}
		*in.dst = v
	}
	if len(t.prompts) == 0 && len(t.completions) == 0 {
		return nil, invalidf("input.trajectory_prompts", "input.trajectory_prompts and input.trajectory_completions hold no step: send at least one prompt or completion")
	}
	for _, p := range t.prompts {
		t.ptoks = append(t.ptoks, textsim.Tokenize(p))
	}
	for _, c := range t.completions {
		t.ctoks = append(t.ctoks, textsim.Tokenize(c))
	}
	return t, nil
}

// steps is the number of steps: the longer of the two lists.
func (t *trajectory) steps() int { return max(len(t.prompts), len(t.completions)) }

// completion returns completion i ("" when there is none).
func (t *trajectory) completion(i int) (string, []textsim.Token) {
	if i < len(t.completions) {
		return t.completions[i], t.ctoks[i]
	}
	return "", nil
}

// stepDone is how well completion i does what prompt i asked, 0..1: 0 when
// it is missing, empty or reports a failure (judge.Failure), else 0.5 +
// 0.5 × min(1, soft coverage of the prompt's content words / 0.5): taking
// up the request's words ("Update email" / "Email updated") is the
// evidence; a completion on something else still counts half, since an
// agent's step may answer with a tool's result.
func (t *trajectory) stepDone(i int) float64 {
	c, ctoks := t.completion(i)
	if strings.TrimSpace(c) == "" || judge.Failure(c) {
		return 0
	}
	if i >= len(t.prompts) {
		return 1
	}
	cov, total := judge.SoftCoverage(t.ptoks[i], ctoks)
	if total == 0 {
		return 1
	}
	return 0.5 + 0.5*math.Min(1, cov/0.5)
}

// redundantSimilarity is the least textsim.TokenSimilarity of two steps
// for the later one to repeat the earlier one.
const redundantSimilarity = 0.85

var agentEfficiency = Definition{
	Slug:        "agent-efficiency",
	Category:    CategoryQuality,
	Description: "Rates an agent trajectory's efficiency (redundant, repeated and looping steps) and task completion (steps that did what they were asked).",
	Inputs:      trajectoryInputs(),
	Outputs: []Field{
		scoreOutput("step_efficiency_score", "Step efficiency score", "0..1: 1 - the share of steps that repeat an earlier step."),
		{Name: "step_efficiency_reason", Type: TypeString, Label: "Step efficiency reason", Description: "The redundant steps and loops found, or that there were none."},
		scoreOutput("task_completion_score", "Task completion score", "0..1: the mean over steps of how well the completion did what the prompt asked (0 for a failure or no completion)."),
		{Name: "task_completion_reason", Type: TypeString, Label: "Task completion reason", Description: "The steps that failed or were not answered, or that all were done."},
	},
	Side:    SideBoth,
	Score:   "task_completion_score",
	PassDoc: "step_efficiency_score >= 0.5 and task_completion_score >= 0.5",
	run:     runAgentEfficiency,
	pass: func(r Result) bool {
		return passWhenAtLeastHalf("step_efficiency_score")(r) && passWhenAtLeastHalf("task_completion_score")(r)
	},
}

// runAgentEfficiency reads the trajectory as steps (prompt i answered by
// completion i) and scores, without an LLM:
//
//   - step efficiency: 1 - redundant / steps, where a step is redundant
//     when its prompt, or its completion, repeats that of an earlier step
//     (equal up to case, space and punctuation, or sharing at least a
//     third of their words with a textsim.TokenSimilarity of at least
//     0.85: the same tool call or request sent again, the same
//     answer given again); a run of two or more steps repeated right
//     after itself (A B A B) is reported as a loop;
//   - task completion: the mean over steps of stepDone: 0 for a step
//     without a completion or whose completion reports a failure ("I was
//     unable to", "error:", "no results found"), else 0.5 to 1 by how
//     much of the prompt's content the completion takes up.
func runAgentEfficiency(_ context.Context, req Request) (Result, error) {
	t, err := parseTrajectory(req)
	if err != nil {
		return nil, err
	}
	n := t.steps()
	redundant := t.redundantSteps()
	var effReason string
	if len(redundant) == 0 {
		effReason = fmt.Sprintf("No redundant step among %d.", n)
	} else {
		effReason = fmt.Sprintf("%d of %d steps repeat an earlier step (steps %s).", len(redundant), n, joinInts(redundant))
		if l := t.loop(); l > 0 {
			effReason += fmt.Sprintf(" The trajectory loops over a run of %d steps.", l)
		}
	}
	var done float64
	var failed []int
	for i := range n {
		d := t.stepDone(i)
		done += d
		if d == 0 {
			failed = append(failed, i+1)
		}
	}
	taskReason := fmt.Sprintf("All %d steps were done.", n)
	if len(failed) > 0 {
		taskReason = fmt.Sprintf("%d of %d steps failed or were not answered (steps %s).", len(failed), n, joinInts(failed))
	}
	return Result{
		"step_efficiency_score":  1 - float64(len(redundant))/float64(n),
		"step_efficiency_reason": effReason,
		"task_completion_score":  done / float64(n),
		"task_completion_reason": taskReason,
	}, nil
}

// redundantSteps lists (1-based) the steps whose prompt or completion
// repeats an earlier step's.
func (t *trajectory) redundantSteps() []int {
	var out []int
	for i := 1; i < t.steps(); i++ {
		for j := range i {
			if t.same(t.prompts, t.ptoks, i, j) || t.same(t.completions, t.ctoks, i, j) {
				out = append(out, i+1)
				break
			}
		}
	}
	return out
}

// same reports whether texts i and j of a list repeat each other.
func (t *trajectory) same(texts []string, toks [][]textsim.Token, i, j int) bool {
	if i >= len(texts) || j >= len(texts) || strings.TrimSpace(texts[i]) == "" {
		return false
	}
	if textsim.NormalizedEqual(texts[i], texts[j]) {
		return true
	}
	// Texts sharing less than a third of their words are not repeats;
	// skip the costlier similarity for them.
	if textsim.Jaccard(toks[i], toks[j]) < redundantOverlap {
		return false
	}
	return textsim.TokenSimilarity(texts[i], texts[j], toks[i], toks[j]) >= redundantSimilarity
}

// redundantOverlap is the least textsim.Jaccard of two steps' tokens for
// them to be compared as possible repeats.
const redundantOverlap = 1.0 / 3

// loop returns the length of the longest run of at least two steps
// repeated right after itself (prompts equal up to normalisation), 0 when
// there is none.
func (t *trajectory) loop() int {
	n := len(t.prompts)
	for l := n / 2; l >= 2; l-- {
		for s := 0; s+2*l <= n; s++ {
			rep := true
			for k := range l {
				if !textsim.NormalizedEqual(t.prompts[s+k], t.prompts[s+l+k]) {
					rep = false
					break
				}
			}
			if rep {
				return l
			}
		}
	}
	return 0
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
