package engine

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/ottl/contexts/ottlspan"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/internal/monitor"
)

// Span attributes that carry token log probabilities, in order of preference.
var logprobsAttributes = []string{"gen_ai.completion.logprobs", "llm.completions.0.logprobs"}

// inputSource builds evaluator inputs for one span.
type inputSource struct {
	attrs       pcommon.Map
	groundTruth string
	maxText     int
	content     contentOnce
	// built are the default inputs built for the span so far: evaluators
	// whose inputs are the same fields of the same side share one map
	// (toxicity, secrets and char-count all read the completion as
	// "text"). Evaluators only read their input.
	built  [8]builtInput
	nbuilt int
}

// builtInput is one default input of the span, as build returned it.
type builtInput struct {
	def       *evaluators.Definition
	input     map[string]string
	truncated bool
	missing   string
}

// sameDefaultInputs reports whether the default mapping gives a and b the
// same input: the same fields (names, required, JSON arrays) of the same
// side.
func sameDefaultInputs(a, b *evaluators.Definition) bool {
	if a == b {
		return true
	}
	if a.Side != b.Side || len(a.Inputs) != len(b.Inputs) {
		return false
	}
	for i, f := range a.Inputs {
		g := b.Inputs[i]
		if f.Name != g.Name || f.Required != g.Required || f.JSONArray != g.JSONArray {
			return false
		}
	}
	return true
}

// build returns the evaluator's input for the span: each field from the
// monitor's OTTL expression when it has one, else from the default mapping.
// Empty fields are left out. missing names the first required field
// without a value (the span is skipped for this evaluator); truncated
// reports that a text was cut to maxText bytes. The input must not be
// changed: evaluators with the same default inputs share it.
func (s *inputSource) build(ctx context.Context, tctx *ottlspan.TransformContext, m *monitor.Monitor, def *evaluators.Definition) (input map[string]string, truncated bool, missing string) {
	if len(m.Inputs) > 0 {
		return s.buildFields(ctx, tctx, m, def)
	}
	for i := range s.built[:s.nbuilt] {
		if b := &s.built[i]; sameDefaultInputs(b.def, def) {
			return b.input, b.truncated, b.missing
		}
	}
	input, truncated, missing = s.buildFields(ctx, tctx, m, def)
	if s.nbuilt < len(s.built) {
		s.built[s.nbuilt] = builtInput{def: def, input: input, truncated: truncated, missing: missing}
		s.nbuilt++
	}
	return input, truncated, missing
}

func (s *inputSource) buildFields(ctx context.Context, tctx *ottlspan.TransformContext, m *monitor.Monitor, def *evaluators.Definition) (input map[string]string, truncated bool, missing string) {
	for _, f := range def.Inputs {
		var (
			v   string
			cut bool
		)
		if e, ok := m.Inputs[f.Name]; ok {
			var err error
			v, _, err = e.EvalString(ctx, tctx)
			if err != nil {
				v = ""
			}
			if !f.JSONArray {
				v, cut = truncateUTF8(v, s.maxText)
			}
		} else {
			v, cut = s.defaultInput(f, def.Side)
		}
		if v == "" {
			if f.Required {
				return nil, false, f.Name
			}
			continue
		}
		truncated = truncated || cut
		if input == nil {
			input = make(map[string]string, len(def.Inputs))
		}
		input[f.Name] = v
	}
	return input, truncated, ""
}

// defaultInput maps an evaluator input field to the span's content.
func (s *inputSource) defaultInput(f evaluators.Field, side evaluators.Side) (string, bool) {
	switch f.Name {
	case "text", "prompt":
		c := s.content.get()
		switch side {
		case evaluators.SideInput:
			return truncateUTF8(c.LastUserPrompt(), s.maxText)
		case evaluators.SideExchange:
			return exchangeInput(c.LastUserPrompt(), c.LastCompletion(), s.maxText)
		}
		return truncateUTF8(c.LastCompletion(), s.maxText)
	case "question", "query", "denominator_text":
		return truncateUTF8(s.content.get().LastUserPrompt(), s.maxText)
	case "completion", "answer", "response", "numerator_text":
		return truncateUTF8(s.content.get().LastCompletion(), s.maxText)
	case "instructions":
		return truncateUTF8(s.content.get().SystemContext(), s.maxText)
	case "trajectory_prompts":
		return s.turns(s.content.get().UserPrompts())
	case "trajectory_completions":
		return s.turns(s.content.get().AssistantTurns())
	case "tool_input", "tool_output":
		return s.toolIO(f.Name == "tool_input")
	case "context":
		return truncateUTF8(s.content.get().SystemContext(), s.maxText)
	case "ground_truth", "reference":
		if s.groundTruth == "" {
			return "", false
		}
		if v, ok := s.attrs.Get(s.groundTruth); ok {
			return truncateUTF8(v.AsString(), s.maxText)
		}
	case "prompts":
		return s.turns(s.content.get().UserPrompts())
	case "completions":
		return s.turns(s.content.get().AssistantTurns())
	case "logprobs":
		for _, k := range logprobsAttributes {
			if v, ok := s.attrs.Get(k); ok {
				return v.AsString(), false // a JSON array; never cut
			}
		}
	}
	return "", false
}

// Span attributes of a tool call's arguments and result (OpenTelemetry
// GenAI execute_tool spans), read before the entity input and output of
// an OpenLLMetry tool span.
var toolArgumentsAttributes = []string{"gen_ai.tool.call.arguments"}
var toolResultAttributes = []string{"gen_ai.tool.call.result"}

// toolIO returns the input (or output) of a tool span: the GenAI tool
// call attributes, else the entity input or output of a span whose
// traceloop.span.kind is "tool"; "" for other spans, which the tool
// evaluators skip.
func (s *inputSource) toolIO(input bool) (string, bool) {
	keys := toolResultAttributes
	if input {
		keys = toolArgumentsAttributes
	}
	for _, k := range keys {
		if v, ok := s.attrs.Get(k); ok && v.AsString() != "" {
			return truncateUTF8(v.AsString(), s.maxText)
		}
	}
	c := s.content.get()
	if c.SpanKind != "tool" {
		return "", false
	}
	if input {
		return truncateUTF8(c.Input, s.maxText)
	}
	return truncateUTF8(c.Output, s.maxText)
}

// ExchangeSeparator joins the prompt and the completion in the text of an
// evaluator that reads the whole exchange (evaluators.SideExchange).
const ExchangeSeparator = "\n\n"

// ExchangeText is the text an exchange-side evaluator reads: the last user
// prompt and the completion, joined by ExchangeSeparator (either alone
// when the other is empty).
func ExchangeText(prompt, completion string) string {
	switch {
	case prompt == "":
		return completion
	case completion == "":
		return prompt
	}
	return prompt + ExchangeSeparator + completion
}

// exchangeInput is ExchangeText of prompt and completion within limit
// bytes (0: none): when both do not fit, each keeps at least half of it
// and the shorter one lends the rest to the other, so that a long prompt
// cannot push the completion out of the check.
func exchangeInput(prompt, completion string, limit int) (string, bool) {
	if limit <= 0 || len(prompt)+len(completion)+len(ExchangeSeparator) <= limit {
		return ExchangeText(prompt, completion), false
	}
	if prompt == "" || completion == "" {
		return truncateUTF8(prompt+completion, limit)
	}
	room := limit - len(ExchangeSeparator)
	pmax := max(room/2, room-len(completion))
	p, _ := truncateUTF8(prompt, pmax)
	c, _ := truncateUTF8(completion, room-len(p))
	return ExchangeText(p, c), true
}

// turns renders conversation turns as a JSON array of strings, each turn
// truncated to maxText bytes; "" when there are none.
func (s *inputSource) turns(ts []string) (string, bool) {
	if len(ts) == 0 {
		return "", false
	}
	cut := false
	for i, t := range ts {
		var c bool
		ts[i], c = truncateUTF8(t, s.maxText)
		cut = cut || c
	}
	b, err := json.Marshal(ts)
	if err != nil {
		return "", false
	}
	return string(b), cut
}

// truncateUTF8 cuts s to at most max bytes at a rune boundary; max <= 0
// means no limit.
func truncateUTF8(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// DefaultInputs returns the inputs of def that the default mapping takes
// from a span's attributes (the inputs a monitor without input
// expressions evaluates), each cut to maxText bytes (0: no limit). The
// console's playground uses it to prefill a form from a stored span.
func DefaultInputs(attrs pcommon.Map, def *evaluators.Definition, groundTruthAttribute string, maxText int) map[string]string {
	s := inputSource{attrs: attrs, groundTruth: groundTruthAttribute, maxText: maxText, content: contentOnce{attrs: attrs}}
	out := make(map[string]string, len(def.Inputs))
	for _, f := range def.Inputs {
		if v, _ := s.defaultInput(f, def.Side); v != "" {
			out[f.Name] = v
		}
	}
	return out
}

// SpanInput returns what the default mapping gives an input called name
// from a span's attributes, cut to maxText bytes (0: no limit), "" when it
// gives nothing: the inputs of a custom evaluator (an LLM judge) whose
// input schema names the span's parts as the prebuilt evaluators do
// (question, completion, context, ground_truth, ...).
func SpanInput(attrs pcommon.Map, name, groundTruthAttribute string, maxText int) string {
	s := inputSource{attrs: attrs, groundTruth: groundTruthAttribute, maxText: maxText, content: contentOnce{attrs: attrs}}
	v, _ := s.defaultInput(evaluators.Field{Name: name}, evaluators.SideBoth)
	return v
}
