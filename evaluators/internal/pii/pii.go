// Package pii finds personal data in text with a Presidio-shaped registry of
// recognizers: one recognizer per entity type, each with patterns that carry
// a base score, context words that raise the score when they appear shortly
// before a match, and validators (Luhn, mod-97, checksums, range rules) that
// move the score to 1.0 or drop the match. README.md lists every recognizer
// with its scores.
//
// Everything is compiled once at package init; Analyze is safe for
// concurrent use.
package pii

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The entity types the recognizers report.
const (
	Email         = "EMAIL_ADDRESS"
	Phone         = "PHONE_NUMBER"
	CreditCard    = "CREDIT_CARD"
	IBAN          = "IBAN_CODE"
	USSSN         = "US_SSN"
	USITIN        = "US_ITIN"
	USPassport    = "US_PASSPORT"
	USDriver      = "US_DRIVER_LICENSE"
	IPAddress     = "IP_ADDRESS"
	MACAddress    = "MAC_ADDRESS"
	URL           = "URL"
	Crypto        = "CRYPTO"
	DateOfBirth   = "DATE_OF_BIRTH"
	Person        = "PERSON"
	StreetAddress = "STREET_ADDRESS"
)

// DefaultThreshold is the default probability threshold of the evaluator,
// as Presidio's score threshold.
const DefaultThreshold = 0.7

// Entity is one recognised span: its type, its byte offsets in the text
// (end-exclusive), its score in 0..1 and the recognizer that found it.
type Entity struct {
	Type       string
	Start, End int
	Score      float64
	Recognizer string
}

// Context enhancement, as Presidio's LemmaContextAwareEnhancer.
const (
	contextBoost      = 0.35 // added to a score when a context word precedes the match
	minContextScore   = 0.4  // floor of a score raised by context
	contextWindow     = 5    // words before the match searched for context
	maxScore          = 1.0
	minPrefixMatchLen = 5 // context words this long also match as a prefix ("phone" ~ "phones")
)

// candidate is a match proposed by a recognizer before context enhancement.
type candidate struct {
	start, end int
	score      float64
	typ        string // the entity type when not the recognizer's
}

// recognizer finds one entity type.
type recognizer struct {
	entity string
	// name is the recognizer's name as an explanation reports it, in
	// Presidio's style ("EmailRecognizer"); set by the registry.
	name string
	// emits lists every entity type find may return, when it returns
	// types other than entity; set by the registry.
	emits []string
	// context lists lower-case words that raise the score when found among
	// the contextWindow words before a match.
	context []string
	// applies is a cheap check on the whole text; when it returns false the
	// recognizer is skipped.
	applies func(text string) bool
	// needsDigit: every match holds an ASCII digit, so a text without one
	// skips the recognizer before applies (one scan shared by all).
	needsDigit bool
	// find returns the candidates in text.
	find func(text string) []candidate
}

// registry is every recognizer, built once, named by recognizerNames.
var registry = namedRecognizers([]recognizer{
	emailRecognizer(),
	phoneRecognizer(),
	creditCardRecognizer(),
	ibanRecognizer(),
	ssnRecognizer(),
	itinRecognizer(),
	passportRecognizer(),
	driverLicenseRecognizer(),
	ipRecognizer(),
	macRecognizer(),
	urlRecognizer(),
	cryptoRecognizer(),
	dateOfBirthRecognizer(),
	streetAddressRecognizer(),
	personRecognizer(),
	entitiesRecognizer(),
})

// recognizerNames names the recognizer of each entity type as Presidio
// names its own (entities.go's rules, which report the entity types of
// Presidio's NER model, as "EntityRuleRecognizer").
var recognizerNames = map[string]string{
	Email: "EmailRecognizer", Phone: "PhoneRecognizer", CreditCard: "CreditCardRecognizer",
	IBAN: "IbanRecognizer", USSSN: "UsSsnRecognizer", USITIN: "UsItinRecognizer",
	USPassport: "UsPassportRecognizer", USDriver: "UsLicenseRecognizer", IPAddress: "IpRecognizer",
	MACAddress: "MacAddressRecognizer", URL: "UrlRecognizer", Crypto: "CryptoRecognizer",
	DateOfBirth: "DateOfBirthRecognizer", StreetAddress: "StreetAddressRecognizer",
	Person: "PersonRecognizer", ProperNoun: "EntityRuleRecognizer",
}

// entityRuleTypes are the types entities.go's rules report.
var entityRuleTypes = []string{Location, Organization, NRP, DateTime, Age, Title, ZipCode, ProperNoun, StreetAddress}

func namedRecognizers(rs []recognizer) []recognizer {
	for i := range rs {
		rs[i].name = recognizerNames[rs[i].entity]
		if rs[i].entity == ProperNoun {
			rs[i].emits = entityRuleTypes
		}
	}
	return rs
}

// Types lists every entity type the recognizers report, sorted.
func Types() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range registry {
		for _, t := range append([]string{r.entity}, r.emits...) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TypeSet is a set of entity types to report: bit i stands for Types()[i].
// A value, so that a parsed list costs no allocation per text.
type TypeSet uint64

// AllTypes holds every entity type.
const AllTypes = ^TypeSet(0)

// typeIndex maps each entity type to its bit; built once, only read.
var typeIndex = func() map[string]int {
	m := map[string]int{}
	for i, t := range Types() {
		m[t] = i
	}
	return m
}()

// recognizerTypes are the types each recognizer of the registry may
// report, as a set (same index as registry).
var recognizerTypes = func() []TypeSet {
	out := make([]TypeSet, len(registry))
	for i, r := range registry {
		for _, t := range append([]string{r.entity}, r.emits...) {
			out[i] |= 1 << typeIndex[t]
		}
	}
	return out
}()

// has reports whether the set holds type t.
func (s TypeSet) has(t string) bool {
	if s == AllTypes {
		return true
	}
	i, ok := typeIndex[t]
	return ok && s&(1<<i) != 0
}

// maxTypeName bounds the entity type names ParseTypes looks up.
const maxTypeName = 32

// ParseTypes parses a list of entity type names separated by commas or
// white space, in any case; an empty list is AllTypes. It allocates only
// for the error naming an unknown type.
func ParseTypes(list string) (TypeSet, error) {
	var set TypeSet
	var buf [maxTypeName]byte
	for i := 0; i < len(list); {
		for i < len(list) && isTypeSep(list[i]) {
			i++
		}
		j := i
		for j < len(list) && !isTypeSep(list[j]) {
			j++
		}
		if j == i {
			break
		}
		name := list[i:j]
		idx, ok := -1, len(name) <= maxTypeName
		if ok {
			for k := range len(name) {
				buf[k] = upperASCII(name[k])
			}
			idx, ok = typeIndex[string(buf[:len(name)])] // no allocation: a map lookup of a converted slice
		}
		if !ok {
			return 0, fmt.Errorf("unknown entity type %q (known: %s)", name, strings.Join(Types(), ", "))
		}
		set |= 1 << idx
		i = j
	}
	if set == 0 {
		return AllTypes, nil
	}
	return set, nil
}

func isTypeSep(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// Analyze runs every recognizer on text and returns the entities found with
// a score above 0, sorted by start offset. Overlapping entities of the same
// type are merged into the highest-scoring one; entities of different types
// may overlap (as in Presidio, the caller filters by score).
func Analyze(text string) []Entity { return AnalyzeTypes(text, AllTypes) }

// AnalyzeTypes is Analyze reporting only the entity types of types;
// recognizers that can report none of them do not run.
func AnalyzeTypes(text string, types TypeSet) []Entity {
	var out []Entity
	digit := hasDigit(text)
	for i := range registry {
		r := &registry[i]
		if types&recognizerTypes[i] == 0 || r.needsDigit && !digit || r.applies != nil && !r.applies(text) {
			continue
		}
		for _, c := range r.find(text) {
			typ := r.entity
			if c.typ != "" {
				typ = c.typ
			}
			if !types.has(typ) {
				continue
			}
			if score := enhancedScore(text, r, c); score > 0 {
				out = append(out, Entity{Type: typ, Start: c.start, End: c.end, Score: score, Recognizer: r.name})
			}
		}
	}
	return dedupe(out)
}

// HasPII reports whether text holds an entity scored at least threshold,
// as Analyze would: it runs the recognizers in hasPIIOrder and stops at
// the first such entity.
func HasPII(text string, threshold float64) bool { return HasPIIOf(text, threshold, AllTypes) }

// HasPIIOf is HasPII counting only the entity types of types, as
// AnalyzeTypes would.
func HasPIIOf(text string, threshold float64, types TypeSet) bool {
	digit := hasDigit(text)
	for _, i := range hasPIIOrder {
		r := &registry[i]
		if types&recognizerTypes[i] == 0 || r.needsDigit && !digit || r.applies != nil && !r.applies(text) {
			continue
		}
		for _, c := range r.find(text) {
			if c.typ != "" && !types.has(c.typ) || c.typ == "" && !types.has(r.entity) {
				continue
			}
			if score := enhancedScore(text, r, c); score >= threshold && score > 0 {
				return true
			}
		}
	}
	return false
}

// hasPIIOrder lists the registry's indexes, the recognizers most likely
// to find something at least cost first (libphonenumber last). E-mail
// addresses and URLs come first: a text without '@' or a scheme skips
// them at once, and prompts that hold one (in LLM traffic, often) are
// answered without the proper-noun and person scans (about 40 µs per KB
// of prose). The answer does not depend on the order.
var hasPIIOrder = func() []int {
	first := map[string]int{Email: 0, URL: 1, ProperNoun: 2, Person: 3, StreetAddress: 4, Phone: 100}
	order := make([]int, len(registry))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		if r, ok := first[registry[i].entity]; ok {
			return r
		}
		return 10 + i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(a) - rank(b) })
	return order
}()

// enhancedScore is c's score after context enhancement.
func enhancedScore(text string, r *recognizer, c candidate) float64 {
	score := c.score
	if score < maxScore && len(r.context) > 0 && hasContext(text, c.start, r.context) {
		score = min(max(score+contextBoost, minContextScore), maxScore)
	}
	return score
}

// dedupe sorts entities by start and keeps, among overlapping entities of
// one type, the highest score (the longest on a tie).
func dedupe(es []Entity) []Entity {
	if len(es) < 2 {
		return es
	}
	slices.SortFunc(es, func(a, b Entity) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return strings.Compare(a.Type, b.Type)
	})
	out := es[:0]
	for _, e := range es {
		merged := false
		for k := range out {
			o := &out[k]
			if o.Type != e.Type || e.Start >= o.End || o.Start >= e.End {
				continue
			}
			if e.Score > o.Score || (e.Score == o.Score && e.End-e.Start > o.End-o.Start) {
				*o = e
			}
			merged = true
			break
		}
		if !merged {
			out = append(out, e)
		}
	}
	return out
}

// hasContext reports whether one of words is among the contextWindow words
// before offset start. Words are runs of letters, digits, '#' and inner
// apostrophes, compared lower-cased; a context word of minPrefixMatchLen
// bytes or more also matches as a prefix of a text word.
func hasContext(text string, start int, words []string) bool {
	i := start
	for n := 0; n < contextWindow && i > 0; n++ {
		// Skip separators backwards.
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if isContextRune(r) {
				break
			}
			i -= size
		}
		end := i
		for i > 0 {
			r, size := utf8.DecodeLastRuneInString(text[:i])
			if !isContextRune(r) && !(r == '\'' && i < end && i-size > 0) {
				break
			}
			i -= size
		}
		if i == end {
			return false
		}
		word := strings.Trim(text[i:end], "'")
		var buf [shortWord]byte
		var lower string
		if lb := lowerBytes(word, buf[:]); lb != nil {
			lower = string(lb) // does not escape: no allocation
		} else {
			lower = strings.ToLower(word)
		}
		if matchesContext(lower, words) {
			return true
		}
	}
	return false
}

func isContextRune(r rune) bool {
	return r == '#' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func matchesContext(word string, words []string) bool {
	for _, w := range words {
		if word == w || (len(w) >= minPrefixMatchLen && strings.HasPrefix(word, w)) {
			return true
		}
	}
	return false
}

// Cheap prefilters.

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// hasDigitRun reports whether s holds n ASCII digits in a row.
func hasDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// hasAlnumRun reports whether s holds n ASCII letters or digits in a row,
// at least one of them a digit.
func hasAlnumRun(s string, n int) bool {
	run, digit := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			run++
			digit = true
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			run++
		default:
			run, digit = 0, false
		}
		if run >= n && digit {
			return true
		}
	}
	return false
}

// countDigits counts the ASCII digits of s.
func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// digitsOf returns the ASCII digits of s.
func digitsOf(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// isWordByte reports whether b is an ASCII letter or digit (or a byte of a
// multi-byte rune, treated as a letter).
func isWordByte(b byte) bool {
	return b >= 0x80 || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}
