package alerting

import (
	"strings"
	"testing"
	"time"
)

func TestStepFiresRepeatsResolvesOnce(t *testing.T) {
	r := Rule{ID: "r", Name: "tox", Kind: KindPassRate, Evaluator: "toxicity-detector", Threshold: 90, WindowMinutes: 15, MinEvaluations: 10, RepeatMinutes: 30}
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	s := State{Status: StatusUnknown}
	var kinds []string
	for i, m := range []Measurement{
		{Value: 50, Count: 3},  // too few: no data
		{Value: 99, Count: 20}, // ok
		{Value: 70, Count: 20}, // fires
		{Value: 60, Count: 20}, // still firing, 1 min later: no repeat
		{Value: 60, Count: 4},  // too few while firing: stays firing
		{Value: 65, Count: 20}, // 31 min after firing: repeats
		{Value: 95, Count: 20}, // resolves
		{Value: 96, Count: 20}, // stays ok
		{Value: 80, Count: 20}, // fires again
	} {
		now := t0.Add(time.Duration([]int{0, 1, 2, 3, 10, 33, 34, 35, 36}[i]) * time.Minute)
		var ev *Event
		s, ev = Step(r, s, m, now)
		if ev != nil {
			kinds = append(kinds, ev.Kind)
			if ev.Value != m.Value || ev.Count != m.Count || !ev.Time.Equal(now) {
				t.Errorf("event %+v for %+v at %v", ev, m, now)
			}
		}
		want := []string{StatusNoData, StatusOK, StatusFiring, StatusFiring, StatusFiring, StatusFiring, StatusOK, StatusOK, StatusFiring}[i]
		if s.Status != want {
			t.Errorf("step %d (%+v): status %s, want %s", i, m, s.Status, want)
		}
	}
	if got := strings.Join(kinds, " "); got != "fired repeated resolved fired" {
		t.Errorf("events %q", got)
	}
}

func TestStepSilencedAndNoSpansAndMeanScore(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	until := t0.Add(time.Hour)
	r := Rule{Kind: KindNoSpans, WindowMinutes: 5, SilencedUntil: &until}
	s, ev := Step(r, State{}, Measurement{Count: 0}, t0)
	if s.Status != StatusFiring || ev == nil || !ev.Silenced || !s.LastNotified.IsZero() {
		t.Errorf("a silenced no_spans rule: %+v %+v", s, ev)
	}
	if s, ev = Step(r, s, Measurement{Count: 1}, t0.Add(2*time.Hour)); s.Status != StatusOK || ev == nil || ev.Kind != EventResolved || ev.Silenced {
		t.Errorf("resolving after the silence: %+v %+v", s, ev)
	}
	above := Rule{Kind: KindMeanScore, Direction: "above", Threshold: 0.5, MinEvaluations: 1, WindowMinutes: 5}
	if _, ev := Step(above, State{}, Measurement{Value: 0.7, Count: 3}, t0); ev == nil || ev.Kind != EventFired {
		t.Errorf("mean score 0.7 above 0.5 did not fire: %+v", ev)
	}
	if _, ev := Step(above, State{}, Measurement{Value: 0.3, Count: 3}, t0); ev != nil {
		t.Errorf("mean score 0.3 fired an above-0.5 rule: %+v", ev)
	}
}

func TestRuleValidate(t *testing.T) {
	hooks := map[string]bool{"ops": true}
	good := Rule{Name: "tox", Kind: KindPassRate, Evaluator: "toxicity-detector", Threshold: 90, WindowMinutes: 15, MinEvaluations: 10, Notify: []string{"ops"}}
	if err := good.Validate(hooks); err != nil {
		t.Fatalf("a good rule: %v", err)
	}
	for _, tc := range []struct {
		change func(*Rule)
		want   string
	}{
		{func(r *Rule) { r.Kind = "p99" }, `kind: "p99" is not one of pass_rate, mean_score, no_spans`},
		{func(r *Rule) { r.Threshold = 120 }, "threshold: a pass rate threshold is a percentage from 0 to 100, got 120"},
		{func(r *Rule) { r.Notify = []string{"https://attacker.example/"} }, `notify[0]: "https://attacker.example/" is not a webhook of this collector's configuration`},
		{func(r *Rule) { r.WindowMinutes = 0 }, "window_minutes: must be from 1 to 10080, got 0"},
		{func(r *Rule) { r.Evaluator = "" }, "evaluator: an evaluator slug is required"},
		{func(r *Rule) { r.Kind, r.Direction = KindMeanScore, "sideways" }, `direction: must be below or above, got "sideways"`},
		{func(r *Rule) { r.Name = "" }, "name: is required"},
	} {
		r := good
		tc.change(&r)
		if err := r.Validate(hooks); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
