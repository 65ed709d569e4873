package evaluators

import (
	"context"
	"sort"
)

// Category groups evaluators as the /v2 API does.
type Category string

// The evaluator categories of the API.
const (
	CategoryQuality    Category = "Quality & Correctness"
	CategoryFormatting Category = "Formatting"
	CategorySecurity   Category = "Security & Compliance"
	CategoryStyle      Category = "Style"
)

// FieldType is the JSON type of an input, config or output field.
type FieldType string

// The field types of the catalogue.
const (
	TypeString  FieldType = "string"
	TypeBoolean FieldType = "boolean"
	TypeNumber  FieldType = "number"
	TypeInteger FieldType = "integer"
	// TypeStringArray is a JSON array of strings (config fields only,
	// such as agent-flow-quality's conditions).
	TypeStringArray FieldType = "array"
)

// Field describes one input, config or output field.
type Field struct {
	Name        string    `json:"name"`
	Type        FieldType `json:"type"`
	Required    bool      `json:"required,omitempty"`
	Description string    `json:"description"`
	Label       string    `json:"label"`
	// EnumValues lists the allowed values of an enumerated string field.
	EnumValues []string `json:"enum_values,omitempty"`
	// Default is the value a config field takes when the request omits it.
	Default any `json:"default,omitempty"`
	// Min and Max bound a numeric config field when set.
	Min, Max *float64 `json:"-"`
	// JSONArray marks a string input that must hold a JSON array.
	JSONArray bool `json:"-"`
}

// Side says which part of an LLM exchange an evaluator judges by default.
type Side string

// The sides of an exchange.
const (
	SideInput  Side = "input"  // the user's prompt (prompt-injection, pii on input)
	SideOutput Side = "output" // the model's completion (toxicity, profanity, ...)
	SideBoth   Side = "both"   // needs both (faithfulness, relevancy, ...)
	// SideExchange reads one text made of both: the last user prompt and
	// the completion (pii-detector: personal data leaks either way).
	SideExchange Side = "exchange"
)

// Result is the flat response object of an evaluator: output field name to
// value (string, bool, float64 or int).
type Result map[string]any

// Request is a validated evaluator request: every required input is present
// and of the right type, and config holds every config field of the
// evaluator, defaults filled in.
type Request struct {
	Input  map[string]string
	Config map[string]any
}

// Text returns the input field name ("" when absent).
func (r Request) Text(name string) string { return r.Input[name] }

// Float returns the numeric config field name.
func (r Request) Float(name string) float64 {
	f, _ := r.Config[name].(float64)
	return f
}

// Bool returns the boolean config field name.
func (r Request) Bool(name string) bool {
	b, _ := r.Config[name].(bool)
	return b
}

// String returns the string config field name.
func (r Request) String(name string) string {
	s, _ := r.Config[name].(string)
	return s
}

// Strings returns the string array config field name.
func (r Request) Strings(name string) []string {
	s, _ := r.Config[name].([]string)
	return s
}

// Has reports whether the config field name is set (given or defaulted).
func (r Request) Has(name string) bool {
	_, ok := r.Config[name]
	return ok
}

// Definition is one evaluator: its catalogue entry and its implementation.
type Definition struct {
	Slug        string   `json:"slug"`
	Category    Category `json:"category"`
	Description string   `json:"description"`
	Inputs      []Field  `json:"input_schema"`
	Config      []Field  `json:"config_schema"`
	Outputs     []Field  `json:"output_schema"`
	// Side is the part of an exchange the evaluator reads by default.
	Side Side `json:"-"`
	// Score names the output field used as the evaluation's score value
	// and label (see ScoreOf).
	Score string `json:"-"`
	// PassDoc explains when a guardrail passes.
	PassDoc string `json:"pass_condition"`

	run  func(ctx context.Context, req Request) (Result, error)
	pass func(Result) bool
	// explain says why a result came out as it did (nil: the evaluator
	// gives no explanations); see Explain.
	explain func(ctx context.Context, req Request, res Result) *Explanation
	// validate checks a config that passed the field checks as a whole
	// (nil: nothing more to check).
	validate func(config map[string]any) error
	// guard rewrites a result into the guardrails endpoint's form; nil
	// keeps it as it is.
	guard func(Result) Result
}

// GuardrailResult returns a result in the form POST
// /v2/guardrails/<slug>/execute answers, which the Traceloop SDKs' guards
// read: the "safe"/"unsafe" fields become booleans (is_safe true when safe,
// has_injection true when an injection was found), and profanity-detector
// also answers is_safe. Other results are unchanged.
func (d *Definition) GuardrailResult(r Result) Result {
	if d.guard == nil {
		return r
	}
	return d.guard(r)
}

// Pass reports whether a result passes the evaluator's guardrail: safe, no
// PII, no secret, no injection, no profanity, regex valid, or a score of at
// least 0.5, as documented per evaluator.
func (d *Definition) Pass(r Result) bool { return d.pass(r) }

// Input returns the input field called name.
func (d *Definition) Input(name string) (Field, bool) { return findField(d.Inputs, name) }

// ConfigField returns the config field called name.
func (d *Definition) ConfigField(name string) (Field, bool) { return findField(d.Config, name) }

func findField(fs []Field, name string) (Field, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// registry maps slug to definition. It is built once from definitions and
// never written afterwards.
var registry = func() map[string]*Definition {
	m := make(map[string]*Definition)
	for _, d := range definitions() {
		m[d.Slug] = d
	}
	return m
}()

// definitions lists every evaluator, in catalogue order.
func definitions() []*Definition {
	return []*Definition{
		&sexismDetector,
		&toxicityDetector,
		&promptInjection,
		&piiDetector,
		&secretsDetector,
		&profanityDetector,
		&uncertaintyDetector,
		&faithfulness,
		&answerCorrectness,
		&answerRelevancy,
		&semanticSimilarity,
		&conversationQuality,
		&perplexity,
		&placeholderRegex,
		&regexValidator,
		&htmlComparison,
		&wordCount,
		&charCount,
		// Traceloop's other prebuilt slugs (issue 30).
		&agentEfficiency,
		&agentFlowQuality,
		&agentGoalAccuracy,
		&agentGoalCompleteness,
		&agentToolErrorDetector,
		&agentToolTrajectory,
		&answerCompleteness,
		&charCountRatio,
		&contextRelevance,
		&instructionAdherence,
		&intentChange,
		&jsonValidator,
		&promptPerplexity,
		&sqlValidator,
		&toneDetection,
		&topicAdherence,
		&wordCountRatio,
	}
}

// Catalogue returns every evaluator definition in catalogue order. The
// definitions are shared and must not be modified.
func Catalogue() []*Definition { return definitions() }

// Slugs returns the evaluator slugs, sorted.
func Slugs() []string {
	s := make([]string, 0, len(registry))
	for slug := range registry {
		s = append(s, slug)
	}
	sort.Strings(s)
	return s
}

// Lookup returns the definition of slug.
func Lookup(slug string) (*Definition, bool) {
	d, ok := registry[slug]
	return d, ok
}
