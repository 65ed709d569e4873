package storetest

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/evalcol/evalcol/internal/spanconv"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// contentCase is a span in one of the content conventions internal/genai
// reads, with its attributes as an instrumentation sends them (typed).
type contentCase struct {
	id    string
	attrs map[string]any
}

// contentCases cover every convention internal/genai reads, texts that
// appear verbatim in an attribute and texts that do not (taken out of JSON
// messages, joined from parts), typed values, and text JSON escapes.
func contentCases() []contentCase {
	long := strings.Repeat("A prompt of some length, with \"quotes\", <html> & a\nnew line. ", 20)
	return []contentCase{
		{"legacy", map[string]any{
			"llm.request.type": "chat", "llm.vendor": "openai", "llm.request.model": "gpt-4o",
			"llm.prompts.0.role": "system", "llm.prompts.0.content": "You are terse.",
			"llm.prompts.1.role": "user", "llm.prompts.1.content": long,
			"llm.completions.0.role": "assistant", "llm.completions.0.content": "Paris.", "llm.completions.0.finish_reason": "stop",
			"llm.usage.total_tokens": int64(27), "traceloop.workflow.name": "qa",
		}},
		{"genai-indexed", map[string]any{
			"gen_ai.operation.name": "chat", "gen_ai.system": "anthropic",
			"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Bonjour, ça va ? 🚀",
			"gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Très bien.",
			"gen_ai.response.finish_reasons": []any{"end_turn"},
		}},
		{"genai-messages-json", map[string]any{
			"gen_ai.operation.name":      "chat",
			"gen_ai.system_instructions": `[{"type":"text","text":"Be brief."}]`,
			"gen_ai.input.messages": `[{"role":"user","parts":[{"type":"text","text":"Line one\nline \"two\""}]},` +
				`{"role":"assistant","parts":[{"type":"text","text":"ok"}]},{"role":"user","parts":[{"type":"text","text":"and?"}]}]`,
			"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","text":"Done <b>"}],"finish_reason":"stop"}]`,
		}},
		{"openinference", map[string]any{
			"openinference.span.kind":           "LLM",
			"llm.model_name":                    "gpt-4o-mini",
			"llm.input_messages.0.message.role": "user",
			"llm.input_messages.0.message.contents.1.message_content.text":   "second part",
			"llm.input_messages.0.message.contents.0.message_content.text":   "first part",
			"llm.input_messages.0.message.contents.2.message_content.type":   "image",
			"llm.output_messages.0.message.role":                             "assistant",
			"llm.output_messages.0.message.content":                          "It is a cat.",
			"input.value":                                                    `{"question": "what?"}`,
			"output.value":                                                   "It is a cat.",
			"llm.output_messages.0.message.contents.0.message_content.image": "x",
		}},
		{"openinference-values-only", map[string]any{
			"openinference.span.kind": "CHAIN", "input.value": "plain question", "output.value": "plain answer",
		}},
		{"traceloop-entity", map[string]any{
			"traceloop.span.kind": "task", "traceloop.entity.name": "summarise",
			"traceloop.entity.input":  `{"args": ["a long document"], "kwargs": {}}`,
			"traceloop.entity.output": `"a summary"`,
			"llm.prompts.0.role":      "user", "llm.prompts.0.content": "summarise it",
		}},
		{"typed-parts", map[string]any{
			"llm.prompts.0.role":        "user",
			"llm.prompts.0.content":     []any{map[string]any{"type": "text", "text": "Describe"}, map[string]any{"type": "image_url"}},
			"llm.completions.0.content": "A cat.",
		}},
		{"same-text-twice", map[string]any{
			"llm.prompts.0.role": "user", "llm.prompts.0.content": "echo", "b.copy": "echo", "a.copy": "echo",
			"llm.completions.0.content": "echo",
		}},
		{"no-content", map[string]any{"http.method": "GET", "http.route": "/users/{id}"}},
	}
}

// convert turns a content case into the warehouse span the exporter
// stores: internal/spanconv, the exporter's own conversion.
func convert(t *testing.T, env string, i int, c contentCase) warehouse.Span {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "content-svc")
	sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	var tid pcommon.TraceID
	var sid pcommon.SpanID
	binary.BigEndian.PutUint64(tid[8:], uint64(i)+1)
	binary.BigEndian.PutUint64(sid[:], uint64(i)+1)
	sp.SetTraceID(tid)
	sp.SetSpanID(sid)
	sp.SetName(c.id)
	start := pcommon.Timestamp((base + int64(i)) * 1e6)
	sp.SetStartTimestamp(start)
	sp.SetEndTimestamp(start + 1e6)
	if err := sp.Attributes().FromRaw(c.attrs); err != nil {
		t.Fatalf("%s: %v", c.id, err)
	}
	b := spanconv.Traces(td, spanconv.Options{Environment: env})
	if len(b.Spans) != 1 {
		t.Fatalf("%s: converted to %d spans", c.id, len(b.Spans))
	}
	return b.Spans[0]
}

// testSpanContent: spans the exporter converted, in every content
// convention, come back with the prompts, completions, input and output
// the exporter derived, to the byte of their API JSON; and filters on
// input and output select what they select on those values.
func testSpanContent(t *testing.T, open Opener) {
	st := openStore(t, open)
	cases := contentCases()
	written := make([]warehouse.Span, len(cases))
	for i, c := range cases {
		written[i] = convert(t, "content", i, c)
	}
	writeSpans(t, st, written...)
	got := allPages(t, st, warehouse.SpanQuery{Environments: []string{"content"}, FromMs: base})
	if len(got) != len(cases) {
		t.Fatalf("read back %d spans, want %d", len(got), len(cases))
	}
	for i, c := range cases {
		// Every field in JSON: the strings byte for byte as the API
		// encodes them (it shows a projection of these fields).
		want, err := json.Marshal(contentView(normalizeSpan(written[i])))
		if err != nil {
			t.Fatal(err)
		}
		have, err := json.Marshal(contentView(got[i]))
		if err != nil {
			t.Fatal(err)
		}
		if string(have) != string(want) {
			t.Errorf("%s: read back as\n%s\nwant the JSON of the span as written\n%s", c.id, have, want)
		}
	}

	byID := map[string]warehouse.Span{}
	for _, sp := range written {
		byID[sp.SpanName] = sp
	}
	for _, tc := range []struct {
		field string
		op    warehouse.Operator
		value string
		match func(text string) bool
	}{
		{"input", warehouse.OpEquals, byID["legacy"].Input, nil},
		{"input", warehouse.OpEquals, "Line one\nline \"two\"", nil},
		{"input", warehouse.OpContains, "part", nil},
		{"input", warehouse.OpContains, "\"quotes\", <html>", nil},
		{"input", warehouse.OpStartsWith, "Bonjour, ça", nil},
		{"input", warehouse.OpNotEquals, "echo", nil},
		{"input", warehouse.OpExists, "", nil},
		{"input", warehouse.OpNotExists, "", nil},
		{"output", warehouse.OpEquals, "a summary", nil},
		{"output", warehouse.OpEquals, `"a summary"`, nil},
		{"output", warehouse.OpContains, "cat", nil},
		{"output", warehouse.OpContains, "<b>", nil},
		{"output", warehouse.OpExists, "", nil},
		{"output", warehouse.OpNotExists, "", nil},
		{"output", warehouse.OpIn, "Paris.", nil},
	} {
		f := warehouse.Filter{Field: tc.field, Operator: tc.op, Value: tc.value}
		if tc.op == warehouse.OpIn {
			f.Values, f.Value = []string{tc.value, "Très bien."}, ""
		}
		var want []string
		for _, sp := range written {
			text := sp.Input
			if tc.field == "output" {
				text = sp.Output
			}
			if filterMatches(f, text) {
				want = append(want, sp.SpanID)
			}
		}
		have := ids(allPages(t, st, warehouse.SpanQuery{Environments: []string{"content"}, FromMs: base, Filters: []warehouse.Filter{f}}))
		if !slices.Equal(have, want) && (len(have) > 0 || len(want) > 0) {
			t.Errorf("%s %s %q: got %v, want %v", tc.field, tc.op, tc.value, have, want)
		}
	}

	// Texts in invalid UTF-8 read back as the same JSON values (a store
	// may keep attributes as valid UTF-8, with U+FFFD for the bad bytes,
	// which JSON then writes as the character or as its \ufffd escape).
	bad := convert(t, "content-bad", 0, contentCase{"invalid-utf8", map[string]any{
		"llm.prompts.0.role": "user", "llm.prompts.0.content": "bad \xff byte", "llm.completions.0.content": "ok \xc3"}})
	writeSpans(t, st, bad)
	back := allPages(t, st, warehouse.SpanQuery{Environments: []string{"content-bad"}, FromMs: base})
	if len(back) != 1 {
		t.Fatalf("invalid UTF-8 span: read back %d spans", len(back))
	}
	if have, want := jsonValue(t, contentView(back[0])), jsonValue(t, contentView(normalizeSpan(bad))); have != want {
		t.Errorf("invalid UTF-8 span read back as\n%s\nwant\n%s", have, want)
	}
}

// contentView is sp without its storage hints (DerivedContent, Prepared),
// which a store need not keep.
func contentView(sp warehouse.Span) warehouse.Span {
	sp.DerivedContent, sp.Prepared = false, nil
	return sp
}

// jsonValue is v's JSON, decoded and encoded again: equal for JSON texts
// of equal values.
func jsonValue(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	b, err = json.Marshal(decoded)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// filterMatches is the meaning of the text operators on a text column
// (see package sqlfilter): exists means not empty.
func filterMatches(f warehouse.Filter, text string) bool {
	switch f.Operator {
	case warehouse.OpEquals:
		return text == f.Value
	case warehouse.OpNotEquals:
		return text != f.Value
	case warehouse.OpContains:
		return strings.Contains(text, f.Value)
	case warehouse.OpStartsWith:
		return strings.HasPrefix(text, f.Value)
	case warehouse.OpExists:
		return text != ""
	case warehouse.OpNotExists:
		return text == ""
	case warehouse.OpIn:
		return slices.Contains(f.Values, text)
	}
	panic("operator not covered: " + string(f.Operator))
}
