// Package toxicity finds toxic language by grammar: insults aimed at a
// person (second or third person), death wishes, threats, incitement to
// self-harm, dehumanisation, identity hate, harassment and obscene abuse,
// and protected groups named together with a threat, a dehumanising
// comparison, a derogatory predicate or an exclusion, in statement,
// opinion and question forms (grouphate.go). It complements the
// bag-of-words classifier of the toxicity-detector, which learnt Davidson
// et al.'s tweets (mostly slurs) and misses these patterns in ordinary
// prose. Matches that are negated ("he is not an idiot"), quoted in a
// longer text, talked about ("calling people idiots is wrong") or
// rejected as counter-speech ("... is bigotry", "I reported it") are
// ignored. NewRepairer undoes obfuscated spellings of the words the rules
// look for; Reclaimed and Untargeted find in-group use of reclaimed slurs
// and swearing aimed at nobody, which the detector re-scores masked.
package toxicity

import (
	"regexp"
	"strings"
	"unsafe"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// Category names the kind of toxicity a rule found.
type Category string

// The categories of Detect, close to the Jigsaw labels (toxic, threat,
// insult, identity_hate, obscene) with death wishes, self-harm
// incitement, dehumanisation and harassment split out.
const (
	Insult         Category = "insult"
	Threat         Category = "threat"
	DeathWish      Category = "death_wish"
	SelfHarm       Category = "self_harm"
	Dehumanisation Category = "dehumanisation"
	IdentityHate   Category = "identity_hate"
	Harassment     Category = "harassment"
	ObsceneAbuse   Category = "obscene_abuse"
)

// rule is a set of patterns of one category over folded text
// (textclass.Fold: lower case, leetspeak and spacing folded).
type rule struct {
	category Category
	alts     []alt
	// negatable rules are dropped when the match itself holds a negation
	// ("i hope he doesn't die", "i will never hurt you"); rules whose
	// matches hold a negation by design (harassment: "nobody likes you")
	// are not.
	negatable bool
}

// Detect reports the category of the first toxic pattern in text that is
// used, not mentioned: matches after a nearby negation, inside quotation
// marks of a longer text, or in a sentence that talks about the language
// ("is wrong", "don't call", "the word") do not count.
func Detect(text string) (Category, bool) {
	return DetectFolded(textclass.AppendFold(make([]byte, 0, len(text)+len(text)/8), text))
}

// DetectFolded is Detect of the text that textclass.AppendFold folded into
// b, for callers that fold the text once for several detectors. b is not
// changed.
func DetectFolded(b []byte) (Category, bool) {
	c, ok, _ := AnalyzeFolded(b)
	return c, ok
}

// Flags are cheap facts about a text, found in the rules' anchor pass.
type Flags struct {
	// MayReclaim: a reclaimable slur is in the text as a word (Reclaimed
	// decides whether it is used in-group).
	MayReclaim bool
	// MaySwear: a swear word is in the text as a word (Untargeted decides
	// whether it is aimed at anyone).
	MaySwear bool
}

// AnalyzeFolded is DetectFolded with the Flags of the text.
func AnalyzeFolded(b []byte) (Category, bool, Flags) {
	if len(b) == 0 {
		return "", false, Flags{}
	}
	// folded does not outlive this call, nor does b change while it lives.
	folded := unsafe.String(&b[0], len(b))
	var sbuf [64]sentence
	sentences, all := splitSentences(folded, sbuf[:0])
	var flags Flags
	for k := range sentences {
		sn := &sentences[k]
		if !flags.MayReclaim && sn.sets.has(reclaimableSet) && textclass.HasWord(folded[sn.start:sn.end], reclaimableWords) {
			flags.MayReclaim = true
		}
		if !flags.MaySwear && sn.sets.has(profaneSet) && textclass.HasWord(folded[sn.start:sn.end], profaneWords) {
			flags.MaySwear = true
		}
	}
	// The patterns' prefilters read ASCII lower case, which folded text
	// is (textclass.Fold lower-cases it).
	filtered := !hasUpperASCII(b)
	for i := range rules {
		r := &rules[i]
		for j := range r.alts {
			al := &r.alts[j]
			if all.has(al.set) && (al.alsoSet < 0 || all.has(al.alsoSet)) && al.used(folded, sentences, r.negatable, filtered) {
				return r.category, true, flags
			}
		}
	}
	if all.has(protectedSet) && pronounHate(folded, sentences) {
		return IdentityHate, true, flags
	}
	return "", false, flags
}

// pronounHate reports whether a sentence that names a protected group is
// followed by one that derogates or dehumanises "they" ("I can't stand
// immigrants. They are vermin.").
func pronounHate(folded string, sentences []sentence) bool {
	for k := 0; k+1 < len(sentences); k++ {
		if !sentences[k].sets.has(protectedSet) {
			continue
		}
		next := sentences[k+1]
		sn := folded[next.start:next.end]
		m := pronounPredicate.FindStringIndex(sn)
		if m != nil && !mentioned(folded, next.start+m[0], next.start+m[1], false) {
			return true
		}
	}
	return false
}

// pronounPredicate is "they are <derogatory predicate or dehumaniser>" at
// the start of a sentence.
var pronounPredicate = regexp.MustCompile(`^\s*(?:and\s+|honestly,?\s+|seriously,?\s+)?(?:they|they're|those people|these people|all of them)\s+(?:are\s+|r\s+|were\s+)?(?:all\s+|just\s+|nothing\s+but\s+|such\s+|so\s+|the\s+)*(?:` + hatePredicates + `|` + dehumanisers + `)\b`)

// sentence is folded[start:end] (its closing '.', '!', '?' or newline
// included) with the anchor sets that have an anchor in it.
type sentence struct {
	start, end int
	sets       anchorBits
}

// splitSentences appends the sentences of folded to dst, each with its
// anchor sets, and returns them with the union of those sets.
func splitSentences(folded string, dst []sentence) ([]sentence, anchorBits) {
	var all anchorBits
	for start := 0; start < len(folded); {
		end := strings.IndexAny(folded[start:], ".!?\n")
		if end < 0 {
			end = len(folded)
		} else {
			end += start + 1
		}
		dst = append(dst, sentence{start: start, end: end})
		s := &dst[len(dst)-1]
		anchors.mark(folded[start:end], &s.sets)
		all.union(&s.sets)
		start = end
	}
	return dst, all
}

// hasUpperASCII reports whether b holds an ASCII capital letter.
func hasUpperASCII(b []byte) bool {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

// used reports whether the pattern matches, used and not mentioned, in a
// sentence of folded that holds one of the anchors (and, with also, one of
// the group anchors). filtered: folded is in ASCII lower case, so the
// pattern's prefilter may skip sentences.
func (al *alt) used(folded string, sentences []sentence, negatable, filtered bool) bool {
	for k := range sentences {
		sn := &sentences[k]
		if !sn.sets.has(al.set) || (al.alsoSet >= 0 && !sn.sets.has(al.alsoSet)) {
			continue
		}
		start, sentence := sn.start, folded[sn.start:sn.end]
		if al.needWords != nil && !textclass.HasWord(sentence, al.needWords) {
			continue
		}
		if filtered && !al.filter.MayMatch(unsafe.Slice(unsafe.StringData(sentence), len(sentence))) {
			continue
		}
		if al.starts != nil {
			if al.usedFromStarts(folded, start, sentence, negatable) {
				return true
			}
			continue
		}
		if al.intent && !intentPattern.MatchString(sentence) {
			continue
		}
		for _, m := range al.pattern.FindAllStringIndex(sentence, -1) {
			if al.wordStart && m[0] > 0 && isWordByte(sentence[m[0]-1]) == isWordByte(sentence[m[0]]) {
				continue
			}
			if !mentioned(folded, start+m[0], start+m[1], negatable) {
				return true
			}
		}
	}
	return false
}

// usedFromStarts runs the anchored pattern of al from each word of
// sentence (which begins at folded[offset]) that is one of al.starts.
func (al *alt) usedFromStarts(folded string, offset int, sentence string, negatable bool) bool {
	for i := 0; i < len(sentence); i++ {
		if i > 0 && isWordByte(sentence[i-1]) == isWordByte(sentence[i]) {
			continue // not a word boundary
		}
		if !al.startByte[sentence[i]] || !startsWithAny(sentence[i:], al.starts) {
			continue
		}
		if m := al.pattern.FindStringIndex(sentence[i:]); m != nil && !mentioned(folded, offset+i+m[0], offset+i+m[1], negatable) {
			return true
		}
	}
	return false
}

// startsWithAny reports whether s begins with one of words, as a whole
// word.
func startsWithAny(s string, words []string) bool {
	for _, w := range words {
		if strings.HasPrefix(s, w) && (len(s) == len(w) || isWordByte(s[len(w)-1]) != isWordByte(s[len(w)])) {
			return true
		}
	}
	return false
}

// negation matches a negating word; metaCue matches wording that talks
// about abusive language rather than using it.
var (
	negation = regexp.MustCompile(`\b(?:not|never|no|don't|dont|do not|didn't|doesn't|does not|isn't|aren't|wasn't|weren't|won't|wouldn't|shouldn't|nobody|no one|without|hardly)\b`)
	metaCue  = regexp.MustCompile(`\b(?:is|are|was|it's|its|be)\s+(?:(?:really|so|very|always|never|simply|just)\s+)?(?:wrong|unacceptable|not ok(?:ay)?|never ok(?:ay)?|hurtful|harmful|abusive|inappropriate|offensive|not acceptable|false|prejudice|racist|bigoted|a form of)\b` +
		`|\b(?:don't|do not|never|shouldn't|should not|stop|avoid|refrain from|please don't|don't ever)\s+(?:\w+\s+){0,2}?(?:call|calling|say|saying|tell|telling|use|using|write|writing|threaten|threatening)\b` +
		`|\b(?:the (?:word|words|phrase|term|slur|insult|comment|message|reply|tweet|post|claim|label)s?|name-calling|name calling|such as|things like|language like|considered|classify|classifier|moderators?|flagged|reported|should be reported|has no place|accusing|calling|saying|telling someone|wish death|fuels?)\b` +
		`|\b(?:tells?|told|telling|asks?|asking|urges?|encourages?)\s+(?:you|someone|somebody|people|them|others|anyone)\s+to\b` +
		`|\b(?:bigotry|hate speech|(?:it's|is|that's|a)\s+(?:a\s+)?(?:lie|lies|myth)|reported|report it|no place|call(?:ed|ing)? it out|spreading hate|spread hate|hate has no|speak up|stand up (?:to|against)|claiming|claim that|claims that|how wrong|dehumanising|dehumanizing|racism|sexism|homophobia|transphobia|antisemitism|islamophobia|xenophobia|ableism|misogyny|stop spreading|in solidarity|being targeted)\b`)
)

// rhetorical matches question tags whose negation asserts the rest.
var rhetorical = regexp.MustCompile(`\b(?:isn't it|isnt it|is it not|wouldn't (?:it|the world|we|everyone|everybody|life)|wouldnt (?:it|the world|we)|don't you (?:think|agree)|dont you (?:think|agree)|doesn't everyone know|aren't they|can't we all agree)\b`)

// mentioned reports whether the match folded[start:end] is mentioned
// rather than used (see Detect).
func mentioned(folded string, start, end int, negatable bool) bool {
	sStart, sEnd := sentenceBounds(folded, start, end)
	prefix := folded[sStart:start]
	if len(prefix) > 40 {
		prefix = prefix[len(prefix)-40:]
	}
	// A rhetorical question tag ("isn't it obvious that", "wouldn't the
	// world be better off") negates nothing.
	prefix = rhetorical.ReplaceAllLiteralString(prefix, " ")
	if negation.MatchString(prefix) || (negatable && negation.MatchString(folded[start:end])) {
		return true
	}
	if metaCue.MatchString(folded[sStart:sEnd]) {
		return true
	}
	return quoted(folded, start, end)
}

// sentenceBounds returns the sentence around folded[start:end]: from after
// the previous '.', '!', '?' or newline to the next one.
func sentenceBounds(folded string, start, end int) (int, int) {
	s := strings.LastIndexAny(folded[:start], ".!?\n") + 1
	e := strings.IndexAny(folded[end:], ".!?\n")
	if e < 0 {
		return s, len(folded)
	}
	return s, end + e
}

// quoted reports whether folded[start:end] lies inside double quotation
// marks (straight or curly) and the text has words outside them: a
// quotation inside a longer text is a mention ("the comment \"you are an
// idiot\" was removed"), a text that is only a quotation is not.
func quoted(folded string, start, end int) bool {
	open := strings.Count(folded[:start], `"`) + strings.Count(folded[:start], "“") + strings.Count(folded[:start], "”")
	if open%2 == 0 {
		return false
	}
	qs := strings.LastIndexAny(folded[:start], `"“”`)
	qe := strings.IndexAny(folded[end:], `"“”`)
	if qe < 0 {
		return false
	}
	outside := folded[:qs] + folded[end+qe+1:]
	return strings.IndexFunc(outside, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0
}

// isWordByte reports whether c is an ASCII word character, as for the
// regexp's \b.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
