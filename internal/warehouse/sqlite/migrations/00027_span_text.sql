-- +goose Up
-- Full-text search in prompts and completions (SpanQuery.Text, the `q`
-- parameter): a contentless FTS5 index (the text stays where it is, in the
-- span's attributes or content columns; the index holds only words and
-- their positions) with the unicode61 tokenizer (case-insensitive,
-- diacritics kept, as warehouse.SearchPattern reads them): a term is a
-- phrase whose last word is a prefix. rowid = spans.seq. The
-- writer adds each span's warehouse.SearchText in its transaction; the
-- retention deletes with the span (contentless_delete).
CREATE VIRTUAL TABLE span_text USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
-- The spans stored before: their message contents (the attributes named
-- *.content of spans whose content is derived from them, else the stored
-- prompts and completions) and their input and output.
INSERT INTO span_text (rowid, text)
SELECT seq, t FROM (SELECT seq, concat_ws(char(10),
	(SELECT group_concat(value, char(10)) FROM json_each(CASE prompts WHEN '' THEN span_attributes ELSE '{}' END)
		WHERE key LIKE '%.content'),
	(SELECT group_concat(value, char(10)) FROM json_each(CASE prompts WHEN '' THEN '{}' ELSE prompts END)
		WHERE key LIKE '%.content'),
	(SELECT group_concat(value, char(10)) FROM json_each(CASE prompts WHEN '' THEN '{}' ELSE completions END)
		WHERE key LIKE '%.content'),
	CASE input_key WHEN '' THEN input ELSE json_extract(span_attributes, '$."' || input_key || '"') END,
	CASE output_key WHEN '' THEN output ELSE json_extract(span_attributes, '$."' || output_key || '"') END) AS t
	FROM spans) WHERE t != '';
