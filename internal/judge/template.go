package judge

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Templates: a message's content may name input fields as {{field}}
// (spaces inside the braces are allowed: {{ field }}). Rendering is one
// pass over the template: each placeholder is replaced by the field's
// value and the value is never scanned again, so an input holding "{{x}}"
// or any other text stays data and cannot change the prompt's structure.
// A "{{" that does not open a placeholder (no closing "}}" or a name that
// is not a field name) is kept as it is.

// placeholder is one {{name}} of a template: its name and the byte span
// it covers.
type placeholder struct {
	name       string
	start, end int
}

// isNameByte reports whether c may appear in a field name.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// scan returns the placeholders of tpl in order.
func scan(tpl string) []placeholder {
	var out []placeholder
	for i := 0; i < len(tpl); {
		open := strings.Index(tpl[i:], "{{")
		if open < 0 {
			break
		}
		open += i
		closeAt := strings.Index(tpl[open+2:], "}}")
		if closeAt < 0 {
			break
		}
		closeAt += open + 2
		name := strings.TrimSpace(tpl[open+2 : closeAt])
		valid := name != ""
		for j := 0; j < len(name) && valid; j++ {
			valid = isNameByte(name[j])
		}
		if !valid {
			i = open + 2
			continue
		}
		out = append(out, placeholder{name: name, start: open, end: closeAt + 2})
		i = closeAt + 2
	}
	return out
}

// Placeholders returns the distinct field names tpl refers to, in order of
// first use.
func Placeholders(tpl string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range scan(tpl) {
		if !seen[p.name] {
			seen[p.name] = true
			out = append(out, p.name)
		}
	}
	return out
}

// MissingFieldError is the error of a template naming an input field the
// input does not have.
type MissingFieldError struct{ Field string }

func (e *MissingFieldError) Error() string {
	return fmt.Sprintf("input field %q is missing (the prompt uses {{%s}})", e.Field, e.Field)
}

// Render fills tpl's placeholders from input in one pass. A string value
// goes in as it is; any other value as its JSON encoding. A field the
// input lacks is a *MissingFieldError naming it.
func Render(tpl string, input map[string]any) (string, error) {
	ps := scan(tpl)
	if len(ps) == 0 {
		return tpl, nil
	}
	var b strings.Builder
	last := 0
	for _, p := range ps {
		v, ok := input[p.name]
		if !ok || v == nil {
			return "", &MissingFieldError{Field: p.name}
		}
		b.WriteString(tpl[last:p.start])
		switch t := v.(type) {
		case string:
			b.WriteString(t)
		default:
			enc, err := json.Marshal(t)
			if err != nil {
				return "", fmt.Errorf("input field %q: cannot encode its value: %w", p.name, err)
			}
			b.Write(enc)
		}
		last = p.end
	}
	b.WriteString(tpl[last:])
	return b.String(), nil
}
