package clickhouse

import (
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlfilter"
)

// searchCond is the condition of one full-text search term
// (SpanQuery.Text): warehouse.SearchPattern matches the lower-cased text
// of a message content of the span's prompts or completions (the keys
// named *.content), or of its input or output: the text
// warehouse.SearchText makes, as the columns hold it. The regular
// expression runs only on the texts that hold the term's longest word
// (positionCaseInsensitiveUTF8, a necessary condition, ~3× cheaper than
// lowerUTF8 and match() over every text; 18.16 evaluates both sides of
// AND and if() on every row, so the filter is arrayFilter's). 18.16's
// match() ignores (?i) where it finds a required substring: hence
// lowerUTF8. ClickHouse 18.16 has no skip indexes (ngrambf_v1 and
// tokenbf_v1 came with 19.x), so the read scans these columns of the
// range's granules; the primary key (environment, timestamp) bounds it.
const searchCond = `arrayExists(x -> match(lowerUTF8(x), ?), arrayFilter(x -> positionCaseInsensitiveUTF8(x, ?) > 0,
	arrayConcat(arrayFilter((v, k) -> endsWith(k, '.content'), prompt_values, prompt_keys),
		arrayFilter((v, k) -> endsWith(k, '.content'), completion_values, completion_keys), [input, output])))`

// addSearch adds to w the conditions of terms: every term must occur.
func addSearch(w *sqlfilter.Where, terms []string) {
	for _, t := range terms {
		w.Add(searchCond, warehouse.SearchPattern(t), warehouse.SearchNeedle(t))
	}
}
