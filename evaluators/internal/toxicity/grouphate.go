package toxicity

import (
	"regexp"
	"strings"
)

// Group-target constructions: a protected group named in a sentence
// together with a threat, a dehumanising comparison, a derogatory
// predicate or an exclusion, in statement, opinion ("I think ...") and
// question ("why are ... so ...") forms. Written from the phenomenon
// descriptions of issue 18, not from any test suite.
const (
	// protectedGroups are groups defined by a protected characteristic
	// (gender, gender identity, sexual orientation, race, ethnicity,
	// religion, disability, national origin or migration status), plural
	// and singular.
	protectedGroups = `women|woman|girls|females|trans people|trans person|transgender people|transgender person|trans women|trans men|gay men|gay man|gay people|gays|lesbians|lesbian|homosexuals|queers|bisexuals|black people|black person|blacks|black men|black women|africans|disabled people|disabled person|the disabled|cripples|muslims|muslim|moslems|islam|jews|jew|jewish people|immigrants|immigrant|migrants|migrant|refugees|refugee|asylum seekers|foreigners|arabs|asians|chinese people|mexicans|latinos|hispanics|gypsies|roma|indians|pakistanis|hindus|sikhs|christians|catholics|atheists|autistic people|retards|faggots|fags|niggers|dykes|trannies|kikes|spics|chinks|wetbacks|towelheads|ragheads|pakis`
	// hatePredicates are derogatory predicates about a group, after a
	// copula ("are", "were", "will never be anything but").
	hatePredicates = `idiots|morons|retards|assholes|cunts|bitches|shit|pigs|dogs|disgusting|revolting|repulsive|vile|filthy|dirty|worthless|useless|inferior|subhuman|defective|pathetic|evil|stupid|too stupid|dumb|retarded|scum|trash|garbage|the lowest form of life|the lowest of the low|a stain|a blight|a mistake|mistakes|a curse|a plague|a disease|a cancer|a drain|a burden|a disgrace|an abomination|abominations|liars|cheats|thieves|criminals|rapists|terrorists|savages|animals|degenerates|freaks|perverts|paedophiles|pedophiles|predators|the enemy|not welcome|a threat|dangerous|parasites|vermin|untrustworthy|all the same|beneath us|less than human|not human|not people|not real people|sick|mentally ill|genetically inferior`
	// dehumanisers compare a group with animals, vermin or disease.
	dehumanisers = `vermin|rats|rat|sewer rats?|cockroach(?:es)?|roaches|maggots|lice|insects|apes|monkeys|animals|beasts|pigs|dogs|swine|parasites|leeches|locusts|a swarm|swarm|a plague|plague|a disease|disease|a virus|an infestation|infestation|pests|a cancer|cancer|filth|savages|subhumans?|not people|not even people|not human|less than human|no humanity|as much humanity as`
	// violenceWords are acts of violence against people.
	violenceWords = `kill|killed|killing|shoot|shot|shooting|murder|murdered|slaughter|slaughtered|exterminate|exterminated|gas|gassed|hang|hanged|hung|lynch|lynched|burn|burned|burnt|torch|stab|stabbed|bleed|blood|body bags?|knife|knives|guns?|rifles?|bullets?|bomb|bombed|round up|rounded up|hunt down|hunt them|wipe out|wiped out|wipe the|wiped off|get rid of|eradicate|eradicated|purge|cleanse|massacre|beat|beaten|deport them all|deal with them for good|lined up against a wall|pay with blood|pays with blood|open season|death to`
	// intentWords mark a wish, plan or call for an act, not a report.
	intentWords = `will|'ll|gonna|going to|should|must|need to|needs to|deserve|deserves|let's|lets|time to|it's time|day is coming|ready|i'm bringing|bringing my|open season|until none|every last|one by one|for good|pay with|pays with|death to|somebody needs to|someone needs to|someone should|somebody should|we need to|all of them|better off|want to|wanna|i'd|would love to|can't wait`
)

// Othering and exclusion: the group set apart from "normal people", or
// denied rights, presence or existence.
const exclusion = `\b(?:(?:better|better off|a better place|safer|cleaner)\s+without\s+(?:any\s+|all\s+)?(?:the\s+|those\s+)?(?:` + protectedGroups + `)` +
	`|(?:why|how come)\s+(?:do|does|did|should|would)\s+(?:we|they|you|anyone)\s+(?:even\s+|still\s+|ever\s+)?(?:let|allow|tolerate|hire|trust)\s+(?:any\s+|the\s+)?(?:` + protectedGroups + `)` +
	`|(?:` + protectedGroups + `)\s+(?:\w+\s+){0,6}?(?:as|than|like)\s+(?:normal|real|decent|regular|proper)\s+(?:people|humans|folk|citizens|men|women)` +
	`|(?:of course|no wonder|unsurprisingly|naturally|typical|predictably)\b[^.!?]{0,60}?\b(?:` + protectedGroups + `)` +
	`|(?:` + protectedGroups + `)\b[^.!?]{0,60}?\b(?:everything|every\s+\w+|the\s+place|the\s+area|it)\s+(?:is|was|gets|turns|becomes|ends\s+up)\s+(?:\w+\s+)?(?:dirty|broken|filthy|trashed|ruined|a\s+mess|a\s+dump|a\s+slum|dangerous|unsafe|stolen)` +
	`|(?:` + protectedGroups + `)\s+(?:\w+\s+){0,2}?(?:always|all|just|only|constantly|naturally)\s+(?:\w+\s+)?(?:steal|lie|cheat|scrounge|beg|stink|smell|riot|loot|leech|sponge|freeload|mooch|whine|complain|breed|rape|kill|lie)s?\b` +
	`|(?:` + protectedGroups + `)\s+(?:can't|cannot|can\s+never|should\s+never|will\s+never)\s+be\s+(?:trusted|civili[sz]ed|integrated|educated|equal)` +
	`|(?:` + protectedGroups + `)\s+(?:don't|do\s+not|will\s+never|never)\s+belong\s+(?:here|in\s+(?:this|our|a\s+civilised|a\s+civilized|decent))` +
	`|(?:letting|allowing)\s+(?:` + protectedGroups + `)\s+(?:\w+\s+){0,4}?(?:should\s+be\s+(?:illegal|banned|forbidden|a crime)|is\s+(?:a\s+)?(?:mistake|madness|insane|disgusting))` +
	`|(?:` + protectedGroups + `)\s+(?:should|must)\s+(?:\w+\s+)?(?:be\s+)?(?:kept\s+away|banned|sterili[sz]ed|segregated|locked\s+up|deported|removed|expelled|not\s+(?:be\s+)?allowed)` +
	`|(?:` + protectedGroups + `)\s+(?:have|has)\s+never\s+(?:contributed|done|achieved|created|built|invented)\s+anything` +
	`|(?:hiring|employing|trusting|electing)\s+(?:a\s+|an\s+)?(?:` + protectedGroups + `)\s+(?:\w+\s+){0,3}?(?:ruin|destroy|wreck|bankrupt|kill)` +
	`|(?:` + protectedGroups + `)\s+(?:\w+\s+){0,3}?(?:ruin|ruins|destroy|destroys|infest|infests|contaminate|contaminates|pollute|pollutes)\s+(?:everything|every|our|this|the|a)` +
	`)\b`

// groupHateRules are added to rules at init (see init below); each needs
// a protected group in its sentence.
var groupHateRules = []rule{
	{category: Threat, negatable: true, alts: []alt{
		withProtected(a(literals(violenceWords), `\b(?:(?:`+protectedGroups+`)\b[^.!?]{0,80}?\b(?:`+violenceWords+`)|(?:`+violenceWords+`)\b[^.!?]{0,60}?\b(?:`+protectedGroups+`))\b`)).needIntent(),
	}},
	{category: Dehumanisation, alts: []alt{
		withProtected(a(literals(dehumanisers), `\b(?:`+protectedGroups+`)\b(?:\W+\w+){0,10}?\W+(?:are|is|'re|r|aren't|like|as|into|of|than|be|were|'s)\s+(?:\w+\s+){0,4}?(?:`+dehumanisers+`)\b`)),
		withProtected(a("breed", `\b(?:`+protectedGroups+`)\s+breed\s+like\b`)),
	}},
	{category: IdentityHate, alts: []alt{
		withProtected(a(literals(hatePredicates), `\b(?:`+protectedGroups+`)\s+(?:\w+\s+){0,2}?(?:are|is|'re|r|were|was|will\s+never\s+be\s+anything\s+but|are\s+nothing\s+but|are\s+just)\s+`+repeat(`all|just|so|too|such|naturally|inherently|always|basically|nothing|but|a|bunch|of|fucking|really|the|and|truly|simply|literally|complete|total|utter|absolutely|disgusting|filthy|dirty`, 4)+`(?:`+hatePredicates+`)\b`)),
		withProtected(a(literals(hatePredicates), `\b(?:why|how)\s+(?:are|is)\s+(?:all\s+|so\s+many\s+)?(?:`+protectedGroups+`)\s+(?:always\s+|so\s+|such\s+|this\s+|that\s+)?(?:`+hatePredicates+`)\b`)),
		withProtected(a(literals(hatePredicates), `\bare\s+(?:all\s+)?(?:`+protectedGroups+`)\s+(?:just\s+|really\s+|naturally\s+|all\s+)?(?:`+hatePredicates+`)\b`)),
		withProtected(a("contempt|hatred|nothing but|ashamed|despise|hate|can't stand|loathe", `\b(?:`+protectedGroups+`)\s+deserve\s+(?:nothing\s+but\s+|only\s+)?(?:contempt|hatred|to\s+suffer|nothing)\b|\bi\s+(?:really\s+|just\s+|truly\s+|honestly\s+|absolutely\s+|fucking\s+|do\s+|so\s+)?(?:hate|despise|can't stand|cannot stand|loathe|detest)\s+(?:all\s+|the\s+|these\s+|those\s+)?(?:`+protectedGroups+`)\b`)),
		// Strong negative emotion, profanity aimed at a group, and hate
		// in the form of a negated positive statement.
		withProtected(a("disgust|sicken|repuls|revolt|sick|vomit|puke|fuck|f*ck", `\b(?:`+protectedGroups+`)\s+(?:\w+\s+)?(?:disgust|disgusts|sicken|sickens|repulse|repulses|revolt|revolts)\s+me\b|\b(?:`+protectedGroups+`)\s+(?:\w+\s+)?make\s+me\s+(?:\w+\s+)?(?:sick|vomit|puke|want\s+to\s+(?:vomit|puke|throw\s+up))\b|\bfuck(?:ing)?\s+(?:all\s+|the\s+|those\s+|these\s+)?(?:`+protectedGroups+`)\b`)),
		withProtected(a("not|never|n't", `\b(?:`+protectedGroups+`)\s+(?:are|is|'re|r)\s+(?:not|never|n't)\s+(?:\w+\s+)?(?:intelligent|smart|clever|human|humans|people|equal|our\s+equals|welcome|trustworthy|honest|capable|civili[sz]ed|normal|worth\s+\w+|good\s+enough|deserving\s+of\s+\w+|fit\s+to\s+\w+|real\s+(?:women|men|people|citizens))\b|\bi\s+(?:don't|do\s+not|will\s+never|could\s+never|can't|cannot)\s+(?:respect|trust|tolerate|accept)\s+(?:any\s+|the\s+)?(?:`+protectedGroups+`)\b`)),
		withProtected(a("steal|lie|cheat|scroung|beg|stink|smell|riot|loot|leech|sponge|freeload|mooch|whine|complain|breed|rape|kill|trusted|civili|integrated|educated|equal|belong|course|wonder|unsurprising|naturally|typical|predictabl|dirty|broken|filthy|trashed|ruined|mess|dump|slum|dangerous|unsafe|stolen|without|let|allow|tolerate|hire|trust|normal|real|decent|regular|proper|illegal|banned|forbidden|crime|mistake|madness|insane|disgusting|kept away|steril|segregat|locked up|deported|removed|expelled|allowed|contributed|done|achieved|created|built|invented|ruin|destroy|wreck|bankrupt|infest|contaminat|pollut", exclusion)),
	}},
}

// withProtected makes al run only on sentences that name a protected
// group.
func withProtected(al alt) alt {
	al.also = protectedAnchors
	return al
}

// needIntent marks al as needing a word of intent in its sentence.
func (al alt) needIntent() alt {
	al.intent = true
	return al
}

// protectedAnchors hold a substring of every match of protectedGroups.
var protectedAnchors = strings.Split(literals(protectedGroups), "|")

// intentPattern finds a word of intent (see intentWords).
var intentPattern = mustCompileWord(intentWords)

// Vocabulary lists the words the toxicity detector looks for, for
// textclass.Repairer: obfuscated spellings of these ("musilms", "wmen",
// "wo men") are repaired before the rules and the slur lexicon run.
func Vocabulary() []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range []string{protectedGroups, hatePredicates, dehumanisers, strongInsults, weakInsults, insultAdjectives, groupNouns, groupNegatives, dehumanisingNouns, violence, vocabularyExtra} {
		for _, item := range strings.Split(list, "|") {
			for _, w := range strings.Fields(item) {
				w = strings.Trim(w, "()?:")
				if isPlainWord(w) && !seen[w] {
					seen[w] = true
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// vocabularyExtra are words of the rules' regular expressions that are
// not in the word lists above.
const vocabularyExtra = `hate|despise|loathe|detest|death|die|kill|killed|blacks|whites|gays|jews|muslims|faggot|faggots|retard|retards|nigger|niggers|tranny|trannies|dyke|dykes|whore|whores|slut|sluts|bitch|bitches|cunt|cunts|pathetic|worthless|subhuman|disgusting|useless|defective|immigrants|refugees|women|lesbians|homosexuals`

func isPlainWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// mustCompileWord compiles an alternation of words as whole words.
func mustCompileWord(alternation string) *regexp.Regexp {
	return regexp.MustCompile(`\b(?:` + alternation + `)\b`)
}
