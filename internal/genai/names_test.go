package genai

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestExtractNamesAgreesWithExtract: ExtractNames answers the names that
// Extract answers, for each convention that names a workflow, entity or
// agent.
func TestExtractNamesAgreesWithExtract(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]any
		want  Names
	}{
		{"none", map[string]any{"gen_ai.operation.name": "chat"}, Names{}},
		{"workflow and entity", map[string]any{"traceloop.workflow.name": "support", "traceloop.entity.name": "answer"},
			Names{Workflow: "support", Entity: "answer"}},
		{"gen_ai agent", map[string]any{"gen_ai.agent.name": "planner", "traceloop.workflow.name": "trip"},
			Names{Workflow: "trip", Agent: "planner"}},
		{"agent.name", map[string]any{"agent.name": "booker"}, Names{Agent: "booker"}},
		{"gen_ai agent wins over agent.name", map[string]any{"agent.name": "old", "gen_ai.agent.name": "new"}, Names{Agent: "new"}},
		{"traceloop agent span", map[string]any{"traceloop.span.kind": "agent", "traceloop.entity.name": "researcher"},
			Names{Entity: "researcher", Agent: "researcher"}},
		{"traceloop task span", map[string]any{"traceloop.span.kind": "task", "traceloop.entity.name": "lookup"},
			Names{Entity: "lookup"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attrs := pcommon.NewMap()
			if err := attrs.FromRaw(tt.attrs); err != nil {
				t.Fatal(err)
			}
			got := ExtractNames(attrs)
			if got != tt.want {
				t.Errorf("ExtractNames = %+v, want %+v", got, tt.want)
			}
			c := Extract(attrs)
			if full := (Names{Workflow: c.Workflow, Entity: c.Entity, Agent: c.Agent}); full != got {
				t.Errorf("ExtractNames = %+v, Extract's names = %+v", got, full)
			}
		})
	}
}
