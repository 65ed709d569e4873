package evaluators

import "testing"

func traj(prompts, completions string) map[string]any {
	return map[string]any{"trajectory_prompts": prompts, "trajectory_completions": completions}
}

func TestAgentEfficiency(t *testing.T) {
	runCases(t, "agent-efficiency", []evalCase{
		{name: "efficient and done", input: traj(`["Find user info", "Update email", "Save changes"]`, `["User found", "Email updated", "Changes saved"]`),
			want: Result{"step_efficiency_score": 1.0, "step_efficiency_reason": "No redundant step among 3."}, min: map[string]float64{"task_completion_score": 0.8}, pass: passes},
		{name: "repeated calls and failures", input: traj(`["search flights", "search flights", "search flights"]`, `["error: timeout", "error: timeout", "Found 3 flights"]`),
			want: Result{"step_efficiency_score": 1.0 / 3, "step_efficiency_reason": "~steps 2, 3", "task_completion_score": 1.0 / 3}, pass: fails},
		{name: "loop", input: traj(`["open page", "click next", "open page", "click next"]`, `["page opened", "clicked", "page opened", "clicked"]`),
			want: Result{"step_efficiency_score": 0.5, "step_efficiency_reason": "~loops over a run of 2 steps"}, pass: passes},
		{name: "unanswered steps", input: traj(`["Find user", "Update email", "Save"]`, `["User found"]`),
			want: Result{"task_completion_reason": "~2 of 3 steps failed or were not answered (steps 2, 3)"}, max: map[string]float64{"task_completion_score": 0.34}, pass: fails},
		{name: "role objects, system left out", input: traj(`[{"role": "system", "content": "be brief"}, {"role": "user", "content": "Find user info"}]`, `[{"role": "assistant", "content": [{"type": "text", "text": "User info found"}]}]`),
			want: Result{"step_efficiency_score": 1.0}, min: map[string]float64{"task_completion_score": 0.9}},
		{name: "empty trajectory", input: traj(`[]`, `[]`), errField: "input.trajectory_prompts", errMsg: "input.trajectory_prompts and input.trajectory_completions hold no step: send at least one prompt or completion"},
		{name: "not an array", input: traj(`"find user"`, `[]`), errField: "input.trajectory_prompts", errMsg: "input.trajectory_prompts must be a JSON array (of strings or of {role, content} objects) serialized into a string: json: cannot unmarshal string into Go value of type []json.RawMessage"},
		{name: "bad element", input: traj(`["a"]`, `[1]`), errField: "input.trajectory_completions", errMsg: "input.trajectory_completions[0] must be a string or a {role, content} object"},
	})
}

func TestAgentGoalCompleteness(t *testing.T) {
	runCases(t, "agent-goal-completeness", []evalCase{
		{name: "all goals", input: traj(`["Create new account", "Set preferences", "Enable notifications"]`, `["Account created", "Preferences saved", "Notifications enabled"]`),
			want: Result{"score": 1.0, "result": "complete", "reason": "All 3 goals were accomplished."}, pass: passes},
		{name: "a failure and an off-topic answer", input: traj(`["Create new account", "Set preferences", "Enable notifications"]`, `["Account created", "I could not save the preferences", "Here is a poem about cats"]`),
			want: Result{"result": "incomplete", "reason": "~2 of 3 goals were not accomplished"}, max: map[string]float64{"score": 0.5}, pass: fails},
		{name: "goal met at a later step", input: traj(`["Book a hotel in Rome", "and a taxi"]`, `["Searching...", "Hotel in Rome booked and taxi ordered"]`),
			want: Result{"result": "complete"}, min: map[string]float64{"score": 0.9}},
		{name: "threshold", input: traj(`["Create new account", "Enable notifications"]`, `["Account created", "Sorry, I was unable to do that"]`), config: map[string]any{"threshold": 0.8},
			want: Result{"score": 0.5, "result": "incomplete"}, pass: fails},
		{name: "threshold must be a number", input: traj(`["a"]`, `["b"]`), config: map[string]any{"threshold": "high"}, errField: "config.threshold", errMsg: "config.threshold must be a number, got string"},
	})
}

func TestAgentFlowQuality(t *testing.T) {
	in := traj(`["Search for flights", "Select the cheapest option", "Confirm booking"]`, `["Found 5 flights", "Selected $299 flight", "Booking confirmed"]`)
	conds := func(c ...any) map[string]any { return map[string]any{"conditions": c} }
	runCases(t, "agent-flow-quality", []evalCase{
		{name: "all met", input: in, config: conds("searched for flights", "search flights before booking", "no payment failure"),
			want: Result{"score": 1.0, "result": "pass", "reason": "All 3 conditions are met."}, pass: passes},
		{name: "order violated", input: in, config: conds("confirm booking before search flights"), want: Result{"score": 0.0, "result": "fail", "reason": "~not met"}, pass: fails},
		{name: "after", input: in, config: conds("booking confirmed after flights found"), want: Result{"score": 1.0}},
		{name: "negation violated", input: in, config: conds("never select the cheapest option", "searched flights"), want: Result{"score": 0.5, "result": "pass"}},
		{name: "missing step", input: in, config: conds("hotel reserved", "car rented", "flights searched"), want: Result{"result": "fail"}, max: map[string]float64{"score": 0.34}},
		{name: "threshold", input: in, config: map[string]any{"conditions": []any{"hotel reserved", "flights searched"}, "threshold": 0.9}, want: Result{"score": 0.5, "result": "fail"}},
		{name: "no conditions", input: in, want: Result{"score": 1.0, "result": "pass", "reason": "No condition was given."}},
		{name: "conditions not an array", input: in, config: map[string]any{"conditions": "no tools called"}, errField: "config.conditions", errMsg: "config.conditions must be an array of strings, got string"},
		{name: "condition not a string", input: in, config: conds("ok", 3.0), errField: "config.conditions", errMsg: "config.conditions[1] must be a string, got number"},
	})
}

func TestAgentGoalAccuracy(t *testing.T) {
	q := "Book a flight from NYC to LA for next Monday"
	ref := "Flight booked: NYC to LA, Monday departure"
	in := func(c string) map[string]any { return map[string]any{"question": q, "completion": c, "reference": ref} }
	runCases(t, "agent-goal-accuracy", []evalCase{
		{name: "achieved, other words", input: in("I have booked your flight from New York to Los Angeles departing Monday at 9am."), min: map[string]float64{"accuracy_score": 0.6}, pass: passes},
		{name: "same as reference", input: in("Flight booked: NYC to LA, Monday departure."), want: Result{"accuracy_score": 1.0}},
		{name: "failed", input: in("Sorry, I was unable to book the flight."), max: map[string]float64{"accuracy_score": 0.2}, pass: fails},
		{name: "wrong day", input: in("I booked your flight from NYC to LA for Friday."), max: map[string]float64{"accuracy_score": 0.5}, pass: fails},
		{name: "off topic", input: in("Here is a recipe for pancakes."), max: map[string]float64{"accuracy_score": 0.2}, pass: fails},
		{name: "empty", input: in(""), want: Result{"accuracy_score": 0.0}},
		{name: "missing reference", input: map[string]any{"question": q, "completion": "x"}, errField: "input.reference", errMsg: "input.reference is required"},
	})
}
