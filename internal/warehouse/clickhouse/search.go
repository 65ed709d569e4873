package clickhouse

import (
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// searchCond is the condition of one full-text search term
// (SpanQuery.Text): warehouse.SearchPattern matches the lower-cased text
// of a message content of the span's prompts or completions (the keys
// named *.content), or of its input or output: the text
// warehouse.SearchText makes, as the columns hold it. (18.16's match()
// ignores (?i) where it finds a required substring: hence lowerUTF8.)
// ClickHouse 18.16 has no skip indexes (ngrambf_v1 and tokenbf_v1 came
// with 19.x), so the read scans these columns of the range's granules;
// the primary key (environment, timestamp) bounds it.
const searchCond = `(arrayExists((k, v) -> endsWith(k, '.content') AND match(lowerUTF8(v), ?), prompt_keys, prompt_values)
	OR arrayExists((k, v) -> endsWith(k, '.content') AND match(lowerUTF8(v), ?), completion_keys, completion_values)
	OR match(lowerUTF8(input), ?) OR match(lowerUTF8(output), ?))`

// addSearch adds to w the conditions of terms: every term must occur.
func addSearch(w *sqlfilter.Where, terms []string) {
	for _, t := range terms {
		re := warehouse.SearchPattern(t)
		w.Add(searchCond, re, re, re, re)
	}
}
