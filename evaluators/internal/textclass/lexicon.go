package textclass

import "math"

// Lexicon counts hand-written word classes in normalised text and turns
// the counts into dense features for a Stack. A Lexicon is immutable and
// safe for concurrent use.
type Lexicon struct {
	// words maps a word to the bit set of its classes.
	words map[string]uint8
}

// Word classes of the gender lexicon.
const (
	lexFemale     = 1 << iota // women as a group or person: woman, girls, she...
	lexSlur                   // gendered slurs and insults: bitch, whore...
	lexQuantifier             // generalising determiners: all, most, every...
	lexPredicate              // generalising verbs and modals: are, should...
	lexMale                   // men as a group: men, guys, he...
	lexManosphere             // manosphere jargon: incel, mgtow, chad...
	lexViolence               // violence and threats: rape, beat, slap...
	lexSexual                 // sexualising and objectifying terms: tits, ass...
)

// GenderLexiconFeatures is the number of features of the gender lexicon.
const GenderLexiconFeatures = 9

// genderWords lists the gender lexicon by class. It was written by hand
// from general knowledge of online misogyny, not mined from any dataset.
var genderWords = map[uint8][]string{
	lexFemale: {
		"woman", "women", "womens", "girl", "girls", "gal", "gals", "female", "females", "lady", "ladies",
		"she", "her", "hers", "herself", "wife", "wives", "gf", "girlfriend", "girlfriends", "mother",
		"mothers", "mom", "moms", "feminist", "feminists", "feminism", "femoid", "femoids", "foid",
		"foids", "wahmen", "wymyn", "womyn", "chick", "chicks", "daughter", "daughters", "sister",
		"sisters", "bride", "brides", "wifey", "stacy", "stacys", "stacies", "becky", "karen", "karens",
	},
	lexSlur: {
		"bitch", "bitches", "bitchy", "whore", "whores", "slut", "sluts", "slutty", "cunt", "cunts",
		"skank", "skanks", "hoe", "hoes", "thot", "thots", "roastie", "roasties", "femoid", "femoids",
		"foid", "foids", "twat", "twats", "harlot", "harlots", "hag", "hags", "landwhale", "feminazi",
		"feminazis", "tramp", "tramps", "wench", "wenches", "gold digger", "golddigger", "golddiggers",
		"cumdumpster", "pussy", "pussies", "breeder", "breeders", "sow",
	},
	lexQuantifier: {
		"all", "most", "every", "typical", "these", "modern", "western", "american", "no", "any",
	},
	lexPredicate: {
		"are", "should", "shouldnt", "cant", "cannot", "always", "never", "need", "needs", "deserve",
		"deserves", "belong", "belongs", "only", "just", "love", "want", "wants", "must", "will",
	},
	lexMale: {
		"man", "men", "guy", "guys", "male", "males", "he", "him", "his", "husband", "boyfriend", "bf",
		"dude", "dudes", "boy", "boys",
	},
	lexManosphere: {
		"incel", "incels", "mgtow", "chad", "chads", "redpill", "redpilled", "bluepill", "bluepilled",
		"alpha", "beta", "betas", "simp", "simps", "cuck", "cucks", "hypergamy", "hypergamous", "wall",
		"smv", "awalt", "manosphere", "mra",
	},
	lexViolence: {
		"rape", "raped", "rapes", "raping", "rapist", "beat", "beating", "beaten", "slap", "slapped",
		"slapping", "punch", "punched", "choke", "choked", "kill", "killed", "hit", "hitting", "hang",
		"hanged", "shoot", "stab", "abuse", "abused", "smack", "smacked", "kick", "kicked", "throat",
		"strangle", "burn", "acid", "die", "dead", "murder",
	},
	lexSexual: {
		"tits", "titties", "boobs", "ass", "pussy", "fuck", "fucked", "fucking", "fuckable", "sex",
		"sexy", "hot", "dick", "cock", "blowjob", "cum", "naked", "nudes", "body", "bang", "banged",
		"pump", "dump", "kitchen", "sandwich", "cook", "clean", "obey", "submissive", "virgin",
		"virginity", "body count", "bodycount", "used", "riding", "ride", "carousel", "wall", "pregnant",
	},
}

// NewGenderLexicon returns the hand-written gender lexicon. Its features
// (in order): female terms, gendered slurs, generalisations (a quantifier
// before a female term, or a female plural followed by a generalising
// verb), male terms, manosphere jargon and the gender balance (female minus
// male terms), each as log(1+count) (the balance keeps its sign).
func NewGenderLexicon() *Lexicon {
	l := &Lexicon{words: map[string]uint8{}}
	for class, ws := range genderWords {
		for _, w := range ws {
			l.words[w] |= class
		}
	}
	return l
}

// features writes the GenderLexiconFeatures features of normalised text b
// into dst (len ≥ GenderLexiconFeatures). It does not allocate.
func (l *Lexicon) features(b []byte, dst []float64) {
	var female, slur, general, male, mano, violence, sexual, words float64
	var prev uint8
	for i := 0; i < len(b); {
		if !isWordByte(b[i]) || b[i] == '\'' {
			i++
			continue
		}
		j := i
		for j < len(b) && (isWordByte(b[j]) || b[j] == '\'') {
			j++
		}
		c := l.lookup(b[i:j])
		i = j
		words++
		if c&lexFemale != 0 {
			female++
			if prev&lexQuantifier != 0 {
				general++
			}
		}
		if c&lexPredicate != 0 && prev&lexFemale != 0 {
			general++
		}
		if c&lexSlur != 0 {
			slur++
		}
		if c&lexMale != 0 {
			male++
		}
		if c&lexManosphere != 0 {
			mano++
		}
		if c&lexViolence != 0 {
			violence++
		}
		if c&lexSexual != 0 {
			sexual++
		}
		prev = c
	}
	dst[0] = math.Log1p(female)
	dst[1] = math.Log1p(slur)
	dst[2] = math.Log1p(general)
	dst[3] = math.Log1p(male)
	dst[4] = math.Log1p(mano)
	dst[5] = math.Log1p(female) - math.Log1p(male)
	dst[6] = math.Log1p(violence)
	dst[7] = math.Log1p(sexual)
	dst[8] = math.Log1p(words)
}

// lookup returns the classes of word w, ignoring apostrophes ("can't" is
// "cant"). It does not allocate.
func (l *Lexicon) lookup(w []byte) uint8 {
	var buf [32]byte
	n := 0
	for _, c := range w {
		if c == '\'' {
			continue
		}
		if n == len(buf) {
			return 0
		}
		buf[n] = c
		n++
	}
	return l.words[string(buf[:n])]
}
