package monitor

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

func TestEntityCondition(t *testing.T) {
	c := newCompiler(t)
	attrs := map[string]any{
		"traceloop.workflow.name": "support",
		"traceloop.entity.name":   "planner",
		"traceloop.span.kind":     "agent",
		"llm.request.model":       "gpt-4o",
	}
	span, ss, rs := testSpan(t, "planner.agent", ptrace.SpanKindInternal, attrs, map[string]any{"service.name": "helpdesk"})
	other, oss, ors := testSpan(t, "openai.chat", ptrace.SpanKindClient, map[string]any{
		"gen_ai.agent.name": "writer", "gen_ai.response.model": "claude-3", "traceloop.entity.name": "planner",
	}, map[string]any{"service.name": "other"})
	tests := []struct {
		typ, value            string
		wantFirst, wantSecond bool
	}{
		{"workflow", "support", true, false},
		{"agent", "planner", true, false}, // the second span's entity is not an agent span
		{"agent", "writer", false, true},
		{"entity", "planner", true, true},
		{"span", "openai.chat", false, true},
		{"service", "helpdesk", true, false},
		{"model", "gpt-4o", true, false},
		{"model", "claude-3", false, true},
		{"workflow", `support" or true or "`, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"="+tt.value, func(t *testing.T) {
			cond, err := EntityCondition(tt.typ, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			m, err := c.Compile(Spec{Name: "e", SampleRate: 1, Condition: cond, Evaluators: []EvaluatorSpec{{Slug: "word-count"}}})
			if err != nil {
				t.Fatalf("%s: %v", cond, err)
			}
			ctx := context.Background()
			if got := m.Matches(ctx, span, ss, rs); got != tt.wantFirst {
				t.Errorf("%s on the agent span = %v, want %v", cond, got, tt.wantFirst)
			}
			if got := m.Matches(ctx, other, oss, ors); got != tt.wantSecond {
				t.Errorf("%s on the chat span = %v, want %v", cond, got, tt.wantSecond)
			}
		})
	}
	for _, bad := range []struct{ typ, value, want string }{
		{"team", "x", `entity_type "team" is not one of workflow, agent, entity, span, service, model`},
		{"workflow", "", "entity_value must not be empty"},
	} {
		t.Run("error "+bad.typ, func(t *testing.T) {
			_, err := EntityCondition(bad.typ, bad.value)
			if err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Errorf("err = %v, want %q", err, bad.want)
			}
		})
	}
}
