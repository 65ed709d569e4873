package telemetrytest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Render returns the documentation.md of md in mdatagen's format: one
// section per enabled metric, sorted by name, with its unit, kind, value
// type, monotonicity and attributes. It is empty when md declares no
// metrics (mdatagen writes no file then).
func Render(md Metadata) []byte {
	names := sortedKeys(md.Metrics)
	var b bytes.Buffer
	n := 0
	for _, name := range names {
		if md.Metrics[name].Enabled {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	fmt.Fprintf(&b, "[comment]: <> (Generated from metadata.yaml by internal/telemetrytest, in mdatagen's format: run `go test -run TestDocumentation -update` in this directory. DO NOT EDIT.)\n\n")
	fmt.Fprintf(&b, "# %s\n\n## Internal Telemetry\n\nThe following telemetry is emitted by this component.\n", md.Type)
	for _, name := range names {
		m := md.Metrics[name]
		if !m.Enabled {
			continue
		}
		kind, valueType, _ := m.kind()
		fmt.Fprintf(&b, "\n### %s\n\n%s\n\n", name, m.Description)
		header := []string{"Unit", "Metric Type", "Value Type"}
		row := []string{m.Unit, kind, titled(valueType)}
		if m.Sum != nil {
			header, row = append(header, "Monotonic"), append(row, fmt.Sprint(m.Sum.Monotonic))
		}
		if m.Stability != "" {
			header, row = append(header, "Stability"), append(row, titled(m.Stability))
		}
		table(&b, header, [][]string{row})
		if len(m.Attributes) == 0 {
			continue
		}
		b.WriteString("\n#### Attributes\n\n")
		var rows [][]string
		for _, key := range m.Attributes {
			a := md.Attributes[key]
			rows = append(rows, []string{a.Name(key), a.Description, values(a)})
		}
		table(&b, []string{"Name", "Description", "Values"}, rows)
	}
	return b.Bytes()
}

func table(b *bytes.Buffer, header []string, rows [][]string) {
	rule := make([]string, len(header))
	for i, h := range header {
		rule[i] = strings.Repeat("-", len(h))
	}
	for _, r := range append([][]string{header, rule}, rows...) {
		fmt.Fprintf(b, "| %s |\n", strings.Join(r, " | "))
	}
}

var valueTypes = map[string]string{"string": "Str", "int": "Int", "double": "Double", "bool": "Bool"}

func values(a Attribute) string {
	t := valueTypes[a.Type]
	if len(a.Enum) == 0 {
		return "Any " + t
	}
	quoted := make([]string, len(a.Enum))
	for i, v := range a.Enum {
		quoted[i] = "``" + v + "``"
	}
	return t + ": " + strings.Join(quoted, ", ")
}

func titled(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// CheckDocumentation compares dir/documentation.md with Render of the
// metadata; with update it rewrites (or removes) the file instead.
func CheckDocumentation(dir string, md Metadata, update bool) error {
	path := filepath.Join(dir, "documentation.md")
	want := Render(md)
	if update {
		if want == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", path, err)
			}
			return nil
		}
		return os.WriteFile(path, want, 0o644)
	}
	got, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && want == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s is missing: run go test -run TestDocumentation -update in %s", path, dir)
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case want == nil:
		return fmt.Errorf("%s documents metrics but metadata.yaml declares none", path)
	case !bytes.Equal(got, want):
		return fmt.Errorf("%s is out of date with metadata.yaml: run go test -run TestDocumentation -update in %s and review the diff", path, dir)
	}
	return nil
}
