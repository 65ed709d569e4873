package genai

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// maxMessageIndex bounds the message index taken from an attribute key, so
// that a key such as llm.prompts.999999999.content cannot make Extract
// allocate a huge slice. Messages beyond it are ignored.
const maxMessageIndex = 1024

// Prefixes of the indexed message keys.
const (
	prefixLegacyPrompt     = "llm.prompts."
	prefixLegacyCompletion = "llm.completions."
	prefixGenAIPrompt      = "gen_ai.prompt."
	prefixGenAICompletion  = "gen_ai.completion."
	prefixOIInput          = "llm.input_messages."
	prefixOIOutput         = "llm.output_messages."
)

// Extract reads the LLM content of a span from its attributes. The result
// does not depend on the attributes' order.
func Extract(attrs pcommon.Map) Content {
	var x extractor
	for k, v := range attrs.All() {
		x.add(k, v)
	}
	return x.finish()
}

// ExtractStrings is Extract over attributes in their stored form, every
// value as its text (pcommon.Value.AsString), as the warehouse keeps span
// attributes. Prompts, completions, input and output come out as Extract
// gives them for the original attributes, whatever their types: every
// value Extract reads as text is its AsString, and
// gen_ai.response.finish_reasons, an array, is read back from its JSON
// text.
func ExtractStrings(attrs map[string]string) Content {
	var x extractor
	v := pcommon.NewValueEmpty()
	for k, s := range attrs {
		v.SetStr(s)
		x.add(k, v)
	}
	return x.finish()
}

// extractor collects what one pass over the attributes finds, per
// convention, and picks the best source of each field in finish.
type extractor struct {
	legacyPrompts, legacyCompletions []Message
	genPrompts, genCompletions       []Message
	oiPrompts, oiCompletions         []Message
	oiPromptParts, oiCompletionParts []oiPart

	inputMessages, outputMessages, systemInstructions  string
	entityInput, entityOutput, inputValue, outputValue string
	finishReasons                                      pcommon.Slice
	hasFinishReasons                                   bool

	requestModel, responseModel, oiModel string
	vendor                               string
	vendorRank                           int

	inputTokens, outputTokens, totalTokens int64
	hasTotal                               bool

	workflow, entity, agent, spanKind string
}

// Vendor keys by precedence (lower wins).
var vendorRanks = map[string]int{
	"gen_ai.provider.name": 1,
	"gen_ai.system":        2,
	"llm.vendor":           3,
	"llm.provider":         4,
	"llm.system":           5,
}

func (x *extractor) add(k string, v pcommon.Value) {
	// Fast reject: every key we read starts with one of these letters.
	if k == "" {
		return
	}
	switch k[0] {
	case 'l', 'g', 't', 'i', 'o', 'a':
	default:
		return
	}
	switch {
	case strings.HasPrefix(k, prefixLegacyPrompt):
		setIndexed(&x.legacyPrompts, k[len(prefixLegacyPrompt):], v)
		return
	case strings.HasPrefix(k, prefixLegacyCompletion):
		setIndexed(&x.legacyCompletions, k[len(prefixLegacyCompletion):], v)
		return
	case strings.HasPrefix(k, prefixGenAIPrompt):
		setIndexed(&x.genPrompts, k[len(prefixGenAIPrompt):], v)
		return
	case strings.HasPrefix(k, prefixGenAICompletion):
		setIndexed(&x.genCompletions, k[len(prefixGenAICompletion):], v)
		return
	case strings.HasPrefix(k, prefixOIInput):
		setOpenInference(&x.oiPrompts, &x.oiPromptParts, k[len(prefixOIInput):], v)
		return
	case strings.HasPrefix(k, prefixOIOutput):
		setOpenInference(&x.oiCompletions, &x.oiCompletionParts, k[len(prefixOIOutput):], v)
		return
	}
	if x.addUsage(k, v) {
		return
	}
	switch k {
	case "gen_ai.input.messages":
		x.inputMessages = v.AsString()
	case "gen_ai.output.messages":
		x.outputMessages = v.AsString()
	case "gen_ai.system_instructions":
		x.systemInstructions = v.AsString()
	case "gen_ai.response.finish_reasons":
		x.finishReasons, x.hasFinishReasons = finishReasons(v)
	case "traceloop.entity.input":
		x.entityInput = v.AsString()
	case "traceloop.entity.output":
		x.entityOutput = v.AsString()
	case "input.value":
		x.inputValue = v.AsString()
	case "output.value":
		x.outputValue = v.AsString()
	case "gen_ai.request.model", "llm.request.model":
		if x.requestModel == "" {
			x.requestModel = v.AsString()
		}
	case "gen_ai.response.model", "llm.response.model":
		if x.responseModel == "" {
			x.responseModel = v.AsString()
		}
	case "llm.model_name":
		x.oiModel = v.AsString()
	case "gen_ai.provider.name", "gen_ai.system", "llm.vendor", "llm.provider", "llm.system":
		if r := vendorRanks[k]; x.vendor == "" || r < x.vendorRank {
			if s := v.AsString(); s != "" {
				x.vendor, x.vendorRank = s, r
			}
		}
	case "traceloop.workflow.name":
		x.workflow = v.AsString()
	case "traceloop.entity.name":
		x.entity = v.AsString()
	case "traceloop.span.kind":
		x.spanKind = v.AsString()
	case "gen_ai.agent.name":
		x.agent = v.AsString()
	case "agent.name":
		if x.agent == "" {
			x.agent = v.AsString()
		}
	}
}

// addUsage reads a token count attribute; it reports whether k is one.
func (x *extractor) addUsage(k string, v pcommon.Value) bool {
	switch k {
	case "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.usage.prompt_tokens",
		"llm.usage.input_tokens", "llm.token_count.prompt":
		if n, ok := intValue(v); ok && x.inputTokens == 0 {
			x.inputTokens = n
		}
	case "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.usage.completion_tokens",
		"llm.usage.output_tokens", "llm.token_count.completion":
		if n, ok := intValue(v); ok && x.outputTokens == 0 {
			x.outputTokens = n
		}
	case "llm.usage.total_tokens", "gen_ai.usage.total_tokens", "llm.token_count.total":
		if n, ok := intValue(v); ok && !x.hasTotal {
			x.totalTokens, x.hasTotal = n, true
		}
	default:
		return false
	}
	return true
}

// UsageStrings reads the input and output token counts of a span from
// its attributes in their stored form (as ExtractStrings does, without
// reading the content): what prices a span's tokens.
func UsageStrings(attrs map[string]string) (input, output int64) {
	var x extractor
	v := pcommon.NewValueEmpty()
	for k, s := range attrs {
		if k == "" || (k[0] != 'g' && k[0] != 'l') || !strings.Contains(k, "token") {
			continue
		}
		v.SetStr(s)
		x.addUsage(k, v)
	}
	return x.inputTokens, x.outputTokens
}

func (x *extractor) finish() Content {
	c := Content{
		RequestModel:  x.requestModel,
		ResponseModel: x.responseModel,
		Vendor:        x.vendor,
		InputTokens:   x.inputTokens,
		OutputTokens:  x.outputTokens,
		TotalTokens:   x.totalTokens,
		Workflow:      x.workflow,
		Entity:        x.entity,
		Agent:         x.agent,
		SpanKind:      x.spanKind,
	}
	if x.oiModel != "" {
		if c.ResponseModel == "" {
			c.ResponseModel = x.oiModel
		}
		if c.RequestModel == "" {
			c.RequestModel = x.oiModel
		}
	}
	if !x.hasTotal {
		c.TotalTokens = c.InputTokens + c.OutputTokens
	}
	if c.Agent == "" && x.spanKind == "agent" {
		c.Agent = x.entity
	}

	joinParts(x.oiPrompts, x.oiPromptParts)
	joinParts(x.oiCompletions, x.oiCompletionParts)
	if x.inputMessages != "" {
		c.Prompts = decodeMessages(x.inputMessages)
	}
	c.Prompts = firstNonEmpty(c.Prompts, x.genPrompts, x.legacyPrompts, x.oiPrompts)
	if x.systemInstructions != "" && !hasRole(c.Prompts, "system") {
		if s := decodeSystemInstructions(x.systemInstructions); s != "" {
			c.Prompts = append([]Message{{Role: "system", Content: s}}, c.Prompts...)
		}
	}
	if x.outputMessages != "" {
		c.Completions = decodeMessages(x.outputMessages)
	}
	c.Completions = firstNonEmpty(c.Completions, x.genCompletions, x.legacyCompletions, x.oiCompletions)
	if x.hasFinishReasons {
		for i := 0; i < len(c.Completions) && i < x.finishReasons.Len(); i++ {
			if c.Completions[i].FinishReason == "" {
				c.Completions[i].FinishReason = x.finishReasons.At(i).AsString()
			}
		}
	}

	c.Input = x.entityInput
	if c.Input == "" {
		c.Input = c.FirstUserPrompt()
	}
	if c.Input == "" {
		c.Input = x.inputValue
	}
	c.Output = x.entityOutput
	if c.Output == "" {
		c.Output = c.LastCompletion()
	}
	if c.Output == "" {
		c.Output = x.outputValue
	}
	return c
}

// firstNonEmpty returns the first list with a message of text or role,
// dropping the holes an index gap left.
func firstNonEmpty(lists ...[]Message) []Message {
	for _, l := range lists {
		if l = compact(l); len(l) > 0 {
			return l
		}
	}
	return nil
}

func compact(l []Message) []Message {
	out := l[:0]
	for _, m := range l {
		if m != (Message{}) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func hasRole(ms []Message, role string) bool {
	for _, m := range ms {
		if m.Role == role {
			return true
		}
	}
	return false
}

// parseIndex splits "12.rest" into 12 and "rest".
func parseIndex(s string) (int, string, bool) {
	n := 0
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > maxMessageIndex {
			return 0, "", false
		}
	}
	if i == 0 || i >= len(s) || s[i] != '.' {
		return 0, "", false
	}
	return n, s[i+1:], true
}

// at returns the message at index i of *ms, growing the list as needed.
func at(ms *[]Message, i int) *Message {
	for len(*ms) <= i {
		*ms = append(*ms, Message{})
	}
	return &(*ms)[i]
}

// setIndexed reads an OpenLLMetry key suffix "<i>.role|content|finish_reason".
func setIndexed(ms *[]Message, rest string, v pcommon.Value) {
	i, field, ok := parseIndex(rest)
	if !ok {
		return
	}
	switch field {
	case "role":
		at(ms, i).Role = v.AsString()
	case "content":
		at(ms, i).Content = contentText(v.AsString())
	case "finish_reason":
		at(ms, i).FinishReason = v.AsString()
	}
}

// oiPart is the text of one part of an OpenInference message
// (<msg>.message.contents.<part>.message_content.text).
type oiPart struct {
	msg, part int
	text      string
}

// setOpenInference reads an OpenInference key suffix
// "<i>.message.role|content|finish_reason" or
// "<i>.message.contents.<j>.message_content.text"; the parts are joined in
// finish (joinParts), so that the attributes' order does not matter.
func setOpenInference(ms *[]Message, parts *[]oiPart, rest string, v pcommon.Value) {
	i, field, ok := parseIndex(rest)
	if !ok || !strings.HasPrefix(field, "message.") {
		return
	}
	field = field[len("message."):]
	switch field {
	case "role":
		at(ms, i).Role = v.AsString()
	case "content":
		at(ms, i).Content = v.AsString()
	case "finish_reason":
		at(ms, i).FinishReason = v.AsString()
	default:
		if part, ok := strings.CutPrefix(field, "contents."); ok && strings.HasSuffix(part, ".message_content.text") {
			if j, _, ok := parseIndex(part); ok {
				at(ms, i)
				*parts = append(*parts, oiPart{msg: i, part: j, text: v.AsString()})
			}
		}
	}
}

// joinParts appends the text parts of OpenInference messages to their
// content, in part order, each on its own line.
func joinParts(ms []Message, parts []oiPart) {
	slices.SortStableFunc(parts, func(a, b oiPart) int { return cmp.Or(cmp.Compare(a.msg, b.msg), cmp.Compare(a.part, b.part)) })
	for _, p := range parts {
		m := &ms[p.msg]
		if m.Content != "" {
			m.Content += "\n"
		}
		m.Content += p.text
	}
}

// finishReasons reads gen_ai.response.finish_reasons: an array, or its JSON
// text (as SDKs that flatten attributes, and the warehouse, store it).
func finishReasons(v pcommon.Value) (pcommon.Slice, bool) {
	switch v.Type() {
	case pcommon.ValueTypeSlice:
		return v.Slice(), true
	case pcommon.ValueTypeStr:
		s := strings.TrimSpace(v.Str())
		if len(s) < 2 || s[0] != '[' {
			break
		}
		var raw []any
		if json.Unmarshal([]byte(s), &raw) != nil {
			break
		}
		sl := pcommon.NewSlice()
		if sl.FromRaw(raw) == nil {
			return sl, true
		}
	}
	return pcommon.Slice{}, false
}

// contentText returns the text of an OpenLLMetry content value, which is
// either plain text or, for multi-part messages, a JSON array of parts
// ({"type": "text", "text": "..."}).
func contentText(s string) string {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return s
	}
	var parts []jsonPart
	if err := json.Unmarshal([]byte(s), &parts); err != nil {
		return s
	}
	if t, ok := partsText(parts); ok {
		return t
	}
	return s
}

type jsonPart struct {
	Type     string `json:"type"`
	Content  any    `json:"content"`
	Text     string `json:"text"`
	Response any    `json:"response"`
	Result   any    `json:"result"`
}

type jsonMessage struct {
	Role         string     `json:"role"`
	Parts        []jsonPart `json:"parts"`
	Content      any        `json:"content"`
	FinishReason string     `json:"finish_reason"`
}

// partsText joins the text of the text and tool-response parts; ok is false
// when no part carries text.
func partsText(parts []jsonPart) (string, bool) {
	var b strings.Builder
	found := false
	for _, p := range parts {
		var t string
		switch p.Type {
		case "text", "input_text", "output_text", "":
			t = p.Text
			if t == "" {
				t = anyText(p.Content)
			}
		case "tool_call_response", "tool_result":
			t = anyText(p.Response)
			if t == "" {
				t = anyText(p.Result)
			}
			if t == "" {
				t = anyText(p.Content)
			}
		default:
			continue
		}
		if t == "" {
			continue
		}
		if found {
			b.WriteByte('\n')
		}
		b.WriteString(t)
		found = true
	}
	return b.String(), found
}

// anyText returns a decoded JSON value as text: a string as itself, an array
// of parts as their text, anything else as JSON.
func anyText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		parts := make([]jsonPart, 0, len(t))
		for _, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				parts = nil
				break
			}
			p := jsonPart{Content: m["content"], Response: m["response"], Result: m["result"]}
			p.Type, _ = m["type"].(string)
			p.Text, _ = m["text"].(string)
			parts = append(parts, p)
		}
		if s, ok := partsText(parts); ok {
			return s
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// decodeMessages decodes gen_ai.input.messages / gen_ai.output.messages.
// Invalid JSON yields no messages.
func decodeMessages(s string) []Message {
	var raw []jsonMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil
	}
	out := make([]Message, 0, len(raw))
	for _, m := range raw {
		msg := Message{Role: m.Role, FinishReason: m.FinishReason}
		if len(m.Parts) > 0 {
			msg.Content, _ = partsText(m.Parts)
		} else {
			msg.Content = anyText(m.Content)
		}
		out = append(out, msg)
	}
	return out
}

// decodeSystemInstructions returns the text of gen_ai.system_instructions:
// a JSON array of parts, or plain text.
func decodeSystemInstructions(s string) string {
	if len(s) > 0 && s[0] == '[' {
		var parts []jsonPart
		if json.Unmarshal([]byte(s), &parts) == nil {
			t, _ := partsText(parts)
			return t
		}
	}
	return s
}

// intValue reads a token count stored as an int, a double or a string.
func intValue(v pcommon.Value) (int64, bool) {
	switch v.Type() {
	case pcommon.ValueTypeInt:
		return v.Int(), true
	case pcommon.ValueTypeDouble:
		d := v.Double()
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return 0, false
		}
		return int64(d), true
	case pcommon.ValueTypeStr:
		n, err := strconv.ParseInt(strings.TrimSpace(v.Str()), 10, 64)
		return n, err == nil
	}
	return 0, false
}
