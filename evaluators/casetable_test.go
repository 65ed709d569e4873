package evaluators

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// evalCase is one hand-written case of an evaluator: its input and
// config, and either what the result must hold (want: field → value;
// floats compared within 1e-9, strings starting with "~" as substrings,
// or with min/max bounds) and whether the guardrail passes, or the 400
// the request must answer (errField, and errMsg, the whole message, when
// set; the message always starts with the field's name).
type evalCase struct {
	name     string
	input    map[string]any
	config   map[string]any
	want     Result
	min, max map[string]float64
	pass     *bool
	errField string
	errMsg   string
}

var (
	passes = func() *bool { b := true; return &b }()
	fails  = func() *bool { b := false; return &b }()
)

// runCases runs the cases of slug through Evaluate, as the API does.
func runCases(t *testing.T, slug string, cases []evalCase) {
	t.Helper()
	d := mustLookup(t, slug)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), slug, tc.input, tc.config)
			if tc.errMsg != "" || tc.errField != "" {
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindInvalidInput || e.HTTPStatus() != 400 {
					t.Fatalf("got %v, %v; want a 400 %q", res, err, tc.errMsg)
				}
				if e.Field != tc.errField || (tc.errMsg != "" && e.Msg != tc.errMsg) || !strings.HasPrefix(e.Msg, tc.errField) {
					t.Errorf("400 on %q: %q; want on %q: %q", e.Field, e.Msg, tc.errField, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			for k, v := range tc.want {
				got, ok := res[k]
				if !ok {
					t.Errorf("%s missing from %v", k, res)
					continue
				}
				if f, isF := v.(float64); isF {
					if g, _ := got.(float64); math.Abs(g-f) > 1e-9 {
						t.Errorf("%s = %v, want %v (result %v)", k, got, v, res)
					}
					continue
				}
				if s, isS := v.(string); isS && strings.HasPrefix(s, "~") {
					if g, _ := got.(string); !strings.Contains(g, s[1:]) {
						t.Errorf("%s = %q, want it to contain %q", k, got, s[1:])
					}
					continue
				}
				if got != v {
					t.Errorf("%s = %#v, want %#v (result %v)", k, got, v, res)
				}
			}
			for k, lo := range tc.min {
				if g, _ := res[k].(float64); g < lo {
					t.Errorf("%s = %v, want at least %v (result %v)", k, res[k], lo, res)
				}
			}
			for k, hi := range tc.max {
				if g, _ := res[k].(float64); g > hi {
					t.Errorf("%s = %v, want at most %v (result %v)", k, res[k], hi, res)
				}
			}
			if tc.pass != nil && d.Pass(res) != *tc.pass {
				t.Errorf("Pass = %v, want %v (result %v)", d.Pass(res), *tc.pass, res)
			}
		})
	}
}
