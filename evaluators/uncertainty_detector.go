package evaluators

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var uncertaintyDetector = Definition{
	Slug:        "uncertainty-detector",
	Category:    CategoryQuality,
	Description: "Measures how uncertain (hedged) a text is and extracts its main answer with the hedges stripped.",
	Inputs:      []Field{textInput("prompt", "Text", "The text (usually a completion) to analyse.")},
	Outputs: []Field{
		{Name: "answer", Type: TypeString, Label: "Answer", Description: "The text's main answer with hedging phrases removed."},
		scoreOutput("uncertainty", "Uncertainty", "0 (confident) to 1 (entirely hedged)."),
	},
	Side:    SideOutput,
	Score:   "uncertainty",
	PassDoc: "uncertainty < 0.5",
	run:     runUncertainty,
	pass:    func(r Result) bool { f, ok := r["uncertainty"].(float64); return ok && f < 0.5 },
}

// Weights of the uncertainty score.
const (
	// innerSentenceFactor scales the hedges of sentences other than the
	// first and the last: the answer and the closing caveat carry the
	// stance, the body carries detail.
	innerSentenceFactor = 0.75
	// questionHedge is the doubt of a sentence that ends with "?" (an
	// answer offered as a question: "Paris?").
	questionHedge = 0.4
)

// runUncertainty measures how hedged the text is, in the spirit of
// DeepEval-style uncertainty checks, with a weighted lexicon instead of a
// model:
//
//   - every sentence is scanned for the hedging phrases of
//     textsim.Hedges (lexicons/hedges.txt: "I don't know" and "I'm not
//     sure" weigh 1, "maybe", "perhaps", "probably", "I think" 0.6–0.7,
//     "could", "usually", "around" 0.4–0.5; the longest phrase wins);
//   - a sentence's doubt combines its hedges as independent evidence,
//     1 − Π(1 − weight), with 0.4 more the same way when it ends with "?";
//     sentences other than the first and the last count 0.75 of that;
//   - uncertainty = (mean over sentences + max over sentences) / 2, so one
//     strong hedge in a long text still shows, while the sentence count
//     normalises scattered weak ones.
//
// answer is the text with its hedging phrases cut out and the remains
// tidied: a dangling "but"/"and", doubled spaces and commas removed, the
// first letter capitalised, sentences left without a content word dropped
// ("I think the answer is probably Paris." → "The answer is Paris.";
// "Maybe it's Paris, but I'm not sure." → "It's Paris."). It is empty when
// the text is nothing but hedging.
func runUncertainty(_ context.Context, req Request) (Result, error) {
	answer, u := assessUncertainty(req.Text("prompt"))
	return Result{"answer": answer, "uncertainty": u}, nil
}

func assessUncertainty(text string) (answer string, uncertainty float64) {
	sents := textsim.Sentences(text)
	if len(sents) == 0 {
		return "", 0
	}
	hedges := textsim.Hedges()
	var sum, peak float64
	kept := make([]string, 0, len(sents))
	for i, s := range sents {
		toks := textsim.Tokenize(s)
		matches := hedges.Find(toks)
		certain := 1.0
		for _, m := range matches {
			certain *= 1 - m.Weight
		}
		if strings.HasSuffix(s, "?") {
			certain *= 1 - questionHedge
		}
		doubt := 1 - certain
		if i != 0 && i != len(sents)-1 {
			doubt *= innerSentenceFactor
		}
		sum += doubt
		peak = max(peak, doubt)
		if a := stripHedges(s, toks, matches); a != "" {
			kept = append(kept, a)
		}
	}
	return strings.Join(kept, " "), (sum/float64(len(sents)) + peak) / 2
}

// stripHedges returns sentence s without the hedging phrases matched in its
// tokens, tidied, or "" when no content word is left.
func stripHedges(s string, toks []textsim.Token, matches []textsim.PhraseMatch) string {
	if len(matches) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, m := range matches {
		b.WriteString(s[at:toks[m.First].Start])
		at = toks[m.Last].End
	}
	b.WriteString(s[at:])
	out := tidy(b.String())
	for _, t := range textsim.Tokenize(out) {
		if t.Content() {
			if r, _ := utf8.DecodeRuneInString(s); unicode.IsUpper(r) {
				out = capitalizeFirst(out)
			}
			return out
		}
	}
	return ""
}

// danglingWords are left over at the edges of a sentence whose hedge was
// cut ("it's Paris, but ." → "it's Paris.").
var danglingWords = []string{"but", "and", "or", "so", "that", "though", "although", "yet"}

// tidy collapses spaces, removes spaces before punctuation, doubled and
// leading commas, and dangling conjunctions at either end.
func tidy(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range []string{",", ".", "!", "?", ";", ":"} {
		s = strings.ReplaceAll(s, " "+p, p)
	}
	for strings.Contains(s, ",,") {
		s = strings.ReplaceAll(s, ",,", ",")
	}
	end := ""
	if n := len(s); n > 0 && strings.ContainsRune(".!?", rune(s[n-1])) {
		s, end = s[:n-1], s[n-1:]
	}
	for changed := true; changed; {
		changed = false
		s = strings.Trim(s, " ,;:")
		lower := strings.ToLower(s)
		for _, w := range danglingWords {
			switch {
			case lower == w:
				s, changed = "", true
			case strings.HasPrefix(lower, w+" ") || strings.HasPrefix(lower, w+","):
				s, changed = s[len(w):], true
			case strings.HasSuffix(lower, " "+w) || strings.HasSuffix(lower, ","+w):
				s, changed = s[:len(s)-len(w)], true
			}
			if changed {
				break
			}
		}
	}
	if s == "" {
		return ""
	}
	return s + end
}

func capitalizeFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
