package metagen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the components' status files from their metadata.yaml")

// module is the repository's module path.
const module = "github.com/evalcol/evalcol"

// TestStatusFilesAreCurrent compares each component's
// internal/metadata/generated_status.go with what its metadata.yaml says.
func TestStatusFilesAreCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	var found int
	for _, kind := range []string{"connector", "exporter", "extension", "processor", "receiver"} {
		dirs, _ := filepath.Glob(filepath.Join(root, kind, "*", "metadata.yaml"))
		for _, path := range dirs {
			found++
			dir := filepath.Dir(path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(data)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			rel, _ := filepath.Rel(root, dir)
			want, err := Render(m, module+"/"+filepath.ToSlash(rel))
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			status := filepath.Join(dir, "internal", "metadata", "generated_status.go")
			if *update {
				if err := os.WriteFile(status, want, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(status)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is not what %s says (err %v); run go test ./internal/metagen -update", status, path, err)
			}
		}
	}
	if found < 5 {
		t.Errorf("found %d components, want the five of the distribution", found)
	}
}

func TestRender(t *testing.T) {
	m, err := Parse([]byte("type: evaluationmetrics\nstatus:\n  class: connector\n  stability:\n    alpha: [traces_to_metrics]\n    beta: [logs]\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(m, module+"/connector/x")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`var Type = component.MustNewType("evaluationmetrics")`, "const TracesToMetricsStability = component.StabilityLevelAlpha",
		"const LogsStability = component.StabilityLevelBeta", `const ScopeName = "github.com/evalcol/evalcol/connector/x"`, "DO NOT EDIT"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendered file lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"type: x\n", "status: {class: processor}\n", "type: x\nstatus: {class: processor, stability: {experimental: [traces]}}\n"} {
		m, err := Parse([]byte(bad))
		if err == nil {
			_, err = Render(m, "x")
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
