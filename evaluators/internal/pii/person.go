package pii

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// PERSON. Presidio finds names with a spaCy NER model; we have none, so the
// recognizer looks for runs of one to four capitalised words (middle
// initials allowed) and scores them by what it knows:
//
//	first word is a known given name (names.txt), two or more words: 0.85
//	first word is a known given name, alone:                          0.7
//	unknown capitalised words, two or more:                           0.4
//	unknown capitalised word, alone:                                  0.35
//
// A name cue among the five words before ("name", "named", "called",
// "Mr", "Dr", ...) adds 0.35, so "My name is Rubija" scores 0.7; so does
// "I'm" or "I am" right before the name. When a run of capitalised words
// holds a known given name after its first word ("Producer James Sparks"),
// the name starts there.
// Words of commonWords never take part in a name: they are capitalised at
// the start of sentences, in titles and in organisation and place names.

//go:embed names.txt
var namesFile string

// givenNames is the set of names.txt, lower-case.
var givenNames = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, 700)
	for _, line := range strings.Split(namesFile, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && !commonWords[line] {
			m[line] = true
		}
	}
	return m
})

// commonWords are lower-case words that end or break a name.
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a about after again all also am an and any are as at be because been before being below between both but by can
could did do does doing down during each few for from further had has have having he her here hers herself him
himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours yourself yourselves yes ok okay please thanks thank hello hi hey dear
sir madam mr mrs ms miss mx dr prof mister doctor professor st saint rev captain king queen prince princess lord
lady royal president minister general
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday
inc llc ltd plc gmbh corp corporation company co group club team bank university college school institute
street st avenue ave road rd lane drive boulevard square park place court suite apt apartment box unit floor
north south east west northern southern eastern western new old united states kingdom republic city county
america american europe european africa asia english french german spanish italian
center centre hospital church hotel restaurant cafe museum office department ministry council committee
international national global services service systems solutions technologies technology consulting
news weekly daily times post journal magazine radio tv
name names user bot patient customer client account card number phone email address date time
note subject re fw fwd dear regards best kind i'm i'd i'll i've i’m i’d i’ll i’ve
`) {
		m[w] = true
	}
	return m
}()

func personRecognizer() recognizer {
	return recognizer{
		entity: Person,
		context: []string{"name", "named", "names", "called", "call", "mr", "mrs", "ms", "miss", "mx",
			"dr", "prof", "sir", "madam", "mister", "surname", "firstname", "lastname", "patient", "user"},
		find: findPersons,
	}
}

// nameToken is a capitalised word or an initial of the text.
type nameToken struct {
	start, end int
	initial    bool // one capital letter, maybe followed by '.'
}

func findPersons(text string) []candidate {
	names := givenNames()
	var out []candidate
	var span []nameToken
	flush := func() {
		// Trailing initials are not part of the name.
		for len(span) > 0 && span[len(span)-1].initial {
			span = span[:len(span)-1]
		}
		// A known given name inside the run starts the name ("Producer
		// James Sparks").
		for k, t := range span {
			if k > 0 && !t.initial && names[strings.ToLower(text[t.start:t.end])] {
				span = span[k:]
				break
			}
		}
		if len(span) > 0 && !span[0].initial {
			words := 0
			for _, t := range span {
				if !t.initial {
					words++
				}
			}
			first := strings.ToLower(text[span[0].start:span[0].end])
			var score float64
			switch {
			case names[first] && words >= 2:
				score = 0.85
			case names[first]:
				score = 0.7
			case words >= 2:
				score = 0.4
			default:
				score = 0.35
			}
			if selfIntroduced(text, span[0].start) {
				score = min(score+contextBoost, maxScore)
			}
			out = append(out, candidate{start: span[0].start, end: span[len(span)-1].end, score: score})
		}
		span = span[:0]
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += size
			continue
		}
		start := i
		end := scanWord(text, i)
		i = end
		tok, ok := classifyNameWord(text, start, end)
		if !ok {
			flush()
			continue
		}
		if len(span) > 0 && !adjacent(text, span[len(span)-1].end, start) || len(span) == 4 {
			flush()
		}
		if tok.initial && i < len(text) && text[i] == '.' {
			tok.end = i + 1
			i++
		}
		span = append(span, tok)
	}
	flush()
	return out
}

// scanWord returns the end of the word starting at i: letters with inner
// apostrophes or hyphens.
func scanWord(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsMark(r) {
			i += size
			continue
		}
		if (r == '\'' || r == '’' || r == '-') && i+size < len(text) {
			next, _ := utf8.DecodeRuneInString(text[i+size:])
			if unicode.IsLetter(next) {
				i += size
				continue
			}
		}
		break
	}
	return i
}

// classifyNameWord reports whether text[start:end] can be part of a name:
// a capitalised word (not all capitals, not a common word) or an initial.
func classifyNameWord(text string, start, end int) (nameToken, bool) {
	w := text[start:end]
	first, size := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(first) {
		return nameToken{}, false
	}
	if size == len(w) {
		return nameToken{start: start, end: end, initial: true}, true
	}
	// Words glued to digits or '@' are ids, not names.
	if (start > 0 && (isDigitByte(text[start-1]) || text[start-1] == '@' || text[start-1] == '_')) || (end < len(text) && (isDigitByte(text[end]) || text[end] == '@' || text[end] == '_')) {
		return nameToken{}, false
	}
	hasLower := false
	for _, r := range w[size:] {
		if unicode.IsLower(r) {
			hasLower = true
			break
		}
	}
	if !hasLower || commonWords[strings.ToLower(w)] {
		return nameToken{}, false
	}
	return nameToken{start: start, end: end}, true
}

// adjacent reports whether two words are separated by one space (an
// initial's '.' belongs to the initial).
func adjacent(text string, prevEnd, start int) bool {
	return text[prevEnd:start] == " "
}

// selfIntroduced reports whether the name at start directly follows "I'm"
// or "I am" ("I'm Naomi Ryan"; not "I'm in Miami").
func selfIntroduced(text string, start int) bool {
	before := strings.TrimRight(text[:start], " ")
	if len(before) == start {
		return false // no space before the name
	}
	for _, cue := range []string{"I'm", "i'm", "I’m", "i’m", "I am", "i am", "Im"} {
		if strings.HasSuffix(before, cue) {
			rest := before[:len(before)-len(cue)]
			return rest == "" || !isWordByte(rest[len(rest)-1])
		}
	}
	return false
}
