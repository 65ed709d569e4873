package evaluatorprocessor

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"

	"github.com/evalcol/evalcol/internal/monitor"
)

// judgeHost is an extension with the judge providers it names.
type judgeHost struct {
	component.StartFunc
	component.ShutdownFunc
	providers []string
}

func (j judgeHost) HasJudgeProvider(name string) bool {
	for _, p := range j.providers {
		if p == name {
			return true
		}
	}
	return false
}
func (j judgeHost) JudgeProviders() []string { return j.providers }

func TestJudgeProvidersCheckedAtStart(t *testing.T) {
	compiler, err := monitor.NewCompiler(componenttest.NewNopTelemetrySettings())
	if err != nil {
		t.Fatal(err)
	}
	m, err := compiler.Compile(monitor.Spec{Name: "tone", SampleRate: 1, Evaluators: []monitor.EvaluatorSpec{
		{Slug: "tone-detection", Judge: &monitor.JudgeRef{Provider: "ollama", Model: "qwen2.5:7b"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkJudges([]*monitor.Monitor{m}, judgeHost{providers: []string{"ollama"}}); err != nil {
		t.Errorf("configured provider refused: %v", err)
	}
	err = checkJudges([]*monitor.Monitor{m}, judgeHost{providers: []string{"vllm", "claude"}})
	if err == nil || !strings.Contains(err.Error(), `monitor "tone": evaluator "tone-detection" names judge provider "ollama", which the extension's judge.providers does not configure (configured: vllm, claude)`) {
		t.Errorf("unknown provider: %v", err)
	}
	noJudges := struct {
		component.StartFunc
		component.ShutdownFunc
	}{}
	if err := checkJudges([]*monitor.Monitor{m}, noJudges); err == nil || !strings.Contains(err.Error(), "the extension has no judges") {
		t.Errorf("an extension without judges: %v", err)
	}
}
