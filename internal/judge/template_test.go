package judge

import (
	"errors"
	"testing"
)

func TestRender(t *testing.T) {
	input := map[string]any{"text": "Paris {{secret}} }}", "n": 3.0, "ok": true, "secret": "LEAK", "a.b": "dotted"}
	for _, tc := range []struct{ name, tpl, want string }{
		{"plain", "no placeholders {", "no placeholders {"},
		{"one field", "Judge: {{text}}", "Judge: Paris {{secret}} }}"},
		{"spaces inside braces", "{{ text }}!", "Paris {{secret}} }}!"},
		{"non-string as JSON", "n={{n}} ok={{ok}}", "n=3 ok=true"},
		{"twice", "{{n}}{{n}}", "33"},
		{"dotted name", "{{a.b}}", "dotted"},
		{"not a placeholder stays", "{{ not a name }} {{", "{{ not a name }} {{"},
		{"unclosed stays", "x {{text", "x {{text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Render(tc.tpl, input)
			if err != nil || got != tc.want {
				t.Errorf("Render(%q) = %q, %v; want %q", tc.tpl, got, err, tc.want)
			}
		})
	}
}

// TestRenderInputIsData: a value holding placeholder syntax is inserted
// as it is; the secret field it names is never expanded into the prompt.
func TestRenderInputIsData(t *testing.T) {
	got, err := Render("<{{text}}>", map[string]any{"text": "{{secret}}", "secret": "LEAK"})
	if err != nil || got != "<{{secret}}>" {
		t.Errorf("got %q, %v; want the value verbatim", got, err)
	}
}

func TestRenderMissingField(t *testing.T) {
	_, err := Render("Q: {{question}} A: {{answer}}", map[string]any{"question": "q", "answer": nil})
	var mf *MissingFieldError
	if !errors.As(err, &mf) || mf.Field != "answer" {
		t.Fatalf("err = %v, want a MissingFieldError naming answer", err)
	}
	if err.Error() != `input field "answer" is missing (the prompt uses {{answer}})` {
		t.Errorf("message = %q", err.Error())
	}
}

func TestPlaceholders(t *testing.T) {
	got := Placeholders("{{b}} {{a}} {{ b }} {{x y}}")
	if len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Errorf("Placeholders = %v, want [b a]", got)
	}
}

func TestVerdictOf(t *testing.T) {
	fs := []Field{{Name: "reason", Type: TypeString}, {Name: "score", Type: TypeNumber}, {Name: "pass", Type: TypeBoolean}}
	v := VerdictOf(fs, map[string]any{"reason": "r", "score": 0.75, "pass": false})
	if v.Passed == nil || *v.Passed || v.Score == nil || *v.Score != 0.75 {
		t.Errorf("verdict = %+v, want pass false, score 0.75", v)
	}
	if v := VerdictOf([]Field{{Name: "label", Type: TypeString}}, map[string]any{"label": "x"}); v.Passed != nil || v.Score != nil {
		t.Errorf("verdict of a string-only output = %+v, want none", v)
	}
}

func TestCheckFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		fs   []Field
		want string
	}{
		{"empty name", []Field{{Type: "string"}}, "output_schema[0].name: must not be empty"},
		{"bad type", []Field{{Name: "a", Type: "float"}}, `output_schema[0].type: "float" is not a type (use one of string, number, integer, boolean)`},
		{"duplicate", []Field{{Name: "a", Type: "string"}, {Name: "a", Type: "number"}}, `output_schema[1].name: "a" is listed twice`},
		{"enum on number", []Field{{Name: "a", Type: "number", EnumValues: []string{"1"}}}, "output_schema[0].enum_values: only a string field may list values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckFields("output_schema", tc.fs); err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if err := CheckFields("output_schema", []Field{{Name: "passed", Type: "boolean"}, {Name: "label", Type: "string", EnumValues: []string{"a"}}}); err != nil {
		t.Errorf("valid schema: %v", err)
	}
}
