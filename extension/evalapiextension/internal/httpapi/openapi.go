package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/organizations"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// The OpenAPI 3.1 document of the API, served at GET /v2/openapi.json. The
// evaluator operations and their request and response bodies are generated
// from the evaluator catalogue (the guardrail bodies by running each
// evaluator's own guardrail rewrite on a sample result), so they cannot
// drift from the code; the other bodies are written out here, strict
// (additionalProperties false), and the API tests validate every response
// they get against the document.

// obj is a JSON object of the document.
type obj = map[string]any

func schemaRef(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func typed(t, desc string) obj {
	s := obj{"type": t}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func nullable(t, desc string) obj {
	s := typed(t, desc)
	s["type"] = []string{t, "null"}
	return s
}

func arrayOf(items obj, desc string) obj {
	s := obj{"type": "array", "items": items}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func stringMap(desc string) obj {
	return obj{"type": []string{"object", "null"}, "additionalProperties": obj{"type": "string"}, "description": desc}
}

// object is a closed object schema: the properties listed, required ones
// always present, nothing else.
func object(desc string, props obj, required ...string) obj {
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		s["required"] = required
	}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// all lists every property name of props (for required).
func all(props obj) []string {
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	return out
}

func jsonBody(schema obj) obj {
	return obj{"content": obj{"application/json": obj{"schema": schema}}}
}

func response(desc string, schema obj) obj {
	r := jsonBody(schema)
	r["description"] = desc
	return r
}

func errorResponse(desc string) obj { return response(desc, schemaRef("Error")) }

// operation builds an operation with the standard error responses of an
// authenticated endpoint added to ok.
func operation(id, summary, tag string, responses obj, extra obj) obj {
	rs := obj{
		"401":     errorResponse("Missing or unknown API key."),
		"default": errorResponse("An error: 400 bad input (the message names the field), 404, 405, 409, 413 body too large, 429, 500 our fault, 503 warehouse unavailable (with Retry-After)."),
	}
	for k, v := range responses {
		rs[k] = v
	}
	op := obj{"operationId": id, "summary": summary, "tags": []string{tag}, "responses": rs}
	for k, v := range extra {
		op[k] = v
	}
	return op
}

func queryParam(name, t, desc string, required bool) obj {
	return obj{"name": name, "in": "query", "required": required, "description": desc, "schema": obj{"type": t}}
}

func pathParam(name, desc string) obj {
	return obj{"name": name, "in": "path", "required": true, "description": desc, "schema": obj{"type": "string"}}
}

// fieldSchema is the JSON schema of a catalogue field.
func fieldSchema(f evaluators.Field) obj {
	s := typed(string(f.Type), f.Description)
	if f.Label != "" {
		s["title"] = f.Label
	}
	if len(f.EnumValues) > 0 {
		s["enum"] = f.EnumValues
	}
	if f.Default != nil {
		s["default"] = f.Default
	}
	if f.Min != nil {
		s["minimum"] = *f.Min
	}
	if f.Max != nil {
		s["maximum"] = *f.Max
	}
	if f.Type == evaluators.TypeStringArray {
		s["items"] = obj{"type": "string"}
	}
	return s
}

// camel turns a slug into a schema name part: char-count → CharCount.
func camel(slug string) string {
	parts := strings.Split(slug, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

// evaluatorSchemas adds a slug's request, response and guardrail result
// schemas to schemas.
func evaluatorSchemas(d *evaluators.Definition, schemas obj) {
	name := camel(d.Slug)
	inProps, inRequired := obj{}, []string{}
	for _, f := range d.Inputs {
		inProps[f.Name] = fieldSchema(f)
		if f.Required {
			inRequired = append(inRequired, f.Name)
		}
	}
	input := obj{"type": "object", "properties": inProps, "description": "Fields the evaluator does not read are ignored."}
	if len(inRequired) > 0 {
		sort.Strings(inRequired)
		input["required"] = inRequired
	}
	reqProps := obj{"input": input}
	if len(d.Config) > 0 {
		cfg := obj{}
		for _, f := range d.Config {
			cfg[f.Name] = fieldSchema(f)
		}
		reqProps["config"] = object("Unknown config fields are a 400.", cfg)
	} else {
		reqProps["config"] = obj{"type": []string{"object", "null"}, "description": "This evaluator takes no config."}
	}
	schemas[name+"Request"] = object(d.Description, reqProps, "input")

	outProps := obj{}
	for _, f := range d.Outputs {
		outProps[f.Name] = fieldSchema(f)
	}
	required := all(outProps)
	if d.Explains() {
		outProps["explanation"] = obj{"description": "Answered to explain=true only: why (null when there is nothing to point at).", "oneOf": []obj{schemaRef("Explanation"), {"type": "null"}}}
	}
	schemas[name+"Response"] = object("The result of "+d.Slug+".", outProps, required...)

	// The guardrail result: the evaluator's own rewrite of a sample
	// result, typed from what it holds.
	sample := evaluators.Result{}
	for _, f := range d.Outputs {
		switch {
		case len(f.EnumValues) > 0:
			sample[f.Name] = f.EnumValues[0]
		case f.Type == evaluators.TypeBoolean:
			sample[f.Name] = true
		case f.Type == evaluators.TypeInteger:
			sample[f.Name] = 1
		case f.Type == evaluators.TypeNumber:
			sample[f.Name] = 0.5
		default:
			sample[f.Name] = "x"
		}
	}
	guardProps := obj{}
	for k, v := range d.GuardrailResult(sample) {
		if s, ok := outProps[k].(obj); ok {
			if _, same := sample[k]; same && fmt.Sprintf("%T", v) == fmt.Sprintf("%T", sample[k]) {
				guardProps[k] = s
				continue
			}
		}
		switch v.(type) {
		case bool:
			guardProps[k] = typed("boolean", "")
		case int, int64:
			guardProps[k] = typed("integer", "")
		case float64:
			guardProps[k] = typed("number", "")
		default:
			guardProps[k] = typed("string", "")
		}
	}
	schemas[name+"GuardrailResponse"] = object("The guardrail answer of "+d.Slug+": the result as the Traceloop SDKs' guards read it, and whether it passes ("+d.PassDoc+").",
		obj{"result": object("", guardProps, all(guardProps)...), "pass": typed("boolean", d.PassDoc),
			"explanation": obj{"description": "Answered to explain=true only, when the evaluator has something to point at.", "allOf": []obj{schemaRef("Explanation")}}},
		"result", "pass")
}

// evaluatorPaths adds the three execute paths of every evaluator.
func evaluatorPaths(paths obj) {
	for _, d := range evaluators.Catalogue() {
		name := camel(d.Slug)
		body := obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef(name + "Request")}}}
		for _, p := range []struct{ path, id, kind string }{
			{"/v2/evaluators/execute/" + d.Slug, "execute" + name, "Response"},
			{"/v2/evaluators/" + d.Slug + "/execute", "execute" + name + "Newer", "Response"},
			{"/v2/guardrails/" + d.Slug + "/execute", "guardrail" + name, "GuardrailResponse"},
		} {
			paths[p.path] = obj{"post": operation(p.id, "Execute "+d.Slug+": "+d.Description, string(d.Category),
				obj{"200": response("The result.", schemaRef(name+p.kind)), "400": errorResponse("Bad input; the message names the field.")},
				obj{"requestBody": body, "parameters": []obj{explainParamDoc()}})}
		}
	}
}

// explanationSchemas adds the Explanation schema (evaluators.Explanation).
func explanationSchemas(schemas obj) {
	schemas["Finding"] = object("One thing an evaluator found in an input text.", obj{
		"kind":   typed("string", "A Presidio entity type, a secret rule, a toxicity rule, \"weighty word\", \"match\", ..."),
		"input":  typed("string", "The input field Start and End index."),
		"start":  typed("integer", "Byte offset in the input's UTF-8 text (-1: unknown)."),
		"end":    typed("integer", "End byte offset, exclusive (-1: unknown)."),
		"text":   typed("string", "The matched text, or its masked form (masked: true; secrets are never shown)."),
		"masked": typed("boolean", ""),
		"score":  typed("number", "The finding's own score, when it has one."),
		"source": typed("string", "The recognizer, rule or detector that found it."),
	}, "kind", "start", "end")
	schemas["Explanation"] = object("Why an evaluator answered as it did (asked for with explain=true).", obj{
		"summary":  typed("string", "One line to read first."),
		"findings": arrayOf(schemaRef("Finding"), ""),
		"parts":    obj{"type": "object", "additionalProperties": obj{"type": "number"}, "description": "The named parts of a score."},
	}, "summary")
}

func setupSchemas(schemas obj) {
	schemaItem := object("One input or output field of a bound evaluator.", obj{
		"name": typed("string", ""), "type": typed("string", "string, boolean, number or integer"),
		"description": typed("string", ""), "label": typed("string", ""), "enum_values": arrayOf(typed("string", ""), ""),
	}, "name", "type", "description", "label")
	binding := object("One evaluator of a setup.", obj{
		"binding_id": typed("string", ""), "evaluator_id": typed("string", "The catalogue slug (the name as given when it names no evaluator)."),
		"evaluator_type": typed("string", "The catalogue slug, whatever name the request used."),
		"status":         obj{"type": "string", "enum": []string{setups.BindingPending, setups.BindingActive, setups.BindingFailed}},
		"error_message":  typed("string", ""), "processed_at": nullable("string", "RFC 3339 UTC"),
		"input_schema": arrayOf(schemaRef("SchemaItem"), ""), "output_schema": arrayOf(schemaRef("SchemaItem"), ""),
	}, "binding_id", "evaluator_id", "evaluator_type", "status", "error_message", "processed_at", "input_schema", "output_schema")
	rule := object("A span selection rule.", obj{
		"op": typed("string", "A span filter operator."), "source": typed("string", ""), "key": typed("string", ""),
		"value": typed("string", "For in and not_in a JSON array of values."), "value_type": obj{"type": "string", "enum": []string{"string", "number", "boolean"}},
	}, "op", "source", "key", "value", "value_type")
	backfill := object("Progress of evaluating the spans already stored.", obj{
		"from_timestamp_sec": typed("integer", ""), "to_timestamp_sec": typed("integer", ""),
		"status":  obj{"type": "string", "enum": []string{setups.BackfillPending, setups.BackfillRunning, setups.BackfillDone, setups.BackfillFailed}},
		"scanned": typed("integer", ""), "evaluated": typed("integer", ""), "total": typed("integer", "Spans in the window, once the first page was read."),
		"error": typed("string", ""), "finished_at": typed("string", "RFC 3339 UTC"),
	}, "from_timestamp_sec", "to_timestamp_sec", "status", "scanned", "evaluated", "total")
	setup := object("An auto monitor setup.", obj{
		"id": typed("string", ""), "external_id": typed("string", "The caller's id; empty when none was given."),
		"entity_type":  typed("string", "workflow, agent, entity, span, service or model; empty for a setup that selects by its selector alone."),
		"entity_value": typed("string", ""), "org_id": typed("string", ""), "project_id": typed("string", ""), "env_project_id": typed("string", ""),
		"status":     obj{"type": "string", "enum": []string{setups.StatusPending, setups.StatusWaitingForSpans, setups.StatusInProgress, setups.StatusPartial, setups.StatusFailed}},
		"created_at": typed("string", "RFC 3339 UTC"), "updated_at": typed("string", "RFC 3339 UTC"),
		"evaluators": arrayOf(schemaRef("SetupBinding"), ""), "init_rules": arrayOf(schemaRef("InitRule"), ""),
		"selector": obj{"description": "The selector as given."}, "sample_rate": typed("number", ""), "backfill": schemaRef("Backfill"),
		"level":            obj{"type": "string", "enum": []string{setups.LevelTrace}, "description": "evalcol: present for a trace-level setup."},
		"quiet_period_sec": typed("integer", "evalcol: a trace-level setup's quiet period (absent: the default, 30 s)."),
	}, "id", "external_id", "entity_type", "entity_value", "org_id", "project_id", "env_project_id", "status", "created_at", "updated_at", "evaluators", "init_rules", "sample_rate")
	evaluatorItem := obj{"oneOf": []obj{
		typed("string", "A slug or one of Traceloop's names for it (TOXICITY_DETECTOR, toxicity, hallucination, ...)."),
		object("", obj{"evaluator_type": typed("string", "")}, "evaluator_type"),
		object("", obj{"evaluator_id": typed("string", "")}, "evaluator_id"),
		object("", obj{"slug": typed("string", "")}, "slug"),
	}}
	request := object("A setup to create (or, on PUT, to change).", obj{
		"entity_type":  obj{"type": "string", "enum": setups.EntityTypes},
		"entity_value": obj{"type": "string", "maxLength": setups.MaxEntityValueBytes},
		"external_id":  obj{"type": "string", "maxLength": setups.MaxExternalIDBytes, "description": "Optional; unique per project when given (409 on repeat)."},
		"evaluators":   obj{"type": "array", "minItems": 1, "items": evaluatorItem, "description": fmt.Sprintf("At most %d distinct evaluators; duplicates merge.", setups.MaxEvaluators)},
		"selector": obj{"description": fmt.Sprintf("{attribute: value} or an array of rules {key, source, operator, value | values, value_type}; at most %d rules and %d bytes.", setups.MaxSelectorRules, setups.MaxSelectorBytes),
			"oneOf": []obj{{"type": "object"}, {"type": "array", "items": obj{"type": "object"}}, {"type": "null"}}},
		"sample_rate":                 obj{"type": "number", "minimum": 0, "maximum": 1},
		"backfill_from_timestamp_sec": obj{"type": "integer", "minimum": 1},
		"level": obj{"type": "string", "enum": []string{setups.LevelSpan, setups.LevelTrace},
			"description": "evalcol: span (default) evaluates each matching span; trace evaluates each matching trace once, when no span arrived for quiet_period_sec, with the result on its root span (agent evaluators read its trajectory)."},
		"quiet_period_sec": obj{"type": "integer", "minimum": 1, "maximum": setups.MaxQuietPeriodSec, "description": "evalcol: level trace only (default 30)."},
	})
	schemas["SchemaItem"], schemas["SetupBinding"], schemas["InitRule"], schemas["Backfill"] = schemaItem, binding, rule, backfill
	schemas["Setup"], schemas["SetupRequest"] = setup, request
}

func otherSchemas(schemas obj) {
	schemas["Error"] = object("The body of every error.", obj{"error": typed("string", "What went wrong, naming the field at fault.")}, "error")
	evaluation := object("An evaluation recorded on a span.", obj{
		"name": typed("string", "Evaluator slug."), "score_value": typed("number", ""), "score_label": typed("string", ""),
		"output": obj{"type": "object", "description": "The evaluator's output fields."}, "monitor_id": typed("string", ""), "error": typed("string", ""),
		"verdict":     obj{"type": "string", "enum": []string{"pass", "fail", "error"}, "description": "explain=true only."},
		"truncated":   typed("boolean", "explain=true only: an input was cut to the evaluator's size limit."),
		"explanation": obj{"description": "explain=true only, for the failures the evaluator explains.", "allOf": []obj{schemaRef("Explanation")}},
	}, "name", "score_value")
	spanProps := obj{
		"environment": typed("string", ""), "timestamp": typed("integer", "Start time, Unix ms."), "trace_id": typed("string", ""), "span_id": typed("string", ""),
		"parent_span_id": typed("string", ""), "trace_state": typed("string", ""), "span_name": typed("string", ""), "span_kind": typed("string", ""),
		"service_name": typed("string", ""), "resource_attributes": stringMap(""), "scope_name": typed("string", ""), "scope_version": typed("string", ""),
		"span_attributes": stringMap(""), "duration": typed("integer", "Milliseconds."), "status_code": typed("string", ""), "status_message": typed("string", ""),
		"prompts": stringMap("llm.prompts.<i>.role / .content"), "completions": stringMap("llm.completions.<i>.role / .content / .finish_reason"),
		"input": typed("string", ""), "output": typed("string", ""), "evaluations": arrayOf(schemaRef("Evaluation"), ""),
	}
	schemas["Evaluation"] = evaluation
	schemas["Span"] = object("A span.", spanProps, all(spanProps)...)
	schemas["SpansResponse"] = object("", obj{"spans": object("", obj{
		"data": arrayOf(schemaRef("Span"), ""), "page_size": typed("integer", ""), "total_results": typed("integer", ""), "next_cursor": typed("string", "Empty on the last page."),
	}, "data", "page_size", "total_results", "next_cursor")}, "spans")
	point := object("A metric point: exactly one value field is set.", obj{
		"bool_value": typed("boolean", ""), "enum_value": typed("string", ""), "numeric_value": typed("number", ""),
		"event_time": typed("integer", "Unix ms."), "labels": stringMap(""),
	}, "event_time", "labels")
	schemas["MetricPoint"] = point
	schemas["MetricsResponse"] = object("", obj{"metrics": object("", obj{
		"data": arrayOf(object("One group per metric name.", obj{
			"metric_name": typed("string", ""), "organization_id": typed("string", ""), "points": arrayOf(schemaRef("MetricPoint"), ""),
		}, "metric_name", "organization_id", "points"), ""),
		"next_cursor": typed("string", "Empty on the last page."), "total_points": typed("integer", ""), "total_results": typed("integer", ""),
	}, "data", "next_cursor", "total_points", "total_results")}, "metrics")
	filter := object("", obj{"field": typed("string", ""), "operator": typed("string", ""), "value": typed("string", ""),
		"values": arrayOf(typed("string", ""), ""), "valueType": obj{"type": "string", "enum": []string{"string", "number", "boolean"}}})
	schemas["MetricsRequest"] = object("", obj{
		"from_timestamp_sec": typed("integer", ""), "to_timestamp_sec": typed("integer", ""),
		"cursor": obj{"type": []string{"integer", "string"}, "description": "The previous next_cursor, an opaque string bound to the key's environment; 0 or absent for the first page (no other integer is accepted)."}, "environments": arrayOf(typed("string", ""), "Only the key's own."),
		"filters": arrayOf(filter, ""), "logical_operator": obj{"type": "string", "enum": []string{"AND", "OR", "and", "or"}}, "limit": obj{"type": "integer", "minimum": 1, "maximum": 1000},
		"metric_name": typed("string", ""), "metric_source": typed("string", ""), "sort_by": typed("string", ""), "sort_order": typed("string", ""),
	})
	field := object("", obj{"name": typed("string", ""), "type": typed("string", ""), "required": typed("boolean", ""), "description": typed("string", ""),
		"label": typed("string", ""), "enum_values": arrayOf(typed("string", ""), ""), "default": obj{}}, "name", "type", "description", "label")
	schemas["CatalogueField"] = field
	schemas["PrebuiltEvaluator"] = object("A prebuilt evaluator: no LLM, no key.", obj{
		"slug": typed("string", ""), "category": typed("string", ""), "description": typed("string", ""),
		"input_schema": arrayOf(schemaRef("CatalogueField"), ""), "config_schema": obj{"type": []string{"array", "null"}, "items": schemaRef("CatalogueField"), "description": "null when the evaluator takes no config."},
		"output_schema":  arrayOf(schemaRef("CatalogueField"), ""),
		"pass_condition": typed("string", ""), "paths": arrayOf(typed("string", ""), ""),
		"source": obj{"type": "string", "enum": []string{sourcePrebuilt}},
	}, "slug", "category", "description", "input_schema", "config_schema", "output_schema", "pass_condition", "paths", "source")
	schemas["EvaluatorsResponse"] = object("", obj{"evaluators": arrayOf(obj{"oneOf": []obj{schemaRef("PrebuiltEvaluator"), schemaRef("CustomEvaluator")}},
		"The prebuilt evaluators (source prebuilt), then the project's custom ones (source custom).")}, "evaluators")

	statusProps := obj{
		"organization_id": typed("string", ""), "environment": typed("string", ""), "project": typed("string", ""),
		"evaluated_up_to":      nullable("string", "RFC 3339 UTC: every span matched by a monitor or setup up to then has its evaluations stored; null when nothing was evaluated."),
		"latest_span_received": nullable("string", "RFC 3339 UTC: when the newest span was stored; null when none was."),
		"lag_in_seconds":       typed("integer", "How long the oldest matched span not stored yet has waited; 0 when caught up."),
		"lag_in_spans":         typed("integer", "Matched spans still waiting (queued, being evaluated, or in a running backfill)."),
		"status":               obj{"type": "string", "enum": []string{monitoringstatus.StatusOK, monitoringstatus.StatusDegraded, monitoringstatus.StatusError}},
		"reasons":              arrayOf(typed("string", ""), "Why the status is not OK, in words; empty when OK."),
	}
	schemas["MonitoringStatus"] = object("Is evaluation keeping up in the key's environment?", statusProps, all(statusProps)...)

	key := object("A key as issued: the secret is shown this once.", obj{
		"slug": typed("string", ""), "api_key": typed("string", "The secret (evalcol_ and 256 random bits)."), "key_id": typed("string", ""), "environment": typed("string", "The tenant: <org_id>/<slug>."),
	}, "slug", "api_key", "key_id", "environment")
	schemas["NewKey"] = key
	schemas["CreateOrganizationRequest"] = object("Traceloop's CreateOrganizationRequest.", obj{
		"org_name": obj{"type": "string", "maxLength": organizations.MaxNameBytes},
		"envs": obj{"type": "array", "maxItems": organizations.MaxEnvironments, "items": obj{"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,62}$"},
			"description": "Environment slugs; default [\"prd\"]."},
		"retention_hours": obj{"type": "integer", "minimum": 1, "maximum": organizations.MaxRetentionHours, "description": "Stored and reported, not enforced."},
	}, "org_name")
	schemas["CreateOrganizationResponse"] = object("", obj{"org_id": typed("string", ""), "environments": arrayOf(schemaRef("NewKey"), "")}, "org_id", "environments")
	schemas["Organization"] = object("An organization: never a secret.", obj{
		"org_id": typed("string", ""), "org_name": typed("string", ""), "retention_hours": typed("integer", ""), "created_at": typed("string", "RFC 3339 UTC"),
		"environments": arrayOf(object("", obj{
			"slug": typed("string", ""), "environment": typed("string", ""), "project_id": typed("string", ""), "created_at": typed("string", ""),
			"keys": arrayOf(object("", obj{"key_id": typed("string", ""), "created_at": typed("string", ""), "revoked_at": nullable("string", "")},
				"key_id", "created_at", "revoked_at"), ""),
		}, "slug", "environment", "project_id", "created_at", "keys"), ""),
	}, "org_id", "org_name", "retention_hours", "created_at", "environments")
	schemas["AddEnvironmentRequest"] = object("", obj{"slug": obj{"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,62}$"}}, "slug")
	schemas["Health"] = object("", obj{"status": obj{"type": "string", "enum": []string{"ok", "degraded"}}, "warehouse": obj{"type": "string", "enum": []string{"ok", "unavailable"}}}, "status", "warehouse")
}

// spanQueryParams are the query parameters of GET /v2/warehouse/spans
// (any other parameter is an exact span attribute filter).
func spanQueryParams() []obj {
	return []obj{
		queryParam("from_timestamp_sec", "integer", "Start, Unix seconds.", true),
		queryParam("to_timestamp_sec", "integer", "End, Unix seconds.", false),
		queryParam("workflow", "string", "", false), queryParam("span_name", "string", "", false),
		queryParam("sort_order", "string", "ASC (default) or DESC.", false), queryParam("sort_by", "string", "", false),
		queryParam("cursor", "string", "The previous next_cursor.", false), queryParam("limit", "integer", "Default 100, at most 1000.", false),
		queryParam("filters", "string", "A URL-encoded JSON array of {id, operator, value}.", false),
		queryParam("q", "string", "evalcol extension: full-text search in the spans' prompts and completions, case-insensitive: words and \"quoted phrases\", all required, each matched from the start of a word, its last word as a prefix; at least 2 characters a term (at most 200 bytes, 8 terms); combines with every filter and the cursor.", false),
		queryParam("annotation", "string", "<task>.<tag>:<value> (value optional): only the traces annotated so, by trace or span id (the latest 1 000 annotation values are read).", false),
		explainParamDoc(),
	}
}

// explainParamDoc documents the explain query parameter.
func explainParamDoc() obj {
	return queryParam("explain", "boolean", "true adds each result's explanation (and, on spans, each evaluation's verdict and truncation mark) beside the spec's fields; see the Explanation schema.", false)
}

func metricQueryParams() []obj {
	var ps []obj
	for _, n := range []string{"from_timestamp_sec", "to_timestamp_sec", "cursor", "limit"} {
		ps = append(ps, queryParam(n, "integer", "", false))
	}
	for _, n := range []string{"environments", "filters", "logical_operator", "metric_name", "metric_source", "sort_by", "sort_order"} {
		ps = append(ps, queryParam(n, "string", "", false))
	}
	return ps
}

// buildOpenAPI returns the document.
func buildOpenAPI() obj {
	schemas := obj{}
	for _, d := range evaluators.Catalogue() {
		evaluatorSchemas(d, schemas)
	}
	setupSchemas(schemas)
	customEvaluatorSchemas(schemas)
	explanationSchemas(schemas)
	otherSchemas(schemas)
	annotationSchemas(schemas)
	alertSchemas(schemas)
	datasetSchemas(schemas)
	experimentSchemas(schemas)

	paths := obj{}
	evaluatorPaths(paths)
	annotationPaths(paths)
	alertPaths(paths)
	datasetPaths(paths)
	experimentPaths(paths)
	paths["/healthz"] = obj{"get": obj{"operationId": "healthz", "summary": "Liveness and warehouse health (no key needed).", "tags": []string{"health"}, "security": []obj{},
		"responses": obj{"200": response("Healthy.", schemaRef("Health")), "503": response("The warehouse is unavailable.", schemaRef("Health"))}}}
	paths["/v2/openapi.json"] = obj{"get": operation("openapi", "This document.", "meta", obj{"200": response("The OpenAPI 3.1 document.", obj{"type": "object"})}, nil)}
	paths["/v2/evaluators"] = obj{"get": operation("listEvaluators", "The evaluator catalogue with schemas: prebuilt and the project's custom evaluators.", "evaluators",
		obj{"200": response("The catalogue.", schemaRef("EvaluatorsResponse"))},
		obj{"parameters": []obj{{"name": "source", "in": "query", "required": false, "description": "prebuilt or custom; both when absent.",
			"schema": obj{"type": "string", "enum": []string{sourcePrebuilt, sourceCustom}}}}})}
	customEvaluatorPaths(paths)
	// A page cut by bytes (warehouse.DefaultPageBytes) says so.
	withPageCut := func(r obj) obj {
		r["headers"] = obj{PageCutHeader: obj{"description": fmt.Sprintf("bytes: the page holds fewer rows than limit because they reached %d bytes of stored attributes and content; next_cursor continues after its last row. Absent otherwise.", warehouse.DefaultPageBytes),
			"schema": obj{"type": "string", "enum": []string{"bytes"}}}}
		return r
	}
	paths["/v2/warehouse/spans"] = obj{"get": operation("getSpans", "Spans of the key's environment.", "spans",
		obj{"200": withPageCut(response("A page of spans.", schemaRef("SpansResponse")))}, obj{"parameters": spanQueryParams()})}
	metricsBody := obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("MetricsRequest")}}}
	metricsOps := func(prefix string, params []obj) obj {
		return obj{
			"post": operation(prefix+"Post", "Metric points grouped by name.", "metrics", obj{"200": withPageCut(response("A page of metrics.", schemaRef("MetricsResponse")))},
				obj{"requestBody": metricsBody, "parameters": params}),
			"get": operation(prefix+"Get", "Metric points grouped by name (the body's fields as query parameters).", "metrics",
				obj{"200": withPageCut(response("A page of metrics.", schemaRef("MetricsResponse")))}, obj{"parameters": append(append([]obj{}, params...), metricQueryParams()...)}),
		}
	}
	paths["/v2/metrics"] = metricsOps("metrics", nil)
	paths["/v2/projects/{project_id}/metrics"] = metricsOps("projectMetrics", []obj{pathParam("project_id", "The key's project (default for runtime organizations).")})
	setupBody := obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("SetupRequest")}}}
	nextCursor := obj{"X-Next-Cursor": obj{"description": "The cursor of the next page; absent on the last page.", "schema": obj{"type": "string"}}}
	listOK := response("A page of setups, in creation order.", arrayOf(schemaRef("Setup"), ""))
	listOK["headers"] = nextCursor
	paths["/v2/auto-monitor-setups"] = obj{
		"get": operation("listSetups", "The key's setups: a bare array, the next cursor in X-Next-Cursor.", "auto-monitor-setups", obj{"200": listOK},
			obj{"parameters": []obj{
				queryParam("entity_type", "string", "", false), queryParam("entity_value", "string", "", false),
				queryParam("external_id", "string", "", false), queryParam("status", "string", "", false),
				queryParam("limit", "integer", fmt.Sprintf("Default %d, at most %d; a page also ends before %d bytes.", setups.DefaultListLimit, setups.MaxListLimit, setups.MaxPageBytes), false),
				queryParam("cursor", "string", "The previous X-Next-Cursor.", false),
			}}),
		"post": operation("createSetup", "Create a setup.", "auto-monitor-setups",
			obj{"201": response("Created.", schemaRef("Setup")), "409": errorResponse("external_id taken, or the environment holds max_setups_per_environment setups.")},
			obj{"requestBody": setupBody}),
	}
	idParam := []obj{pathParam("id", "The setup's id or its external_id.")}
	paths["/v2/auto-monitor-setups/{id}"] = obj{
		"get": operation("getSetup", "One setup.", "auto-monitor-setups", obj{"200": response("The setup.", schemaRef("Setup")), "404": errorResponse("Not in the key's environment.")}, obj{"parameters": idParam}),
		"put": operation("updateSetup", "Replace a setup (with entity_type) or change the fields given (without).", "auto-monitor-setups",
			obj{"200": response("The setup.", schemaRef("Setup")), "404": errorResponse("Not in the key's environment.")}, obj{"parameters": idParam, "requestBody": setupBody}),
		"delete": operation("deleteSetup", "Delete a setup; its evaluation stops at once.", "auto-monitor-setups",
			obj{"204": obj{"description": "Deleted."}, "404": errorResponse("Not in the key's environment.")}, obj{"parameters": idParam}),
	}
	paths["/v2/monitoring/status"] = obj{"get": operation("monitoringStatus", "Is evaluation keeping up in the key's environment?", "monitoring",
		obj{"200": response("OK when the lag is at most 3 minutes, DEGRADED up to 10, ERROR above or when nothing could be evaluated.", schemaRef("MonitoringStatus"))}, nil)}
	forbidden := errorResponse("The key is not an admin key.")
	orgID := pathParam("org_id", "")
	paths["/v2/organizations"] = obj{
		"post": operation("createOrganization", "Create an organization with one key per environment (admin keys).", "organizations",
			obj{"201": response("Created; the keys are shown this once.", schemaRef("CreateOrganizationResponse")), "403": forbidden},
			obj{"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("CreateOrganizationRequest")}}}}),
		"get": operation("listOrganizations", "Every organization, its environments and key ids (admin keys).", "organizations",
			obj{"200": response("The organizations.", arrayOf(schemaRef("Organization"), "")), "403": forbidden}, nil),
	}
	paths["/v2/organizations/{org_id}"] = obj{"get": operation("getOrganization", "One organization (admin keys).", "organizations",
		obj{"200": response("The organization.", schemaRef("Organization")), "403": forbidden, "404": errorResponse("No such organization.")}, obj{"parameters": []obj{orgID}})}
	paths["/v2/organizations/{org_id}/environments"] = obj{"post": operation("addEnvironment", "Add an environment and issue its first key (admin keys).", "organizations",
		obj{"201": response("The new key.", schemaRef("NewKey")), "403": forbidden, "409": errorResponse("The organization has this environment.")},
		obj{"parameters": []obj{orgID}, "requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("AddEnvironmentRequest")}}}})}
	paths["/v2/organizations/{org_id}/environments/{slug}/keys"] = obj{"post": operation("issueKey", "Issue one more key for an environment (admin keys).", "organizations",
		obj{"201": response("The new key.", schemaRef("NewKey")), "403": forbidden}, obj{"parameters": []obj{orgID, pathParam("slug", "")}})}
	keyID := pathParam("key_id", "")
	paths["/v2/organizations/{org_id}/keys/{key_id}"] = obj{"delete": operation("revokeKey", "Revoke a key: refused at once here, within the poll interval on other collectors (admin keys).", "organizations",
		obj{"204": obj{"description": "Revoked."}, "403": forbidden}, obj{"parameters": []obj{orgID, keyID}})}
	paths["/v2/organizations/{org_id}/keys/{key_id}/rotate"] = obj{"post": operation("rotateKey", "Issue a new key for the key's environment and revoke the old one (admin keys).", "organizations",
		obj{"201": response("The new key.", schemaRef("NewKey")), "403": forbidden}, obj{"parameters": []obj{orgID, keyID}})}

	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": "evalcol /v2 API", "version": "2",
			"description": "Evaluators, metrics, spans, auto monitor setups, monitoring status and organizations, as Traceloop's backend serves them; generated by evalcol from its routes and its evaluator catalogue."},
		"servers":  []obj{{"url": "/"}},
		"security": []obj{{"ApiKey": []string{}}},
		"paths":    paths,
		"components": obj{
			"schemas": schemas,
			"securitySchemes": obj{"ApiKey": obj{"type": "apiKey", "in": "header", "name": "Authorization",
				"description": "Bearer <key>, or the bare key. A key of the evalapi api_keys or of a runtime organization; it selects the environment."}},
		},
	}
}

// openAPIJSON is the encoded document, built once.
var openAPIJSON = sync.OnceValue(func() []byte {
	b, err := json.Marshal(buildOpenAPI())
	if err != nil {
		panic(fmt.Sprintf("encode the OpenAPI document: %v", err))
	}
	return b
})

// OpenAPI returns the OpenAPI 3.1 document of the API as JSON.
func OpenAPI() []byte { return openAPIJSON() }

func (a *API) openAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(OpenAPI())
}
