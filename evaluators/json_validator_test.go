package evaluators

import "testing"

func TestJSONValidator(t *testing.T) {
	schema := `{"type": "object", "required": ["name", "age"], "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}}`
	on := func(s string) map[string]any {
		return map[string]any{"enable_schema_validation": true, "schema_string": s}
	}
	runCases(t, "json-validator", []evalCase{
		{name: "object", input: map[string]any{"text": `{"name": "John", "age": 30}`}, want: Result{"is_valid_json": true}, pass: passes},
		{name: "scalar and whitespace", input: map[string]any{"text": " \n42\n"}, want: Result{"is_valid_json": true}, pass: passes},
		{name: "trailing comma", input: map[string]any{"text": `{"a": 1,}`}, want: Result{"is_valid_json": false}, pass: fails},
		{name: "single quotes", input: map[string]any{"text": `{'a': 1}`}, want: Result{"is_valid_json": false}, pass: fails},
		{name: "two values", input: map[string]any{"text": `{} {}`}, want: Result{"is_valid_json": false}},
		{name: "NaN is not JSON", input: map[string]any{"text": `[NaN]`}, want: Result{"is_valid_json": false}},
		{name: "empty", input: map[string]any{"text": ""}, want: Result{"is_valid_json": false}},
		{name: "code fence is not JSON", input: map[string]any{"text": "```json\n{}\n```"}, want: Result{"is_valid_json": false}},
		{name: "schema ignored when disabled", input: map[string]any{"text": `{"x": 1}`}, config: map[string]any{"schema_string": schema}, want: Result{"is_valid_json": true}},
		{name: "invalid schema ignored when disabled", input: map[string]any{"text": `{}`}, config: map[string]any{"enable_schema_validation": false, "schema_string": "{"}, want: Result{"is_valid_json": true}},
		{name: "matches schema", input: map[string]any{"text": `{"name": "John", "age": 30}`}, config: on(schema), want: Result{"is_valid_json": true}, pass: passes},
		{name: "missing required property", input: map[string]any{"text": `{"name": "John"}`}, config: on(schema), want: Result{"is_valid_json": false}, pass: fails},
		{name: "wrong type", input: map[string]any{"text": `{"name": "John", "age": "30"}`}, config: on(schema), want: Result{"is_valid_json": false}},
		{name: "minimum", input: map[string]any{"text": `{"name": "John", "age": -1}`}, config: on(schema), want: Result{"is_valid_json": false}},
		{name: "not JSON with a schema", input: map[string]any{"text": `{"name": `}, config: on(schema), want: Result{"is_valid_json": false}},
		{name: "draft 7 by $schema", input: map[string]any{"text": `[1, 2]`}, config: on(`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": {"type": "integer"}}`), want: Result{"is_valid_json": true}},
		{name: "local $defs", input: map[string]any{"text": `{"p": {"x": 1}}`}, config: on(`{"$defs": {"pt": {"type": "object", "required": ["y"]}}, "properties": {"p": {"$ref": "#/$defs/pt"}}}`), want: Result{"is_valid_json": false}},
		{name: "schema not JSON", input: map[string]any{"text": `{}`}, config: on(`{"type": `), errField: "config.schema_string", errMsg: "config.schema_string is not valid JSON: unexpected EOF"},
		{name: "schema with a wrong keyword type", input: map[string]any{"text": `{}`}, config: on(`{"type": 12}`), errField: "config.schema_string"},
		{name: "schema is required when enabled", input: map[string]any{"text": `{}`}, config: map[string]any{"enable_schema_validation": true}, errField: "config.schema_string", errMsg: "config.schema_string is required when config.enable_schema_validation is true"},
		{name: "no remote or file refs", input: map[string]any{"text": `{}`}, config: on(`{"$ref": "file:///etc/passwd"}`), errField: "config.schema_string"},
		{name: "enable flag must be a boolean", input: map[string]any{"text": `{}`}, config: map[string]any{"enable_schema_validation": "yes"}, errField: "config.enable_schema_validation", errMsg: "config.enable_schema_validation must be a boolean, got string"},
	})
}
