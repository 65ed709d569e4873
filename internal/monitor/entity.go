package monitor

import (
	"errors"
	"fmt"
	"strings"
)

// The entity types of auto monitor setups.
const (
	EntityWorkflow = "workflow"
	EntityAgent    = "agent"
	EntityEntity   = "entity"
	EntitySpan     = "span"
	EntityService  = "service"
	EntityModel    = "model"
)

// EntityCondition returns the OTTL span condition that selects the spans of
// an auto monitor setup's entity: workflow (traceloop.workflow.name), agent
// (gen_ai.agent.name, or traceloop.entity.name of agent spans), entity
// (traceloop.entity.name), span (the span name), service (service.name) or
// model (the request or response model of any convention). The value is
// quoted as an OTTL string literal.
func EntityCondition(entityType, entityValue string) (string, error) {
	if entityValue == "" {
		return "", errors.New("entity_value must not be empty")
	}
	v := quote(entityValue)
	switch entityType {
	case EntityWorkflow:
		return `attributes["` + attrWorkflow + `"] == ` + v, nil
	case EntityAgent:
		return `attributes["` + attrAgent + `"] == ` + v +
			` or (attributes["traceloop.span.kind"] == "agent" and attributes["` + attrEntity + `"] == ` + v + `)`, nil
	case EntityEntity:
		return `attributes["` + attrEntity + `"] == ` + v, nil
	case EntitySpan:
		return `name == ` + v, nil
	case EntityService:
		return `resource.attributes["service.name"] == ` + v, nil
	case EntityModel:
		terms := make([]string, len(modelAttributes))
		for i, k := range modelAttributes {
			terms[i] = `attributes["` + k + `"] == ` + v
		}
		return strings.Join(terms, " or "), nil
	default:
		return "", fmt.Errorf("entity_type %q is not one of workflow, agent, entity, span, service, model", entityType)
	}
}
