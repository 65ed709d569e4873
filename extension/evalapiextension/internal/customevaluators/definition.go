package customevaluators

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/evalcol/evalcol/internal/judge"
)

// Definition is one version of a custom evaluator: what is stored (as
// the warehouse document) and what a judge call needs.
type Definition struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Provider     string          `json:"provider"`
	Model        string          `json:"model"`
	Messages     []judge.Message `json:"messages"`
	InputSchema  []judge.Field   `json:"input_schema"`
	OutputSchema []judge.Field   `json:"output_schema"`
	Params       judge.Params    `json:"params"`
}

// Spec is the judge call of d.
func (d Definition) Spec() judge.Spec {
	return judge.Spec{Provider: d.Provider, Model: d.Model, Messages: d.Messages, InputSchema: d.InputSchema,
		OutputSchema: d.OutputSchema, Params: d.Params}
}

// Limits of a definition.
const (
	MaxNameBytes        = 200
	MaxDescriptionBytes = 4 << 10
	MaxModelBytes       = 200
	MaxMessages         = 50
	MaxPromptBytes      = 64 << 10 // all messages' content together
	MaxFields           = 50
	MaxSlugBytes        = 64
)

// Roles a message may have.
var Roles = []string{"system", "user", "assistant"}

// slugPattern is a slug: lower-case letters, digits and dashes. Ids start
// with "ce_", which no slug can, so that a reference is never both.
var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// FieldError is a request mistake in one field (400); Field names it as
// the request spells it.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func fieldErrorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// schemaItem is a field as the SDK sends it.
type schemaItem = judge.Field

// llmParams are the sampling parameters as the API spells them (the
// create body's top level, or PATCH's config.llm_config).
type llmParams struct {
	Model            *string  `json:"model"`
	Temperature      *float64 `json:"temperature"`
	MaxTokens        *float64 `json:"max_tokens"`
	TopP             *float64 `json:"top_p"`
	FrequencyPenalty *float64 `json:"frequency_penalty"`
	PresencePenalty  *float64 `json:"presence_penalty"`
}

// createRequest is the body of POST /v2/evaluators (the SDK's
// CreateCustomEvaluatorRequest, snake_case). Unknown fields are ignored.
type createRequest struct {
	Name         *string         `json:"name"`
	Slug         *string         `json:"slug"`
	Description  *string         `json:"description"`
	Messages     []judge.Message `json:"messages"`
	Provider     *string         `json:"provider"`
	InputSchema  []schemaItem    `json:"input_schema"`
	OutputSchema []schemaItem    `json:"output_schema"`
	llmParams
}

// updateRequest is the body of PATCH /v2/evaluators/{id}: the SDK's shape
// (name and schemas at the top, the rest under config and
// config.llm_config); the config fields are also taken at the top level.
// Only the fields given change.
type updateRequest struct {
	Name         *string         `json:"name"`
	Description  *string         `json:"description"`
	Provider     *string         `json:"provider"`
	Messages     []judge.Message `json:"messages"`
	InputSchema  []schemaItem    `json:"input_schema"`
	OutputSchema []schemaItem    `json:"output_schema"`
	Config       *struct {
		Description *string         `json:"description"`
		Provider    *string         `json:"provider"`
		Messages    []judge.Message `json:"messages"`
		LLMConfig   *llmParams      `json:"llm_config"`
	} `json:"config"`
	llmParams
}

// decodeStrict decodes one JSON object, naming a field of the wrong type.
func decodeStrict(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return &FieldError{Field: "body", Msg: "is empty: send a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fieldErrorf(te.Field, "must be %s, got a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)
		}
		return &FieldError{Field: "body", Msg: "is not valid JSON: " + err.Error()}
	}
	if dec.More() {
		return &FieldError{Field: "body", Msg: "has data after the JSON object"}
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "float64", "int", "int64":
		return "a number"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return goKind
}

// parseCreate reads a create request into a definition and the slug asked
// for ("" to derive one from the name).
func parseCreate(body []byte) (Definition, string, error) {
	var req createRequest
	if err := decodeStrict(body, &req); err != nil {
		return Definition{}, "", err
	}
	d := Definition{Messages: req.Messages, InputSchema: req.InputSchema, OutputSchema: req.OutputSchema}
	if req.Name == nil {
		return d, "", fieldErrorf("name", "is required")
	}
	d.Name = *req.Name
	if req.Description != nil {
		d.Description = *req.Description
	}
	if req.Provider == nil {
		return d, "", fieldErrorf("provider", "is required: the name of a judge provider configured on the collector")
	}
	d.Provider = *req.Provider
	if req.Model == nil {
		return d, "", fieldErrorf("model", "is required")
	}
	if req.Messages == nil {
		return d, "", fieldErrorf("messages", "is required: [{role, content}], content may use {{field}} of input_schema")
	}
	if req.OutputSchema == nil {
		return d, "", fieldErrorf("output_schema", "is required: [{name, type}], e.g. [{\"name\": \"passed\", \"type\": \"boolean\"}]")
	}
	if d.InputSchema == nil {
		d.InputSchema = []judge.Field{}
	}
	if err := applyParams(&d, req.llmParams, ""); err != nil {
		return d, "", err
	}
	slug := ""
	if req.Slug != nil {
		slug = *req.Slug
		if err := checkSlug(slug); err != nil {
			return d, "", err
		}
	}
	return d, slug, nil
}

// applyParams sets the model and sampling parameters given in p; prefix
// names where they came from in errors ("config.llm_config.").
func applyParams(d *Definition, p llmParams, prefix string) error {
	if p.Model != nil {
		d.Model = *p.Model
	}
	for _, f := range []struct {
		name     string
		v        *float64
		min, max float64
		dst      **float64
	}{
		{"temperature", p.Temperature, 0, 2, &d.Params.Temperature},
		{"top_p", p.TopP, 0, 1, &d.Params.TopP},
		{"frequency_penalty", p.FrequencyPenalty, -2, 2, &d.Params.FrequencyPenalty},
		{"presence_penalty", p.PresencePenalty, -2, 2, &d.Params.PresencePenalty},
	} {
		if f.v == nil {
			continue
		}
		if math.IsNaN(*f.v) || *f.v < f.min || *f.v > f.max {
			return fieldErrorf(prefix+f.name, "must be between %g and %g, got %g", f.min, f.max, *f.v)
		}
		v := *f.v
		*f.dst = &v
	}
	if p.MaxTokens != nil {
		n := *p.MaxTokens
		if n != math.Trunc(n) || n < 1 || n > 1_000_000 {
			return fieldErrorf(prefix+"max_tokens", "must be an integer between 1 and 1000000, got %g", n)
		}
		i := int(n)
		d.Params.MaxTokens = &i
	}
	return nil
}

// applyUpdate changes d by the fields of a PATCH body; it reports whether
// the body named any.
func applyUpdate(d *Definition, body []byte) (bool, error) {
	var req updateRequest
	if err := decodeStrict(body, &req); err != nil {
		return false, err
	}
	changed := false
	set := func(dst *string, v *string) {
		if v != nil {
			*dst, changed = *v, true
		}
	}
	set(&d.Name, req.Name)
	set(&d.Description, req.Description)
	set(&d.Provider, req.Provider)
	if req.Messages != nil {
		d.Messages, changed = req.Messages, true
	}
	if req.InputSchema != nil {
		d.InputSchema, changed = req.InputSchema, true
	}
	if req.OutputSchema != nil {
		d.OutputSchema, changed = req.OutputSchema, true
	}
	if req.llmParams != (llmParams{}) {
		changed = true
		if err := applyParams(d, req.llmParams, ""); err != nil {
			return false, err
		}
	}
	if c := req.Config; c != nil {
		set(&d.Description, c.Description)
		set(&d.Provider, c.Provider)
		if c.Messages != nil {
			d.Messages, changed = c.Messages, true
		}
		if c.LLMConfig != nil {
			changed = true
			if err := applyParams(d, *c.LLMConfig, "config.llm_config."); err != nil {
				return false, err
			}
		}
	}
	return changed, nil
}

// checkSlug checks a slug given by the caller.
func checkSlug(slug string) error {
	switch {
	case slug == "":
		return fieldErrorf("slug", "must not be empty (leave it out to derive one from the name)")
	case len(slug) > MaxSlugBytes:
		return fieldErrorf("slug", "at most %d bytes", MaxSlugBytes)
	case !slugPattern.MatchString(slug):
		return fieldErrorf("slug", "%q may hold only lower-case letters, digits and dashes, and starts with a letter or digit", slug)
	}
	return nil
}

// slugFromName derives a slug from a name: lower case, runs of other
// characters become one dash.
func slugFromName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= MaxSlugBytes {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > MaxSlugBytes {
		s = strings.Trim(s[:MaxSlugBytes], "-")
	}
	if s == "" {
		return "evaluator"
	}
	return s
}

// validate checks a whole definition; hasProvider says whether a provider
// name is configured, providers lists them for the message.
func (d Definition) validate(hasProvider func(string) bool, providers []string) error {
	switch {
	case strings.TrimSpace(d.Name) == "":
		return fieldErrorf("name", "must not be empty")
	case len(d.Name) > MaxNameBytes:
		return fieldErrorf("name", "at most %d bytes", MaxNameBytes)
	case len(d.Description) > MaxDescriptionBytes:
		return fieldErrorf("description", "at most %d bytes", MaxDescriptionBytes)
	case strings.TrimSpace(d.Model) == "":
		return fieldErrorf("model", "must not be empty")
	case len(d.Model) > MaxModelBytes:
		return fieldErrorf("model", "at most %d bytes", MaxModelBytes)
	case d.Provider == "":
		return fieldErrorf("provider", "must not be empty")
	case !hasProvider(d.Provider):
		configured := "none: configure extensions.evalapi.judge.providers, or set OPENAI_API_KEY / OPENAI_BASE_URL or ANTHROPIC_API_KEY"
		if len(providers) > 0 {
			configured = strings.Join(providers, ", ")
		}
		return fieldErrorf("provider", "%q is not a judge provider of this collector (configured: %s)", d.Provider, configured)
	case len(d.Messages) == 0:
		return fieldErrorf("messages", "must hold at least one message")
	case len(d.Messages) > MaxMessages:
		return fieldErrorf("messages", "at most %d messages", MaxMessages)
	case len(d.OutputSchema) == 0:
		return fieldErrorf("output_schema", "must list at least one field, e.g. {\"name\": \"passed\", \"type\": \"boolean\"}")
	case len(d.OutputSchema) > MaxFields:
		return fieldErrorf("output_schema", "at most %d fields", MaxFields)
	case len(d.InputSchema) > MaxFields:
		return fieldErrorf("input_schema", "at most %d fields", MaxFields)
	}
	for _, s := range []struct {
		name string
		fs   []judge.Field
	}{{"input_schema", d.InputSchema}, {"output_schema", d.OutputSchema}} {
		if err := judge.CheckFields(s.name, s.fs); err != nil {
			name, msg, _ := strings.Cut(err.Error(), ": ")
			return &FieldError{Field: name, Msg: msg}
		}
	}
	inputs := map[string]bool{}
	for _, f := range d.InputSchema {
		inputs[f.Name] = true
	}
	total := 0
	for i, m := range d.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		if !slices.Contains(Roles, m.Role) {
			return fieldErrorf(at+".role", "%q is not a role (use %s)", m.Role, strings.Join(Roles, ", "))
		}
		if strings.TrimSpace(m.Content) == "" {
			return fieldErrorf(at+".content", "must not be empty")
		}
		total += len(m.Content)
		for _, p := range judge.Placeholders(m.Content) {
			if !inputs[p] {
				return fieldErrorf(at+".content", "{{%s}} is not a field of input_schema", p)
			}
		}
	}
	if total > MaxPromptBytes {
		return fieldErrorf("messages", "the contents hold %d bytes together, more than %d", total, MaxPromptBytes)
	}
	return nil
}
