package toxicity

import (
	"regexp"
	"unsafe"
)

// Reclaimed slurs and profanity aimed at nobody: language a word-based
// model flags that is not toxic. In-group use of a reclaimed slur ("as a
// queer woman", "my fellow dykes") and swearing with no person or group
// as its target ("fucking hell, the printer broke again") are scored by
// the model with those words masked (see Mask).

// reclaimable are slurs that their targets commonly reclaim; profane are
// swear words that need not insult anyone.
const (
	reclaimable = `queer|queers|dyke|dykes|nigga|niggas|niggaz|crip|crips|fag|fags|faggot|faggots|bitch|bitches|hoe|hoes|tranny|trannies|homo|homos|cripple|cripples`
	profane     = `fuck|fucking|fuckin|fucked|fck|fuk|shit|shitty|shitting|damn|damned|goddamn|hell|crap|crappy|bloody|ass|arse|wtf|omfg|bullshit|freaking|frigging`
)

var (
	// inGroup is a speaker naming themselves as one of the group.
	inGroup = regexp.MustCompile(`\b(?:i'm|i am|im|as an?|proud|fellow|us|we|we're|our|my|myself|being an?|call myself(?: an?)?|reclaimed(?: the)?(?: word| term)?|yeah i'm an?)\s+(?:\w+\s+){0,2}?(?:` + reclaimable + `)\b`)
	// target is a person or group that swearing could be aimed at.
	target    = regexp.MustCompile(`\b(?:you|u|ur|your|yours|yourself|yourselves|ya|youre|he|she|him|her|his|hers|himself|herself|they're|them|these people|those people|people like|guy|girl|man|woman|idiot|moron|bitch|bastard)\b|\b(?:` + protectedGroups + `)\b`)
	maskWords = regexp.MustCompile(`\b(?:` + reclaimable + `|` + profane + `)\b`)
	profanity = regexp.MustCompile(`\b(?:` + profane + `)\b`)
)

// Benign reports why the slurs or swear words of folded text (textclass
// Fold output, repaired) are not toxic: "reclaimed" for in-group use of
// a reclaimable slur, "untargeted" for swearing with no target, "" when
// neither holds.
func Benign(folded []byte) string {
	if len(folded) == 0 {
		return ""
	}
	s := unsafe.String(&folded[0], len(folded))
	if inGroup.MatchString(s) {
		return "reclaimed"
	}
	if profanity.MatchString(s) && !target.MatchString(s) {
		return "untargeted"
	}
	return ""
}

// Mask appends folded text to dst with the reclaimable slurs and swear
// words removed, for re-scoring with the model.
func Mask(dst, folded []byte) []byte {
	return maskWords.ReplaceAll(append(dst[:0:0], folded...), nil)
}
