// Package judge holds the lexical and word-vector measures that the
// offline stand-ins for Traceloop's LLM-judged evaluators share (agent
// goals, flows, topics, context and answer completeness): soft coverage
// of one text's content words by another's, and the phrases of failed or
// refused work. It builds on textsim and wordvec and changes neither.
package judge

import (
	"math"
	"regexp"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
	"github.com/evalcol/evalcol/evaluators/internal/wordvec"
)

// SoftFloor is the least GloVe cosine for which a word of one text counts
// as partly found in the other (by that cosine): "purchase" for "buy".
// It is answer-relevancy's floor (textsim.AnswerRelevance).
const SoftFloor = 0.7

// SoftCoverage is the weighted share (textsim.Weight: IDF, names and
// numbers 1.5) of the content tokens of a found in b: a token whose key
// is in b counts 1, another counts the cosine of its word vector with the
// closest content word of b when that is at least SoftFloor, else 0.
// total is the weight of a's content tokens (0: share is 0).
func SoftCoverage(a, b []textsim.Token) (share, total float64) {
	bSet := textsim.NewKeySet(b)
	tab := wordvec.Default()
	var bIDs []int
	seenIDs := map[int]bool{}
	for _, t := range b {
		if t.Content() && !t.Number {
			if id := tab.ID(t.Lower); id >= 0 && !seenIDs[id] {
				seenIDs[id] = true
				bIDs = append(bIDs, id)
			}
		}
	}
	acronyms := initials(b)
	var got float64
	seen := map[string]bool{}
	for _, t := range a {
		w := textsim.Weight(t)
		if w == 0 || seen[t.Key] {
			continue
		}
		seen[t.Key] = true
		total += w
		if bSet.Has(t.Key) || bSet.Has(t.Lower) || acronyms[t.Text] || (len(t.Text) >= 3 && acronyms[t.Text[:len(t.Text)-1]]) {
			got += w
			continue
		}
		if t.Number {
			continue
		}
		id := tab.ID(t.Lower)
		if id < 0 {
			continue
		}
		best := float32(0)
		for _, j := range bIDs {
			if c := tab.Cosine(id, j); c > best {
				best = c
			}
		}
		if float64(best) >= SoftFloor {
			got += w * float64(best)
		}
	}
	if total == 0 {
		return 0, 0
	}
	return got / total, total
}

// initials returns the initials of every run of 2 to 5 consecutive
// capitalised words of toks ("New York" gives "NY"), so that an acronym
// of the other text ("NY", or "NYC" with its last letter, often "City",
// left out) counts as found.
func initials(toks []textsim.Token) map[string]bool {
	out := map[string]bool{}
	for i := range toks {
		var b []byte
		for j := i; j < len(toks) && j < i+5; j++ {
			t := toks[j]
			if !t.Capital || t.Number || t.Text == "" || (j > i && toks[j-1].End+1 < t.Start) {
				break
			}
			b = append(b, t.Text[0])
			if len(b) >= 2 {
				out[string(b)] = true
			}
		}
	}
	return out
}

// Cosine is the cosine of the sentence vectors of a and b
// (textsim.EmbeddingCosine), 0 when either has no vector, never below 0.
func Cosine(a, b []textsim.Token) float64 {
	c, ok := textsim.EmbeddingCosine(a, b)
	if !ok {
		return 0
	}
	return math.Max(0, c)
}

// failure finds an agent's or assistant's report of work it did not do:
// apologies with a refusal, errors, failures, nothing found.
var failure = regexp.MustCompile(`(?i)\b(?:` +
	`(?:i|we)(?:'m| am| are)? (?:sorry,? (?:but )?)?(?:(?:was|were) )?(?:unable|not able) to|` +
	`(?:i|we) (?:could not|couldn't|cannot|can't|can not|did not|didn't|failed to|wasn't able to|won't be able to)\b|` +
	`(?:an? )?(?:error|exception) (?:occurred|was raised|happened)|` +
	`\b(?:failed|failure|error)\b[:!]|` +
	`(?:request|operation|booking|payment|search|call|action|task|step) (?:has |have )?failed|` +
	`no (?:results?|matches|records|data) (?:were |was )?(?:found|returned|available)|` +
	`not (?:found|available|possible|supported)|` +
	`something went wrong|timed out|permission denied|access denied` +
	`)`)

// Failure reports whether the text reports failed, refused or impossible
// work ("I was unable to", "the booking failed", "no results found",
// "an error occurred").
func Failure(s string) bool { return failure.MatchString(s) }

// EntitySwap reports whether the completion c gives another name or
// number in place of one of the reference r: a name-like token or a
// number of r that c lacks (by key, lower-case form or acronym: "NYC" is
// found in "New York City" and "New York"), while c holds a name or
// number that neither r nor the question q has ("Friday" for "Monday",
// "1898" for "1889"); the words of a name whose acronym r or q uses
// ("New York" for "NYC") are not another name.
func EntitySwap(c, r, q []textsim.Token) bool {
	cSet, rSet, qSet := textsim.NewKeySet(c), textsim.NewKeySet(r), textsim.NewKeySet(q)
	acr := initials(c)
	missing := false
	for _, t := range r {
		if !(t.Entity() || t.Number) {
			continue
		}
		if cSet.Has(t.Key) || cSet.Has(t.Lower) || acr[t.Text] || (len(t.Text) >= 3 && acr[t.Text[:len(t.Text)-1]]) {
			continue
		}
		missing = true
		break
	}
	if !missing {
		return false
	}
	known := map[string]bool{}
	for _, toks := range [][]textsim.Token{r, q} {
		for _, t := range toks {
			if len(t.Text) >= 2 && strings.ToUpper(t.Text) == t.Text && !t.Number {
				known[t.Text] = true
				if len(t.Text) >= 3 {
					known[t.Text[:len(t.Text)-1]] = true
				}
			}
		}
	}
	for i, t := range c {
		if !(t.Entity() || t.Number) || rSet.Has(t.Key) || rSet.Has(t.Lower) || qSet.Has(t.Key) || qSet.Has(t.Lower) {
			continue
		}
		if inAcronymRun(c, i, known) {
			continue
		}
		return true
	}
	return false
}

// inAcronymRun reports whether token i of toks belongs to a run of
// capitalised words whose initials are one of the acronyms.
func inAcronymRun(toks []textsim.Token, i int, acronyms map[string]bool) bool {
	for start := max(0, i-4); start <= i; start++ {
		var b []byte
		for j := start; j < len(toks) && j < start+5; j++ {
			t := toks[j]
			if !t.Capital || t.Number || t.Text == "" {
				break
			}
			b = append(b, t.Text[0])
			if j >= i && len(b) >= 2 && acronyms[string(b)] {
				return true
			}
		}
	}
	return false
}
