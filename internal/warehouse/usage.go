package warehouse

import "github.com/evalcol/evalcol/internal/genai"

// ModelUsage is the tokens one model read and wrote: what a cost is
// computed from (internal/pricing), at read time, so that a price change
// applies to spans stored before it.
type ModelUsage struct {
	Model                     string
	InputTokens, OutputTokens int64
}

// Usage returns the span's input and output tokens, read from its
// attributes (gen_ai.usage.input_tokens / output_tokens,
// llm.usage.prompt_tokens / completion_tokens, ...: genai.UsageStrings).
func (sp *Span) Usage() (input, output int64) { return genai.UsageStrings(sp.SpanAttributes) }

// PricedModel is the model a span's tokens are priced as: the response
// model (the one that answered, often dated: gpt-4o-2024-08-06), else the
// requested one.
func (sp *Span) PricedModel() string { return cmpOr(sp.ResponseModel, sp.RequestModel) }

// AddUsage adds a span's tokens to the usage of its model.
func AddUsage(us []ModelUsage, sp *Span) []ModelUsage {
	in, out := sp.Usage()
	if in == 0 && out == 0 {
		return us
	}
	m := sp.PricedModel()
	for i := range us {
		if us[i].Model == m {
			us[i].InputTokens += in
			us[i].OutputTokens += out
			return us
		}
	}
	return append(us, ModelUsage{Model: m, InputTokens: in, OutputTokens: out})
}
