package evaluators

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var jsonValidator = Definition{
	Slug:        "json-validator",
	Category:    CategoryFormatting,
	Description: "Checks that the text is valid JSON (RFC 8259) and, when enabled, that it validates against a JSON Schema (draft 2020-12 unless $schema names another draft; no remote $ref).",
	Inputs:      []Field{textInput("text", "Text", "The text to validate as JSON.")},
	Config: []Field{
		{Name: "enable_schema_validation", Type: TypeBoolean, Default: false, Label: "Enable schema validation", Description: "Also validate the JSON against config.schema_string."},
		{Name: "schema_string", Type: TypeString, Label: "JSON Schema", Description: "The JSON Schema, serialized into a string; required when enable_schema_validation is true, ignored otherwise. A schema that does not compile is a 400."},
	},
	Outputs: []Field{boolOutput("is_valid_json", "Is valid JSON", "Whether the text is valid JSON (and, with schema validation, valid against the schema).")},
	Side:    SideOutput,
	Score:   "is_valid_json",
	PassDoc: "is_valid_json == true",
	run:     runJSONValidator,
	pass:    passWhenTrue("is_valid_json"),
}

// runJSONValidator checks the text with encoding/json's strict RFC 8259
// grammar (one value, surrounding whitespace allowed; NaN, Infinity,
// comments and trailing commas are not JSON). With
// enable_schema_validation, the schema of schema_string is compiled
// (santhosh-tekuri/jsonschema v6: drafts 4, 6, 7, 2019-09 and 2020-12,
// 2020-12 by default; "format" is an annotation, not asserted, as the
// 2020-12 default says) and the text must validate against it. A schema
// that is not JSON or does not compile, or that refers to any resource
// outside itself ($ref to a URL or a file: nothing is loaded), is a 400
// naming config.schema_string, never is_valid_json false: the request is
// wrong, not the text.
func runJSONValidator(_ context.Context, req Request) (Result, error) {
	text := req.Text("text")
	var schema *jsonschema.Schema
	if req.Bool("enable_schema_validation") {
		var err error
		if schema, err = compileJSONSchema(req.String("schema_string")); err != nil {
			return nil, err
		}
	}
	if !json.Valid([]byte(text)) {
		return Result{"is_valid_json": false}, nil
	}
	if schema == nil {
		return Result{"is_valid_json": true}, nil
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return Result{"is_valid_json": false}, nil
	}
	return Result{"is_valid_json": schema.Validate(inst) == nil}, nil
}

// errNoSchemaLoading refuses every resource a schema refers to outside
// itself.
var errNoSchemaLoading = errors.New("schemas are not loaded from URLs or files: put every definition in schema_string ($defs)")

// noLoader is the compiler's URL loader: it loads nothing.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: %w", url, errNoSchemaLoading)
}

// schemaURL is the name of the schema resource inside the compiler.
const schemaURL = "urn:evalcol:json-validator:schema"

// compileJSONSchema compiles schema_string, or answers the 400 that names
// it.
func compileJSONSchema(s string) (*jsonschema.Schema, error) {
	const field = "config.schema_string"
	if strings.TrimSpace(s) == "" {
		return nil, invalidf(field, "%s is required when config.enable_schema_validation is true", field)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		return nil, invalidf(field, "%s is not valid JSON: %v", field, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, invalidf(field, "%s is not a valid JSON Schema: %v", field, err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, invalidf(field, "%s is not a valid JSON Schema: %s", field, strings.ReplaceAll(err.Error(), schemaURL, "schema"))
	}
	return sch, nil
}
