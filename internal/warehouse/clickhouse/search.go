package clickhouse

import "github.com/evalcol/evalcol/internal/warehouse/sqlfilter"

// searchCond is the condition of one full-text search term
// (SpanQuery.Text): the term occurs, case-insensitively, in a message
// content of the span's prompts or completions (the keys named *.content),
// or in its input or output: the text warehouse.SearchText makes, as the
// columns hold it. ClickHouse 18.16 has no skip indexes (ngrambf_v1 and
// tokenbf_v1 came with 19.x), so the read scans these columns of the
// range's granules; the primary key (environment, timestamp) bounds it.
const searchCond = `(arrayExists((k, v) -> endsWith(k, '.content') AND positionCaseInsensitiveUTF8(v, ?) > 0, prompt_keys, prompt_values)
	OR arrayExists((k, v) -> endsWith(k, '.content') AND positionCaseInsensitiveUTF8(v, ?) > 0, completion_keys, completion_values)
	OR positionCaseInsensitiveUTF8(input, ?) > 0 OR positionCaseInsensitiveUTF8(output, ?) > 0)`

// addSearch adds to w the conditions of terms: every term must occur.
func addSearch(w *sqlfilter.Where, terms []string) {
	for _, t := range terms {
		w.Add(searchCond, t, t, t, t)
	}
}
