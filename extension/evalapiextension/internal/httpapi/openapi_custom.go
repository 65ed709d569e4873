package httpapi

import (
	"github.com/evalcol/evalcol/extension/evalapiextension/internal/customevaluators"
	"github.com/evalcol/evalcol/internal/judge"
)

// customEvaluatorSchemas adds the schemas of the custom (LLM judge)
// evaluators.
func customEvaluatorSchemas(schemas obj) {
	schemas["JudgeField"] = object("An input or output field of a custom evaluator.", obj{
		"name": obj{"type": "string", "minLength": 1, "maxLength": 128}, "type": obj{"type": "string", "enum": judge.Types},
		"description": typed("string", ""), "enum_values": arrayOf(typed("string", ""), "Allowed values of a string field."),
	}, "name", "type")
	schemas["JudgeMessage"] = object("A prompt message; content may use {{field}} of input_schema (filled once: the input's text never changes the template).", obj{
		"role": obj{"type": "string", "enum": customevaluators.Roles}, "content": obj{"type": "string", "minLength": 1},
	}, "role", "content")
	params := func() obj {
		return obj{
			"temperature":       obj{"type": "number", "minimum": 0, "maximum": 2, "description": "Default 0."},
			"max_tokens":        obj{"type": "integer", "minimum": 1, "maximum": 1000000},
			"top_p":             obj{"type": "number", "minimum": 0, "maximum": 1},
			"frequency_penalty": obj{"type": "number", "minimum": -2, "maximum": 2, "description": "Not sent to anthropic providers."},
			"presence_penalty":  obj{"type": "number", "minimum": -2, "maximum": 2, "description": "Not sent to anthropic providers."},
		}
	}
	llm := params()
	llm["model"] = typed("string", "")
	schemas["LLMConfig"] = object("The model and its sampling parameters.", llm, "model")
	schemas["CustomEvaluatorConfig"] = object("The LLM configuration, in the Traceloop SDK's shape.", obj{
		"provider": typed("string", "A judge provider configured on the collector."), "messages": arrayOf(schemaRef("JudgeMessage"), ""),
		"description": typed("string", ""), "llm_config": schemaRef("LLMConfig"),
	}, "provider", "messages", "description", "llm_config")
	schemas["CustomEvaluator"] = object("A custom (LLM judge) evaluator of the key's organization and project: its latest version.", obj{
		"id": typed("string", "ce_ and 32 hex digits."), "name": typed("string", ""), "slug": typed("string", ""),
		"type":        obj{"type": "string", "enum": []string{customevaluators.Type}},
		"description": typed("string", ""), "version": typed("string", "1, 2, ...: every change is a new version."),
		"source":       obj{"type": "string", "enum": []string{sourceCustom}},
		"input_schema": arrayOf(schemaRef("JudgeField"), ""), "output_schema": arrayOf(schemaRef("JudgeField"), ""),
		"config": schemaRef("CustomEvaluatorConfig"), "created_at": typed("string", "RFC 3339 UTC"), "updated_at": typed("string", "RFC 3339 UTC"),
	}, "id", "name", "slug", "type", "description", "version", "source", "input_schema", "output_schema", "config", "created_at", "updated_at")

	create := params()
	create["name"] = obj{"type": "string", "minLength": 1, "maxLength": customevaluators.MaxNameBytes}
	create["slug"] = obj{"type": "string", "pattern": "^[a-z0-9][a-z0-9-]*$", "maxLength": customevaluators.MaxSlugBytes,
		"description": "Default: derived from the name. Unique in the project; no prebuilt slug (409)."}
	create["description"] = obj{"type": "string", "maxLength": customevaluators.MaxDescriptionBytes}
	create["messages"] = obj{"type": "array", "minItems": 1, "maxItems": customevaluators.MaxMessages, "items": schemaRef("JudgeMessage")}
	create["provider"] = typed("string", "A judge provider configured on the collector (judge.providers, or openai / anthropic from the environment); another name is a 400.")
	create["model"] = typed("string", "")
	create["input_schema"] = obj{"type": "array", "maxItems": customevaluators.MaxFields, "items": schemaRef("JudgeField")}
	create["output_schema"] = obj{"type": "array", "minItems": 1, "maxItems": customevaluators.MaxFields, "items": schemaRef("JudgeField"),
		"description": "A boolean field named passed (or pass) decides pass/fail; the first number field is the score."}
	schemas["CreateCustomEvaluatorRequest"] = obj{"type": "object", "properties": create, "required": []string{"messages", "model", "name", "output_schema", "provider"},
		"description": "The Traceloop SDK's CreateCustomEvaluatorRequest, snake_case. Other fields are ignored."}
	schemas["CreateCustomEvaluatorResponse"] = object("", obj{"evaluator_id": typed("string", ""), "slug": typed("string", ""), "version": typed("string", "")},
		"evaluator_id", "slug", "version")
	llmPatch := params()
	llmPatch["model"] = typed("string", "")
	update := obj{
		"name": typed("string", ""), "input_schema": arrayOf(schemaRef("JudgeField"), ""), "output_schema": arrayOf(schemaRef("JudgeField"), ""),
		"config": obj{"type": "object", "properties": obj{
			"description": typed("string", ""), "provider": typed("string", ""), "messages": arrayOf(schemaRef("JudgeMessage"), ""),
			"llm_config": obj{"type": "object", "properties": llmPatch},
		}},
	}
	for k, v := range llmPatch {
		update[k] = v
	}
	update["description"], update["provider"], update["messages"] = typed("string", ""), typed("string", ""), arrayOf(schemaRef("JudgeMessage"), "")
	schemas["UpdateCustomEvaluatorRequest"] = obj{"type": "object", "properties": update,
		"description": "The Traceloop SDK's update body: the fields given change (config and config.llm_config field by field; also accepted at the top level); the result is a new version."}
	schemas["UpdateCustomEvaluatorResponse"] = object("", obj{"evaluator": schemaRef("CustomEvaluator")}, "evaluator")
	schemas["CustomExecuteRequest"] = obj{"type": "object", "properties": obj{"input": obj{"type": "object", "description": "The fields of the evaluator's input_schema."}},
		"required": []string{"input"}}
	schemas["CustomExecuteResponse"] = obj{"type": "object", "description": "The judge's output: exactly the fields of the evaluator's output_schema."}
	schemas["CustomGuardrailResponse"] = object("", obj{"result": schemas["CustomExecuteResponse"], "pass": typed("boolean", "The output's passed (or pass) field.")}, "result", "pass")
}

// customEvaluatorPaths adds the paths of the custom evaluators.
func customEvaluatorPaths(paths obj) {
	ref := pathParam("ref", "A custom evaluator's id or slug (or, for GET, a prebuilt slug).")
	notFound := errorResponse("No prebuilt evaluator and no custom evaluator of the key's project has that id or slug.")
	list := paths["/v2/evaluators"].(obj)
	list["post"] = operation("createCustomEvaluator", "Create a custom (LLM judge) evaluator in the key's organization and project.", "evaluators",
		obj{"201": response("Created.", schemaRef("CreateCustomEvaluatorResponse")), "400": errorResponse("A bad field; the message names it (an unknown provider too)."),
			"409": errorResponse("The slug is taken in the project, or is a prebuilt evaluator's.")},
		obj{"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("CreateCustomEvaluatorRequest")}}}})
	paths["/v2/evaluators/{ref}"] = obj{
		"get": operation("getEvaluator", "One evaluator: a custom one's latest version, or a prebuilt one's catalogue entry.", "evaluators",
			obj{"200": response("The evaluator.", obj{"oneOf": []obj{schemaRef("CustomEvaluator"), schemaRef("PrebuiltEvaluator")}}), "404": notFound},
			obj{"parameters": []obj{ref}}),
		"patch": operation("updateCustomEvaluator", "Change a custom evaluator: a new version.", "evaluators",
			obj{"200": response("The new version.", schemaRef("UpdateCustomEvaluatorResponse")), "403": errorResponse("A prebuilt evaluator."), "404": notFound,
				"409": errorResponse("Another update made that version first.")},
			obj{"parameters": []obj{ref}, "requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("UpdateCustomEvaluatorRequest")}}}}),
		"delete": operation("deleteCustomEvaluator", "Delete a custom evaluator (its versions stay readable for the results that name them).", "evaluators",
			obj{"204": obj{"description": "Deleted."}, "403": errorResponse("A prebuilt evaluator."), "404": notFound}, obj{"parameters": []obj{ref}}),
	}
	executeHeaders := obj{
		customevaluators.HeaderEvaluatorID:   obj{"description": "The evaluator's id.", "schema": obj{"type": "string"}},
		customevaluators.HeaderVersion:       obj{"description": "The version that ran.", "schema": obj{"type": "string"}},
		customevaluators.HeaderInputTokens:   obj{"description": "Prompt tokens of the judge call.", "schema": obj{"type": "string"}},
		customevaluators.HeaderOutputTokens:  obj{"description": "Completion tokens of the judge call.", "schema": obj{"type": "string"}},
		customevaluators.HeaderStructuredVia: obj{"description": "json_schema, tool or text: how the structured answer was asked for.", "schema": obj{"type": "string"}},
	}
	judgeErrors := func(ok obj) obj {
		ok["headers"] = executeHeaders
		return obj{"200": ok, "400": errorResponse("Bad input: a field the prompt needs is missing (the message names it) or has the wrong type."),
			"404": notFound, "429": errorResponse("The provider rate-limits or all its max_concurrency slots are busy (Retry-After)."),
			"502": errorResponse("The provider failed, or the model answered something that does not fit output_schema (the message holds the start of its answer, at most 2 KiB)."),
			"503": errorResponse("The evaluator's provider is not configured on this collector, or the warehouse is unavailable."),
			"504": errorResponse("The provider did not answer within its timeout.")}
	}
	body := obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef("CustomExecuteRequest")}}}
	for _, p := range []struct{ path, id, summary, kind string }{
		{"/v2/evaluators/{ref}/execute", "executeCustomEvaluator", "Run a custom evaluator synchronously (a prebuilt slug's own path is documented apart).", "CustomExecuteResponse"},
		{"/v2/evaluators/execute/{ref}", "executeCustomEvaluatorOlder", "Run a custom evaluator synchronously, on the older path.", "CustomExecuteResponse"},
		{"/v2/guardrails/{ref}/execute", "guardrailCustomEvaluator", "Run a custom evaluator as a guardrail: its output and whether it passes (it needs a boolean output passed or pass).", "CustomGuardrailResponse"},
	} {
		paths[p.path] = obj{"post": operation(p.id, p.summary, "evaluators", judgeErrors(response("The judge's answer.", schemaRef(p.kind))),
			obj{"parameters": []obj{ref}, "requestBody": body})}
	}
}
