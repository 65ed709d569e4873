package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// TestContentStoredOnce: a span whose content is derived from its
// attributes (as the exporter writes it) keeps each prompt and completion
// text once, in span_attributes; prompts and completions are derived at
// read and input / output refer to the attributes that hold them. A span
// written with other content keeps it as written.
func TestContentStoredOnce(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	defer st.Close()
	prompt, completion := strings.Repeat("p", 1024), strings.Repeat("c", 1024)
	attrs := map[string]string{"llm.prompts.0.role": "user", "llm.prompts.0.content": prompt,
		"llm.completions.0.role": "assistant", "llm.completions.0.content": completion}
	derived := warehouse.Span{Environment: "e", TraceID: "t", SpanID: "derived", Timestamp: 1000, SpanAttributes: attrs}
	warehouse.DeriveContent(&derived)
	given := warehouse.Span{Environment: "e", TraceID: "t", SpanID: "given", Timestamp: 1001, SpanAttributes: attrs,
		Prompts: map[string]string{"0.content": "other"}, Input: "other input", Output: "other output"}
	if err := st.WriteSpans(ctx, []warehouse.Span{derived, given}); err != nil {
		t.Fatal(err)
	}

	var prompts, completions, input, inputKey, output, outputKey string
	var rowBytes int
	err := st.reader.QueryRowContext(ctx, `SELECT prompts, completions, input, input_key, output, output_key,
		length(CAST(span_attributes AS BLOB)) + length(CAST(prompts AS BLOB)) + length(CAST(completions AS BLOB)) +
		length(CAST(input AS BLOB)) + length(CAST(output AS BLOB))
		FROM spans WHERE span_id = 'derived'`).Scan(&prompts, &completions, &input, &inputKey, &output, &outputKey, &rowBytes)
	if err != nil {
		t.Fatal(err)
	}
	if prompts != "" || completions != "" || input != "" || output != "" ||
		inputKey != "llm.prompts.0.content" || outputKey != "llm.completions.0.content" {
		t.Errorf("stored prompts %q, completions %q, input %q (key %q), output %q (key %q); want only the keys",
			prompts, completions, input, inputKey, output, outputKey)
	}
	if rowBytes > 2048+200 {
		t.Errorf("the text columns of a span with 2 KB of text hold %d bytes, want each text once", rowBytes)
	}

	page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}})
	if err != nil || len(page.Spans) != 2 {
		t.Fatalf("read back: %d spans, %v", len(page.Spans), err)
	}
	got := page.Spans[0]
	if got.Input != prompt || got.Output != completion || got.Prompts["llm.prompts.0.content"] != prompt ||
		got.Completions["llm.completions.0.role"] != "assistant" || !got.DerivedContent {
		t.Errorf("derived span read back with input %.20q, output %.20q, prompts %d, completions %v", got.Input, got.Output, len(got.Prompts), got.Completions)
	}
	if g := page.Spans[1]; g.Input != "other input" || g.Output != "other output" || g.Prompts["0.content"] != "other" || g.DerivedContent {
		t.Errorf("span with given content read back as %+v", g)
	}
	// Filters on input and output see the referenced texts.
	for _, f := range []warehouse.Filter{
		{Field: "input", Operator: warehouse.OpEquals, Value: prompt},
		{Field: "output", Operator: warehouse.OpStartsWith, Value: "ccc"},
		{Field: "input", Operator: warehouse.OpContains, Value: "pp"},
	} {
		page, err := st.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{"e"}, Filters: []warehouse.Filter{f}})
		if err != nil || len(page.Spans) != 1 || page.Spans[0].SpanID != "derived" {
			t.Errorf("%s %s: %d spans, %v; want the derived span", f.Field, f.Operator, len(page.Spans), err)
		}
	}
}
