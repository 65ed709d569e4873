// Package alerting raises alerts when evaluation quality drops: rules
// ("pass rate of evaluator E below X % over the last N minutes, with at
// least K evaluations", "mean score above or below X", "no spans for N
// minutes"), a state machine that fires a rule once, repeats at most
// every configured interval and resolves once, webhook notifications
// (signed JSON, or a Slack-compatible payload) to the addresses the
// operator configured, and a runner that evaluates the rules of every
// environment on a schedule under a lease, so that one collector of a
// shared warehouse fires each alert.
package alerting

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Rule kinds.
const (
	KindPassRate  = "pass_rate"
	KindMeanScore = "mean_score"
	KindNoSpans   = "no_spans"
)

// Limits of rules.
const (
	MaxWindowMinutes = 7 * 24 * 60
	MaxNotify        = 8
	MaxNameBytes     = 200
)

var slugPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)

// Rule is an alert rule of one environment. Its JSON form is the API's.
type Rule struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Evaluator is the evaluator slug of pass_rate and mean_score rules.
	Evaluator string `json:"evaluator,omitempty"`
	// Workflow and Monitor narrow pass_rate and mean_score rules to one
	// workflow and one monitor (empty: any).
	Workflow string `json:"workflow,omitempty"`
	Monitor  string `json:"monitor,omitempty"`
	// Threshold is a percentage (0-100) for pass_rate rules, which fire
	// below it, and a score for mean_score rules, which fire below or
	// above it as Direction says.
	Threshold float64 `json:"threshold"`
	Direction string  `json:"direction,omitempty"` // mean_score: "below" or "above"
	// WindowMinutes is the time the rule looks back.
	WindowMinutes int `json:"window_minutes"`
	// MinEvaluations is how many results a window needs before a
	// pass_rate or mean_score rule decides anything.
	MinEvaluations int `json:"min_evaluations"`
	// RepeatMinutes is how often a firing rule notifies again (0: once).
	RepeatMinutes int `json:"repeat_minutes"`
	// Notify names webhooks of the collector's configuration.
	Notify []string `json:"notify"`
	// SilencedUntil mutes notifications until then (the state still
	// changes and is recorded).
	SilencedUntil *time.Time `json:"silenced_until,omitempty"`
}

// FieldError is a mistake in a rule: Field names the field.
type FieldError struct{ Field, Msg string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErrorf(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks a rule; webhooks lists the names of the configured
// webhooks it may notify.
func (r Rule) Validate(webhooks map[string]bool) error {
	if strings.TrimSpace(r.Name) == "" || len(r.Name) > MaxNameBytes || !utf8.ValidString(r.Name) {
		return fieldErrorf("name", "is required (valid UTF-8, at most %d bytes)", MaxNameBytes)
	}
	switch r.Kind {
	case KindPassRate, KindMeanScore:
		if !slugPattern.MatchString(r.Evaluator) {
			return fieldErrorf("evaluator", "an evaluator slug is required for a %s rule", r.Kind)
		}
		if r.MinEvaluations < 1 {
			return fieldErrorf("min_evaluations", "must be at least 1, got %d", r.MinEvaluations)
		}
	case KindNoSpans:
		if r.Evaluator != "" || r.Workflow != "" || r.Monitor != "" {
			return fieldErrorf("kind", "a no_spans rule takes no evaluator, workflow or monitor")
		}
	default:
		return fieldErrorf("kind", "%q is not one of pass_rate, mean_score, no_spans", r.Kind)
	}
	for name, v := range map[string]string{"workflow": r.Workflow, "monitor": r.Monitor} {
		if len(v) > 256 || !utf8.ValidString(v) {
			return fieldErrorf(name, "must be valid UTF-8 of at most 256 bytes")
		}
	}
	if math.IsNaN(r.Threshold) || math.IsInf(r.Threshold, 0) {
		return fieldErrorf("threshold", "must be a finite number")
	}
	switch r.Kind {
	case KindPassRate:
		if r.Threshold < 0 || r.Threshold > 100 {
			return fieldErrorf("threshold", "a pass rate threshold is a percentage from 0 to 100, got %g", r.Threshold)
		}
		if r.Direction != "" && r.Direction != "below" {
			return fieldErrorf("direction", "a pass_rate rule fires below its threshold")
		}
	case KindMeanScore:
		if r.Direction != "below" && r.Direction != "above" {
			return fieldErrorf("direction", "must be below or above, got %q", r.Direction)
		}
	}
	if r.WindowMinutes < 1 || r.WindowMinutes > MaxWindowMinutes {
		return fieldErrorf("window_minutes", "must be from 1 to %d, got %d", MaxWindowMinutes, r.WindowMinutes)
	}
	if r.RepeatMinutes < 0 || r.RepeatMinutes > MaxWindowMinutes {
		return fieldErrorf("repeat_minutes", "must be from 0 (never) to %d, got %d", MaxWindowMinutes, r.RepeatMinutes)
	}
	if len(r.Notify) > MaxNotify {
		return fieldErrorf("notify", "at most %d webhooks", MaxNotify)
	}
	for i, n := range r.Notify {
		if !webhooks[n] {
			return fieldErrorf(fmt.Sprintf("notify[%d]", i), "%q is not a webhook of this collector's configuration (extensions.evalapi.alerts.webhooks)", n)
		}
	}
	return nil
}

// Condition describes when the rule fires, in words.
func (r Rule) Condition() string {
	scope := ""
	if r.Workflow != "" {
		scope += " in workflow " + r.Workflow
	}
	if r.Monitor != "" {
		scope += " of monitor " + r.Monitor
	}
	switch r.Kind {
	case KindPassRate:
		return fmt.Sprintf("pass rate of %s%s below %g %% over %d min (at least %d evaluations)", r.Evaluator, scope, r.Threshold, r.WindowMinutes, r.MinEvaluations)
	case KindMeanScore:
		return fmt.Sprintf("mean score of %s%s %s %g over %d min (at least %d evaluations)", r.Evaluator, scope, r.Direction, r.Threshold, r.WindowMinutes, r.MinEvaluations)
	case KindNoSpans:
		return fmt.Sprintf("no spans received for %d min", r.WindowMinutes)
	}
	return r.Kind
}

// Silenced reports whether the rule's notifications are muted at now.
func (r Rule) Silenced(now time.Time) bool {
	return r.SilencedUntil != nil && now.Before(*r.SilencedUntil)
}
