package evaluators

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// judgeCase is one table case of a judge evaluator run through Evaluate.
type judgeCase struct {
	name  string
	input map[string]any
	check func(t *testing.T, r Result)
}

// runJudgeCases evaluates every case with slug and applies its check.
func runJudgeCases(t *testing.T, slug string, cases []judgeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Evaluate(context.Background(), slug, c.input, nil)
			if err != nil {
				t.Fatalf("Evaluate(%s): %v", slug, err)
			}
			c.check(t, r)
		})
	}
}

// judgeBool checks a boolean output field.
func judgeBool(field string, want bool) func(*testing.T, Result) {
	return func(t *testing.T, r Result) {
		t.Helper()
		got, ok := r[field].(bool)
		if !ok || got != want {
			t.Errorf("%s = %v, want %v", field, r[field], want)
		}
	}
}

// judgeScore checks that a numeric output field lies in [lo, hi].
func judgeScore(field string, lo, hi float64) func(*testing.T, Result) {
	return func(t *testing.T, r Result) {
		t.Helper()
		got, ok := r[field].(float64)
		if !ok || got < lo || got > hi {
			t.Errorf("%s = %v, want in [%g, %g]", field, r[field], lo, hi)
		}
	}
}

// judgeInvalid checks that Evaluate rejects input with a KindInvalidInput
// error about field whose message contains msg.
func judgeInvalid(t *testing.T, slug string, input map[string]any, field, msg string) {
	t.Helper()
	_, err := Evaluate(context.Background(), slug, input, nil)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Evaluate(%s) error = %v, want *Error", slug, err)
	}
	if e.Kind != KindInvalidInput || e.HTTPStatus() != 400 {
		t.Errorf("kind = %v (status %d), want KindInvalidInput (400)", e.Kind, e.HTTPStatus())
	}
	if e.Field != field {
		t.Errorf("field = %q, want %q", e.Field, field)
	}
	if !strings.Contains(e.Msg, msg) {
		t.Errorf("message %q does not contain %q", e.Msg, msg)
	}
}

func TestJudgesRequireTheirInputs(t *testing.T) {
	cases := []struct {
		slug  string
		input map[string]any
		field string
	}{
		{"uncertainty-detector", map[string]any{}, "input.prompt"},
		{"faithfulness", map[string]any{"completion": "a", "question": "q"}, "input.context"},
		{"answer-correctness", map[string]any{"question": "q", "completion": "a"}, "input.ground_truth"},
		{"answer-relevancy", map[string]any{"answer": "a"}, "input.question"},
		{"semantic-similarity", map[string]any{"completion": "a", "reference": 3.0}, "input.reference"},
		{"conversation-quality", map[string]any{"prompts": "[]"}, "input.completions"},
	}
	for _, c := range cases {
		t.Run(c.slug, func(t *testing.T) {
			msg := c.field + " is required"
			if c.slug == "semantic-similarity" {
				msg = c.field + " must be a string, got number"
			}
			judgeInvalid(t, c.slug, c.input, c.field, msg)
		})
	}
}
