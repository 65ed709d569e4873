-- +goose Up
-- Each prompt and completion text is stored once, in span_attributes.
-- For a span whose content was derived from its attributes (as the
-- exporter writes them), prompts and completions hold '' and are derived
-- again at read (internal/genai), and input / output hold '' while
-- input_key / output_key name the span attribute that holds the text
-- verbatim; the text stays in input / output only when no attribute holds
-- it (e.g. a text taken out of gen_ai.input.messages JSON), for filters.
-- Other spans, and the rows of earlier versions, keep their content in
-- these columns as before (input_key and output_key empty) and read back
-- unchanged.
ALTER TABLE spans ADD COLUMN input_key TEXT NOT NULL DEFAULT '';
ALTER TABLE spans ADD COLUMN output_key TEXT NOT NULL DEFAULT '';
