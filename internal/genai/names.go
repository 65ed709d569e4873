package genai

import "go.opentelemetry.io/collector/pdata/pcommon"

// Names are the names of what a span belongs to: its workflow, entity and
// agent (Content.Workflow, Content.Entity and Content.Agent).
type Names struct {
	Workflow string
	Entity   string
	Agent    string
}

// ExtractNames reads the workflow, entity and agent names of a span as
// Extract does, without reading its content: a few map lookups, for
// readers that need only the names (the evaluationmetrics connector reads
// them on every evaluated span).
func ExtractNames(attrs pcommon.Map) Names {
	var n Names
	n.Workflow = attrString(attrs, "traceloop.workflow.name")
	n.Entity = attrString(attrs, "traceloop.entity.name")
	n.Agent = attrString(attrs, "gen_ai.agent.name")
	if n.Agent == "" {
		n.Agent = attrString(attrs, "agent.name")
	}
	if n.Agent == "" && attrString(attrs, "traceloop.span.kind") == "agent" {
		n.Agent = n.Entity
	}
	return n
}

// attrString returns the attribute k as text, "" when it is absent.
func attrString(attrs pcommon.Map, k string) string {
	if v, ok := attrs.Get(k); ok {
		return v.AsString()
	}
	return ""
}
