// Package instructions finds the verifiable constraints of an instruction
// (counts of bullets, sentences, words and paragraphs, letter case, JSON,
// words to include or avoid, how to start and end, formal register) and
// checks a response against them, in the manner of IFEval's verifiable
// instructions (Zhou et al. 2023), read from free text with patterns.
package instructions

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// Check is one constraint found in the instructions and its outcome.
type Check struct {
	// Name says what was checked, e.g. "exactly 3 bullet points".
	Name string
	// OK reports whether the response meets it.
	OK bool
}

// number matches a count written in digits or words.
const number = `(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundred)`

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100}

// quantifier words before a count.
const quant = `(exactly|at least|at most|no more than|no less than|not more than|not less than|fewer than|less than|more than|up to|under|over|maximum of|minimum of|a maximum of|a minimum of|max|min)?\s*`

var (
	countRe       = regexp.MustCompile(`(?i)\b` + quant + number + `\s+(bullet(?:ed)?(?:\s+points?)?|bullets|points|items|steps|tips|reasons|ideas|examples|sentences?|words?|paragraphs?|characters?|lines?)\b`)
	oneWordRe     = regexp.MustCompile(`(?i)\b(?:in |with |using )?(?:a single|one|only one) word\b`)
	oneSentenceRe = regexp.MustCompile(`(?i)\b(?:in |with |using )?(?:a single|one|only one) sentence\b`)
	lowerRe       = regexp.MustCompile(`(?i)\b(?:all |entirely |only )?(?:in )?lower ?case\b`)
	upperRe       = regexp.MustCompile(`(?i)\b(?:all (?:capital|caps|upper ?case)|in (?:all )?capital letters|entirely in upper ?case|in upper ?case|all caps)\b`)
	noCommaRe     = regexp.MustCompile(`(?i)\b(?:no|without(?: using)?(?: any)?|do not use(?: any)?|don't use(?: any)?|avoid(?: using)?(?: any)?) commas?\b`)
	jsonRe        = regexp.MustCompile(`(?i)\b(?:in|as|using|valid|return|output|respond with|format(?:ted)? as)\s+(?:a\s+)?(?:valid\s+)?json\b|\bjson (?:format|object)\b`)
	includeRe     = regexp.MustCompile(`(?i)\b(?:include|includes|including|mention|use|contain|containing)\s+(?:the\s+)?(?:words?|keywords?|phrases?|terms?)?\s*((?:["“'][^"”']+["”']\s*(?:,|and|or)?\s*)+)`)
	avoidRe       = regexp.MustCompile(`(?i)\b(?:do not|don't|never|avoid|without)\s+(?:use|using|mention|mentioning|include|including|say|saying)?\s*(?:the\s+)?(?:words?|keywords?|phrases?|terms?)?\s*((?:["“'][^"”']+["”']\s*(?:,|and|or)?\s*)+)`)
	startRe       = regexp.MustCompile(`(?i)\b(?:start|begin)s?\s+(?:your\s+(?:response|answer|reply)\s+)?with\s+(?:the\s+(?:word|phrase)\s+)?["“']([^"”']+)["”']`)
	endRe         = regexp.MustCompile(`(?i)\b(?:end|finish)s?\s+(?:your\s+(?:response|answer|reply)\s+)?with\s+(?:the\s+(?:word|phrase)\s+)?["“']([^"”']+)["”']`)
	formalRe      = regexp.MustCompile(`(?i)\bformal\s+(?:language|tone|register|style|english)\b|\b(?:be|stay|keep it|remain)\s+formal\b|\bformally\b`)
	numberedRe    = regexp.MustCompile(`(?i)\bnumbered list\b`)
	yesNoRe       = regexp.MustCompile(`(?i)\b(?:answer|respond|reply)\s+(?:only\s+)?(?:with\s+)?["']?yes["']?\s+or\s+["']?no["']?`)
	quotesRe      = regexp.MustCompile(`(?i)\bwrap\b.*\bin double quot`)
	titleRe       = regexp.MustCompile(`<<[^>]*>>|(?i)\bdouble angular brackets\b`)
	psRe          = regexp.MustCompile(`(?i)\bP\.S\.|\bpostscript\b`)

	bulletLine   = regexp.MustCompile(`(?m)^\s*(?:[-*•+]|\d+[.)])\s+\S`)
	numberedLine = regexp.MustCompile(`(?m)^\s*\d+[.)]\s+\S`)
	contraction  = regexp.MustCompile(`(?i)\b\w+(?:n't|'re|'m|'ll|'ve|'d)\b|\b(?:it|that|what|there|here|he|she|let|who|where)'s\b|\b(?:gonna|wanna|gotta|kinda|lol|omg|btw|yeah|yep|nope|hey|dude|cool|awesome)\b`)
	angleTitle   = regexp.MustCompile(`<<[^<>\n]+>>`)
	paragraphSep = regexp.MustCompile(`\n\s*\n|\*\*\*`)
	quotedRe     = regexp.MustCompile(`["“']([^"”']+)["”']`)
)

// Find returns the constraints of the instructions, each checked against
// the response.
func Find(instr, resp string) []Check {
	var out []Check
	add := func(name string, ok bool) { out = append(out, Check{Name: name, OK: ok}) }
	for _, m := range countRe.FindAllStringSubmatch(instr, -1) {
		q, n, unit := strings.ToLower(m[1]), parseCount(m[2]), strings.ToLower(m[3])
		if n < 0 {
			continue
		}
		got, what := countUnits(resp, unit)
		add(fmt.Sprintf("%s %d %s (found %d)", orExactly(q), n, what, got), compare(q, got, n))
	}
	if oneWordRe.MatchString(instr) {
		got, _ := countUnits(resp, "words")
		add(fmt.Sprintf("a single word (found %d)", got), got == 1)
	}
	if oneSentenceRe.MatchString(instr) {
		got, _ := countUnits(resp, "sentences")
		add(fmt.Sprintf("a single sentence (found %d)", got), got == 1)
	}
	if upperRe.MatchString(instr) {
		add("all capital letters", !strings.ContainsFunc(resp, unicode.IsLower))
	} else if lowerRe.MatchString(instr) {
		add("all lower case", !strings.ContainsFunc(resp, unicode.IsUpper))
	}
	if noCommaRe.MatchString(instr) {
		add("no commas", !strings.Contains(resp, ","))
	}
	if jsonRe.MatchString(instr) {
		add("valid JSON", validJSON(resp))
	}
	lowResp := strings.ToLower(resp)
	avoided := map[string]bool{}
	for _, m := range avoidRe.FindAllStringSubmatch(instr, -1) {
		for _, w := range quoted(m[1]) {
			avoided[w] = true
			add(fmt.Sprintf("does not use %q", w), !strings.Contains(lowResp, w))
		}
	}
	for _, m := range includeRe.FindAllStringSubmatch(instr, -1) {
		for _, w := range quoted(m[1]) {
			if !avoided[w] {
				add(fmt.Sprintf("uses %q", w), strings.Contains(lowResp, w))
			}
		}
	}
	trimmed := strings.TrimSpace(resp)
	if m := startRe.FindStringSubmatch(instr); m != nil {
		add(fmt.Sprintf("starts with %q", m[1]), strings.HasPrefix(strings.ToLower(trimmed), strings.ToLower(m[1])))
	}
	if m := endRe.FindStringSubmatch(instr); m != nil {
		add(fmt.Sprintf("ends with %q", m[1]), strings.HasSuffix(strings.ToLower(strings.TrimRight(trimmed, " .!")), strings.ToLower(strings.TrimRight(m[1], " .!"))))
	}
	if formalRe.MatchString(instr) {
		add("formal language (no contractions or slang)", !contraction.MatchString(resp) && strings.Count(resp, "!") <= 1)
	}
	if numberedRe.MatchString(instr) {
		add("a numbered list", numberedLine.MatchString(resp))
	}
	if yesNoRe.MatchString(instr) {
		l := strings.ToLower(trimmed)
		add("answers yes or no", strings.HasPrefix(l, "yes") || strings.HasPrefix(l, "no"))
	}
	if quotesRe.MatchString(instr) {
		add("wrapped in double quotes", len(trimmed) >= 2 && strings.HasPrefix(trimmed, `"`) && strings.HasSuffix(trimmed, `"`))
	}
	if titleRe.MatchString(instr) {
		add("a title in <<double angular brackets>>", angleTitle.MatchString(resp))
	}
	if psRe.MatchString(instr) {
		add("a postscript (P.S.)", strings.Contains(resp, "P.S.") || strings.Contains(resp, "P.P.S"))
	}
	return out
}

func orExactly(q string) string {
	if q == "" {
		return "exactly"
	}
	return q
}

func parseCount(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	if n, ok := numberWords[strings.ToLower(s)]; ok {
		return n
	}
	return -1
}

// countUnits counts the response's units of a count constraint.
func countUnits(resp, unit string) (int, string) {
	switch {
	case strings.HasPrefix(unit, "bullet"), unit == "points", unit == "items", unit == "steps", unit == "tips", unit == "reasons", unit == "ideas", unit == "examples":
		return len(bulletLine.FindAllStringIndex(resp, -1)), unit
	case strings.HasPrefix(unit, "sentence"):
		n := 0
		for _, line := range textsim.Sentences(resp) {
			if strings.ContainsFunc(line, unicode.IsLetter) {
				n++
			}
		}
		return n, "sentences"
	case strings.HasPrefix(unit, "word"):
		return len(strings.Fields(resp)), "words"
	case strings.HasPrefix(unit, "paragraph"):
		n := 0
		for _, p := range paragraphSep.Split(resp, -1) {
			if strings.TrimSpace(p) != "" {
				n++
			}
		}
		return n, "paragraphs"
	case strings.HasPrefix(unit, "character"):
		return len([]rune(resp)), "characters"
	case strings.HasPrefix(unit, "line"):
		n := 0
		for _, l := range strings.Split(resp, "\n") {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
		return n, "lines"
	}
	return 0, unit
}

func compare(q string, got, n int) bool {
	switch q {
	case "at least", "no less than", "not less than", "minimum of", "a minimum of", "min":
		return got >= n
	case "at most", "no more than", "not more than", "up to", "maximum of", "a maximum of", "max":
		return got <= n
	case "fewer than", "less than", "under":
		return got < n
	case "more than", "over":
		return got > n
	}
	return got == n
}

// quoted returns the quoted strings of s, lower-cased.
func quoted(s string) []string {
	var out []string
	for _, m := range quotedRe.FindAllStringSubmatch(s, -1) {
		if w := strings.ToLower(strings.TrimSpace(m[1])); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// validJSON reports whether the response is JSON, alone or in one
// Markdown code fence.
func validJSON(resp string) bool {
	s := strings.TrimSpace(resp)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return s != "" && json.Valid([]byte(strings.TrimSpace(s)))
}
