package evaluators

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// evaluateOK runs Evaluate and fails the test on an error.
func evaluateOK(t testing.TB, slug string, input, config map[string]any) Result {
	t.Helper()
	res, err := Evaluate(context.Background(), slug, input, config)
	if err != nil {
		t.Fatalf("Evaluate(%s): %v", slug, err)
	}
	return res
}

// checkInvalidInput asserts that err is a 400 about field whose message
// contains want.
func checkInvalidInput(t testing.TB, err error, field, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *Error", err, err)
	}
	if e.Kind != KindInvalidInput || e.HTTPStatus() != 400 {
		t.Errorf("error %q: kind %d, status %d, want invalid input (400)", err, e.Kind, e.HTTPStatus())
	}
	if e.Field != field {
		t.Errorf("error %q: field %q, want %q", err, e.Field, field)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q, want it to contain %q", err, want)
	}
}

// regexCase is a case shared by the two regex evaluators: the pattern,
// the text, the config flags (without the pattern) and the expected
// is_valid_regex (checked against Python's re.search).
type regexCase struct {
	name    string
	pattern string
	text    string
	flags   map[string]any
	want    bool
}

var regexCases = []regexCase{
	{"found, defaults", `\d{3}-\d{4}`, "call 555-1234 now", nil, true},
	{"absent, defaults", `\d{3}-\d{4}`, "call me", nil, false},
	{"found, should not match", `secret`, "a secret word", map[string]any{"should_match": false}, false},
	{"absent, should not match", `secret`, "a public word", map[string]any{"should_match": false}, true},
	{"case sensitive by default", `hello`, "HELLO", nil, false},
	{"case insensitive", `hello`, "HELLO", map[string]any{"case_sensitive": false}, true},
	{"dot stops at newline by default", `a.b`, "a\nb", nil, false},
	{"dot includes newline", `a.b`, "a\nb", map[string]any{"dot_include_nl": true}, true},
	{"caret at text start by default", `^b`, "a\nb", nil, false},
	{"caret at every line", `^b`, "a\nb", map[string]any{"multi_line": true}, true},
	{"python named group", `(?P<w>\w+) (?P=w)`, "it is is so", nil, true},
	{"python end of string", `done\Z`, "done\n", nil, false},
	{"unicode digits", `^\d+$`, "٣٤٥", nil, true},
	{"empty text", `x`, "", nil, false},
	{"empty pattern matches", ``, "anything", nil, true},
}

func TestRegexValidator(t *testing.T) {
	for _, tt := range regexCases {
		t.Run(tt.name, func(t *testing.T) {
			config := map[string]any{"regex": tt.pattern}
			for k, v := range tt.flags {
				config[k] = v
			}
			res := evaluateOK(t, "regex-validator", map[string]any{"text": tt.text}, config)
			if got := res["is_valid_regex"]; got != tt.want {
				t.Errorf("is_valid_regex = %v, want %v", got, tt.want)
			}
			d, _ := Lookup("regex-validator")
			if d.Pass(res) != tt.want {
				t.Errorf("Pass = %v, want %v", d.Pass(res), tt.want)
			}
		})
	}
}

func TestRegexValidatorInvalid(t *testing.T) {
	tests := []struct {
		name          string
		input, config map[string]any
		field, want   string
	}{
		{"no config", map[string]any{"text": "x"}, nil, "config.regex", "config.regex is required"},
		{"regex missing", map[string]any{"text": "x"}, map[string]any{"should_match": true}, "config.regex", "config.regex is required"},
		{"regex null", map[string]any{"text": "x"}, map[string]any{"regex": nil}, "config.regex", "config.regex is required"},
		{"regex not a string", map[string]any{"text": "x"}, map[string]any{"regex": 12.0}, "config.regex", "config.regex must be a string, got number"},
		{"regex does not compile", map[string]any{"text": "x"}, map[string]any{"regex": "(abc"}, "config.regex", "config.regex is not a valid regex: error parsing regexp: missing closing )"},
		{"unknown group name", map[string]any{"text": "x"}, map[string]any{"regex": "(?P=nope)"}, "config.regex", `config.regex is not a valid regex: unknown group name "nope"`},
		{"flag not a boolean", map[string]any{"text": "x"}, map[string]any{"regex": "x", "case_sensitive": "no"}, "config.case_sensitive", "config.case_sensitive must be a boolean, got string"},
		{"text missing", map[string]any{}, map[string]any{"regex": "x"}, "input.text", "input.text is required"},
		{"text not a string", map[string]any{"text": true}, map[string]any{"regex": "x"}, "input.text", "input.text must be a string, got boolean"},
		{"pattern too large to compile", map[string]any{"text": "x"}, map[string]any{"regex": strings.Repeat("x", 64<<10+1)}, "config.regex", "config.regex is not a valid regex: pattern too large: 65537 bytes, at most 65536 are compiled"},
		{"catastrophic backtracking", map[string]any{"text": strings.Repeat("a", 50000) + "!"}, map[string]any{"regex": "(a+)+$"}, "config.regex", "config.regex: regex timed out after 250ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "regex-validator", tt.input, tt.config)
			if err == nil {
				t.Fatalf("Evaluate = %v, want an error", res)
			}
			checkInvalidInput(t, err, tt.field, tt.want)
		})
	}
}

func BenchmarkRegexValidator(b *testing.B) {
	input := map[string]any{"text": benchmarkEnglish1KB}
	config := map[string]any{"regex": `\bquick\b`, "case_sensitive": false}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(context.Background(), "regex-validator", input, config); err != nil {
			b.Fatal(err)
		}
	}
}
