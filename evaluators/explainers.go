package evaluators

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/evalcol/evalcol/evaluators/internal/injection"
	"github.com/evalcol/evalcol/evaluators/internal/profanity"
	"github.com/evalcol/evalcol/evaluators/internal/secrets"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// The explainers of the evaluators other than pii-detector (beside its
// definition). Detectors explain a failure and return nil on a pass;
// scores explain themselves always, by their parts.

// explainSecrets names the rule of each secret found and shows it masked.
func explainSecrets(_ context.Context, req Request, res Result) *Explanation {
	if has, _ := res["has_secret"].(bool); !has {
		return nil
	}
	text := req.Text("text")
	found, err := secrets.Scan(text)
	if err != nil {
		return nil
	}
	var fs []Finding
	seen := map[[2]int]bool{}
	for _, f := range found {
		fd := Finding{Kind: f.Rule, Input: "text", Start: f.Start, End: f.End, Source: "secrets-detector", Masked: true}
		if f.Start >= 0 && f.End <= len(text) {
			if seen[[2]int{f.Start, f.End}] {
				continue
			}
			seen[[2]int{f.Start, f.End}] = true
			fd.Text = maskSecret(text[f.Start:f.End])
		}
		fs = append(fs, fd)
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
	return &Explanation{Summary: kindsSummary("Secret found", fs), Findings: fs}
}

// explainRegex shows where the pattern matched, or says it matched
// nowhere; field names the input that holds the pattern or the config.
func explainRegex(field string) func(context.Context, Request, Result) *Explanation {
	return func(_ context.Context, req Request, res Result) *Explanation {
		pattern := req.Text("placeholder_value")
		if field == "config.regex" {
			pattern = req.String("regex")
		}
		re, err := compileRegex(req, pattern)
		if err != nil {
			return nil
		}
		text := req.Text("text")
		start, end, err := re.SearchIndex(text)
		if err != nil {
			return nil
		}
		shouldMatch := req.Bool("should_match")
		if start < 0 {
			return &Explanation{Summary: fmt.Sprintf("The pattern matches nowhere in the text (should_match is %t).", shouldMatch)}
		}
		return &Explanation{
			Summary:  fmt.Sprintf("The pattern matches at byte %d (should_match is %t).", start, shouldMatch),
			Findings: []Finding{{Kind: "match", Input: "text", Start: start, End: end, Text: clip(text, start, end), Source: field}},
		}
	}
}

// explainToxicity names the rule category that fired, if one did, and the
// words whose removal lowers the toxicity most.
func explainToxicity(ctx context.Context, req Request, res Result) *Explanation {
	if res["is_safe"] != UnsafeLabel {
		return nil
	}
	text := req.Text("text")
	p, err := toxicityProbability(text)
	if err != nil || p <= req.Float("threshold") {
		return nil // not the result being explained
	}
	e := &Explanation{Summary: fmt.Sprintf("Toxicity %.2f > threshold %.2f", p, req.Float("threshold"))}
	if c := toxicityRuleCategory(text); c != "" {
		e.Summary += "; rule: " + c
	}
	score := func(s string) float64 { q, _ := toxicityProbability(s); return q }
	e.Findings = weightiestParts(text, "text", &scorer{score, explainBudget(ctx)}, p, req.Float("threshold"), "toxicity-detector")
	return e
}

// explainSexism lists the words whose removal lowers the sexism
// probability most.
func explainSexism(ctx context.Context, req Request, res Result) *Explanation {
	if res["is_safe"] != UnsafeLabel {
		return nil
	}
	m, err := sexismModel()
	if err != nil {
		return nil
	}
	text := req.Text("text")
	p := m.Probability(text)
	if p <= req.Float("threshold") {
		return nil // not the result being explained
	}
	return &Explanation{
		Summary:  fmt.Sprintf("Sexism %.2f > threshold %.2f", p, req.Float("threshold")),
		Findings: weightiestParts(text, "text", &scorer{m.Probability, explainBudget(ctx)}, p, req.Float("threshold"), "sexism-detector"),
	}
}

// explainInjection names the strongest rule that matched, the model's
// share, and the words whose removal lowers the probability most.
func explainInjection(ctx context.Context, req Request, res Result) *Explanation {
	if res["has_injection"] != UnsafeLabel {
		return nil
	}
	det, err := injection.Default()
	if err != nil {
		return nil
	}
	text := req.Text("prompt")
	sc := det.Score(text)
	if sc.Probability <= req.Float("threshold") {
		return nil // not the result being explained
	}
	e := &Explanation{
		Summary: fmt.Sprintf("Injection %.2f > threshold %.2f", sc.Probability, req.Float("threshold")),
		Parts:   map[string]float64{"model": sc.Model, "rule": sc.Rule.Score},
	}
	if sc.Rule.Rule != "" {
		e.Summary += "; rule: " + sc.Rule.Rule
	}
	score := func(s string) float64 { return det.Score(s).Probability }
	e.Findings = weightiestParts(text, "prompt", &scorer{score, explainBudget(ctx)}, sc.Probability, req.Float("threshold"), "prompt-injection")
	return e
}

// explainProfanity lists the words that are profane on their own.
func explainProfanity(_ context.Context, req Request, res Result) *Explanation {
	if has, _ := res["has_profanity"].(bool); !has {
		return nil
	}
	d, err := profanity.Default()
	if err != nil {
		return nil
	}
	text := req.Text("text")
	var fs []Finding
	for _, w := range words(text) {
		if d.HasProfanity(text[w[0]:w[1]]) {
			fs = append(fs, Finding{Kind: "profanity", Input: "text", Start: w[0], End: w[1], Text: text[w[0]:w[1]], Source: "profanity lexicon and model"})
		}
	}
	summary := "Profanity found"
	if len(fs) == 0 {
		summary = "Profanity found in the text as a whole (no single word is profane on its own: a spaced-out or split spelling)"
	}
	return &Explanation{Summary: summary, Findings: fs}
}

// explainSimilarity gives the parts of the similarity score.
func explainSimilarity(_ context.Context, req Request, _ Result) *Explanation {
	a, b := req.Text("completion"), req.Text("reference")
	if strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b)) {
		return &Explanation{Summary: "The texts are equal (up to case and surrounding space): 1."}
	}
	p := textsim.SimilarityPartsOf(a, b, textsim.Tokenize(a), textsim.Tokenize(b))
	parts := map[string]float64{"word_cosine": p.SemanticCosine, "char_trigram_cosine": p.Trigram, "word_order": p.Order}
	summary := fmt.Sprintf("Similarity %.2f from word overlap %.2f, character trigrams %.2f and word order %.2f", p.Score(), p.SemanticCosine, p.Trigram, p.Order)
	if p.HasEmbedding {
		parts["word_vector_cosine"] = p.Embedding
		summary += fmt.Sprintf(", word vectors %.2f", p.Embedding)
	}
	if p.NegationMismatch {
		parts["negation_mismatch"] = 1
		summary += "; one text is negated and the other is not (×0.8)"
	}
	return &Explanation{Summary: summary, Parts: parts}
}

// explainRelevancy gives the parts of the relevance probability.
func explainRelevancy(_ context.Context, req Request, _ Result) *Explanation {
	p := textsim.AnswerRelevanceParts(req.Text("question"), req.Text("answer"))
	if p.EmptyAnswer {
		return &Explanation{Summary: "The answer is empty."}
	}
	return &Explanation{
		Summary: fmt.Sprintf("Relevance %.2f from the question's words found in the answer %.2f (%.2f counting close words), the kind of answer asked for %.0f and word vectors %.2f",
			p.Probability(), p.Coverage, p.SoftCoverage, p.AnswerType, p.Embedding),
		Parts: map[string]float64{"probability": p.Probability(), "coverage": p.Coverage, "soft_coverage": p.SoftCoverage, "answer_type": p.AnswerType, "word_vector_cosine": p.Embedding},
	}
}

// Occlusion: the words whose removal lowers a classifier's probability
// most are the ones that weighed most. Long texts are narrowed to the
// sentence whose removal lowers it most first, so that an explanation
// costs at most maxOcclusions scorings.
const (
	maxOcclusions   = 120
	maxWeightyWords = 5
	// minWordDrop is the least drop a word must cause to be named.
	minWordDrop = 0.02
)

// weightiestParts returns what made score(text) exceed threshold: the
// clauses that exceed it on their own, each with its weightiest words
// (when several clauses each suffice, no single word's removal lowers the
// score of the whole: "You are an idiot and I will hurt you"), else the
// weightiest words of the whole text.
func weightiestParts(text, input string, sc *scorer, base, threshold float64, source string) []Finding {
	var fs []Finding
	cs := clauses(text)
	for i, c := range cs {
		if len(cs) == 1 || i == maxOcclusions/2 || len(fs) == maxWeightyWords {
			break
		}
		p, ok := sc.try(text[c[0]:c[1]])
		if !ok {
			break
		}
		if p > threshold {
			f := Finding{Kind: "clause", Input: input, Start: c[0], End: c[1], Text: clip(text, c[0], c[1]), Score: p, Source: source}
			fs = append(fs, f)
		}
	}
	if len(fs) <= 1 {
		return weightiestWords(text, input, sc, base, source)
	}
	var out []Finding
	for _, f := range fs {
		out = append(out, f)
		for _, w := range weightiestWords(text[f.Start:f.End], input, sc, f.Score, source) {
			w.Start += f.Start
			w.End += f.Start
			out = append(out, w)
		}
	}
	return out
}

// clauses returns the [start, end) byte offsets of the clauses of text:
// runs split at sentence punctuation, commas, semicolons, line breaks and
// the conjunctions "and", "but" and "or", surrounding space left out.
func clauses(text string) [][2]int {
	var out [][2]int
	add := func(a, b int) {
		for a < b && (text[a] == ' ' || text[a] == '\t') {
			a++
		}
		for b > a && (text[b-1] == ' ' || text[b-1] == '\t') {
			b--
		}
		if b > a {
			out = append(out, [2]int{a, b})
		}
	}
	start := 0
	ws := words(text)
	cut := map[int]int{} // word start -> word end, for the conjunctions
	for _, w := range ws {
		switch strings.ToLower(text[w[0]:w[1]]) {
		case "and", "but", "or":
			cut[w[0]] = w[1]
		}
	}
	for i := 0; i < len(text); i++ {
		if end, ok := cut[i]; ok {
			add(start, i)
			start, i = end, end-1
			continue
		}
		switch text[i] {
		case '.', '!', '?', ',', ';', '\n':
			add(start, i)
			start = i + 1
		}
	}
	add(start, len(text))
	return out
}

// weightiestWords returns up to maxWeightyWords words of text whose
// removal lowers score(text) = base by at least minWordDrop, largest drop
// first.
func weightiestWords(text, input string, sc *scorer, base float64, source string) []Finding {
	spans := words(text)
	if len(spans) > maxOcclusions/2 {
		best, bestDrop := [2]int{0, len(text)}, -1.0
		sents := sentences(text)
		for i, s := range sents {
			if i == maxOcclusions/2 {
				break
			}
			p, ok := sc.try(text[:s[0]] + text[s[1]:])
			if !ok {
				break
			}
			if d := base - p; d > bestDrop {
				best, bestDrop = s, d
			}
		}
		var inside [][2]int
		for _, w := range spans {
			if w[0] >= best[0] && w[1] <= best[1] {
				inside = append(inside, w)
			}
		}
		spans = inside
	}
	if len(spans) > maxOcclusions/2 {
		spans = spans[:maxOcclusions/2]
	}
	type drop struct {
		w [2]int
		d float64
	}
	var drops []drop
	for _, w := range spans {
		p, ok := sc.try(text[:w[0]] + text[w[1]:])
		if !ok {
			break
		}
		if d := base - p; d >= minWordDrop {
			drops = append(drops, drop{w, d})
		}
	}
	sort.SliceStable(drops, func(i, j int) bool { return drops[i].d > drops[j].d })
	var fs []Finding
	for _, d := range drops[:min(len(drops), maxWeightyWords)] {
		fs = append(fs, Finding{Kind: "weighty word", Input: input, Start: d.w[0], End: d.w[1], Text: text[d.w[0]:d.w[1]], Score: d.d, Source: source})
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
	return fs
}

// words returns the [start, end) byte offsets of the runs of letters,
// digits and apostrophes of text.
func words(text string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range text {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '*' || r == '@' || r == '$'
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// sentences returns the [start, end) byte offsets of the sentences of
// text: runs ending after '.', '!', '?' or a line break.
func sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	for i, r := range text {
		if r == '.' || r == '!' || r == '?' || r == '\n' {
			if i+1 > start {
				out = append(out, [2]int{start, i + 1})
			}
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}
