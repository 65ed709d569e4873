package toxicity

import (
	"regexp"
	"strings"
	"unsafe"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// Reclaimed slurs and profanity aimed at nobody: language a word-based
// model flags that is not toxic. In-group use of a reclaimed slur ("as a
// queer woman", "my fellow dykes") and swearing with no person or group
// as its target ("fucking hell, the printer broke again") are scored by
// the model with those words masked (see Mask).

// reclaimable are slurs that their targets commonly reclaim; profane are
// swear words that need not insult anyone.
const (
	reclaimable = `queer|queers|dyke|dykes|nigga|niggas|niggaz|crip|crips|fag|fags|homo|homos|cripple|cripples`
	profane     = `fuck|fucking|fuckin|fucked|fck|fuk|shit|shitty|shitting|damn|damned|goddamn|hell|crap|crappy|bloody|ass|arse|wtf|omfg|bullshit|freaking|frigging`
)

var (
	// inGroup is a speaker naming themselves as one of the group.
	inGroup   = regexp.MustCompile(`\b(?:i'm|i am|im|as an?|proud|fellow|us|we|we're|myself|being an?|call myself(?: an?)?|reclaimed(?: the)?(?: word| term)?)\s+(?:\w+\s+){0,2}?(?:` + reclaimable + `)\b`)
	maskWords = regexp.MustCompile(`\b(?:` + reclaimable + `|` + profane + `)\b`)
	// reclaimableWords and profaneWords are the words of reclaimable and
	// profane, for cheap whole-word checks.
	reclaimableWords = strings.Split(reclaimable, "|")
	profaneWords     = strings.Split(profane, "|")
	// targetWords are persons and groups that swearing could be aimed
	// at: pronouns, person nouns and the last word of every protected
	// group.
	targetWords = append(strings.Split("you|u|ur|your|yours|yourself|yourselves|ya|youre|he|she|him|her|his|hers|himself|herself|them|people|guy|guys|girl|man|woman|idiot|moron|bitch|bitches|bastard|bastards|hoe|hoes|slut|sluts|whore|whores|nigga|niggas|niggaz|cunt|cunts|twat|dick|dicks|pussy|fag|fags|faggot|faggots", "|"), lastWords(protectedGroups)...)
)

// lastWords returns the last word of every item of an alternation.
func lastWords(alternation string) []string {
	var out []string
	for _, item := range strings.Split(alternation, "|") {
		f := strings.Fields(item)
		out = append(out, f[len(f)-1])
	}
	return out
}

// Reclaimed reports whether folded text (textclass Fold output,
// repaired) uses a reclaimable slur in-group ("as a queer woman", "my
// fellow dykes").
func Reclaimed(folded []byte) bool {
	if len(folded) == 0 {
		return false
	}
	s := unsafe.String(&folded[0], len(folded))
	return textclass.HasWord(s, reclaimableWords) && inGroup.MatchString(s)
}

// Untargeted reports whether folded text swears with no person or group
// it could be aimed at.
func Untargeted(folded []byte) bool {
	if len(folded) == 0 {
		return false
	}
	s := unsafe.String(&folded[0], len(folded))
	return textclass.HasWord(s, profaneWords) && !textclass.HasWord(s, targetWords)
}

// Mask appends folded text to dst with the reclaimable slurs and swear
// words removed, for re-scoring with the model.
func Mask(dst, folded []byte) []byte {
	return maskWords.ReplaceAll(append(dst[:0:0], folded...), nil)
}
