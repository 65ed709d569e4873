package console

import (
	"net/url"
	"strings"
	"testing"
)

// TestPlaygroundStringArrayConfig: a string-array config field
// (agent-flow-quality's conditions) is a textarea, one element per line,
// and the evaluator runs on those lines.
func TestPlaygroundStringArrayConfig(t *testing.T) {
	s := newTestServer(t, false, nil)
	c := s.client(t)
	s.login(t, c, keyA)
	page := do(t, c, "GET", s.URL+"/ui/evaluators/agent-flow-quality", nil)
	if page.status != 200 || !strings.Contains(page.body, `<textarea id="config-conditions" name="config.conditions"`) {
		t.Fatalf("playground = %d; no textarea for config.conditions", page.status)
	}
	form := url.Values{
		"csrf":                         {csrf(t, page.body)},
		"input.trajectory_prompts":     {`["Search for flights", "Confirm booking"]`},
		"input.trajectory_completions": {`["Found 5 flights", "Booking confirmed"]`},
		"config.conditions":            {"search flights before booking\n\nhotel reserved\n"},
	}
	a := do(t, c, "POST", s.URL+"/ui/evaluators/agent-flow-quality", form)
	if a.status != 200 || !strings.Contains(a.body, "1 of 2 conditions are not met") || !strings.Contains(a.body, "hotel reserved") {
		t.Errorf("playground run = %d, want the two conditions judged:\n%.3000s", a.status, a.body)
	}
}
