package judge

import (
	"strings"
	"testing"
)

// FuzzRender: whatever the input's text, it goes into the prompt once and
// verbatim, and nothing else of the template changes; scanning any
// template and finding JSON in any answer never panics.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"", "{{x}}", "{{secret}}", "}}{{", "{{ x }} {{", "{\"passed\": true}", strings.Repeat("{", 100)} {
		f.Add(s, "before {{x}} after")
	}
	f.Fuzz(func(t *testing.T, value, tpl string) {
		got, err := Render("<{{x}}>", map[string]any{"x": value, "secret": "LEAK"})
		if err != nil || got != "<"+value+">" {
			t.Fatalf("Render of %q = %q, %v", value, got, err)
		}
		_ = Placeholders(tpl)
		if out, err := Render(tpl, map[string]any{"x": value}); err == nil && len(Placeholders(tpl)) == 0 && out != tpl {
			t.Fatalf("a template without placeholders changed: %q -> %q", tpl, out)
		}
		_, _ = firstJSONObject(value)
	})
}
