package toxicity

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/prefilter"
)

// Word lists of the rules, as regexp alternations over folded text. The
// insult nouns extend the "other / general insult" and "mental
// disability" entries of the Surge AI profanity list (MIT) with common
// English insults; slurs are left to the profanity package.
const (
	// strongInsults insult whoever they are said of ("X is a moron").
	strongInsults = `idiot|moron|imbecile|cretin|dimwit|halfwit|nitwit|numbskull|dumbass|dumbfuck|retard|tard|fucktard|loser|scum|scumbag|lowlife|low life|jerk|asshole|arsehole|bastard|bitch|cunt|twat|prick|dickhead|douche|douchebag|douche bag|tosser|wanker|slut|whore|skank|hag|buffoon|dolt|dipshit|shithead|motherfucker|piece of (?:shit|crap|garbage|trash|filth)|waste of (?:space|air|oxygen|skin)|excuse for an? \w+(?: being)?|little shit|pervert|degenerate|dumb fuck|muppet|jackass|dunce|simpleton|oaf|twit|pillock|plonker|bellend|knobhead|dipstick|numpty|nincompoop|bozo|cockroach`
	// weakInsults insult only with a negative word before them or when
	// aimed at the reader ("you clown", "a brainless clown", not "he is a
	// clown at the circus").
	weakInsults = `clown|pig|rat|worm|creep|freak|coward|liar|troll|slob|brat|fool|joke|failure|disgrace|embarrassment|animal|snake|parasite|leech|psycho|weirdo|nobody|thug`
	// insultAdjectives mark the noun after them as an insult.
	insultAdjectives = `stupid|worthless|pathetic|useless|disgusting|ugly|fat|dumb|brainless|braindead|brain dead|spineless|ignorant|lying|filthy|vile|repulsive|miserable|nasty|greedy|violent|rude|entitled|moronic|dirty|lazy|evil|sick|creepy|blind|spoiled|gutless|fucking|fuckin|sad|cowardly|disgraceful|insufferable|idiotic|retarded|smelly|stinking|obnoxious|despicable|rotten|sorry|bloody|damn|goddamn|clueless|illiterate|pompous|arrogant|incompetent|delusional|pitiful|dense|thick|inbred|deranged|unhinged|hopeless|wretched|loathsome|slimy|sleazy|two-faced|senile|demented|mouth-breathing|knuckle-dragging|low-life|good-for-nothing|ungrateful|whiny|smug|weak|fake`
	// insultFillers may stand between the verb and the insult noun.
	insultFillers = `such|so|a|an|the|one|just|really|truly|all|also|always|still|nothing|but|bunch|of|complete|total|absolute|utter|little|big|old|real|right|proper|massive|huge|bigger|biggest|ultimate|certified|typical|pure|most|such a|total`
	// insultAdverbs intensify an adjective insult ("you are so stupid").
	insultAdverbs = `so|such|really|just|too|fucking|completely|totally|utterly|incredibly|absolutely|truly|very|that|this`
	// personAdjectives insult a person on their own ("she is worthless").
	personAdjectives = `stupid|worthless|pathetic|useless|disgusting|retarded|brainless|braindead|dumb|ugly|repulsive|vile|spineless|moronic|idiotic|gutless|a joke|a failure|a disgrace|an embarrassment|trash|garbage|scum`
	// groupNouns are identity groups targeted by hate; groups adds
	// "<adjective> people" and "these/those <noun>".
	groupNouns = `immigrants|migrants|refugees|asylum seekers|muslims|moslems|jews|jewish people|christians|hindus|sikhs|buddhists|atheists|catholics|arabs|africans|asians|chinese|mexicans|indians|pakistanis|latinos|hispanics|blacks|whites|gypsies|roma|foreigners|gays|lesbians|homosexuals|queers|trans people|transgender people|trannies|women|females|girls|men|males|feminists|liberals|conservatives|democrats|republicans|leftists|the poor|the homeless|the disabled`
	groups     = groupNouns + `|(?:black|white|brown|gay|trans|jewish|muslim|asian|indian|arab|african|disabled|queer|poor|homeless|old|fat|chinese|mexican|autistic) people|(?:these|those) people|(?:these|those) \w+`
	// groupNegatives are hateful predicates about a group.
	groupNegatives = `terrorists|criminals|rapists|thieves|murderers|lazy|stupid|dumb|dirty|filthy|disgusting|evil|inferior|violent|savages|savage|worthless|liars|greedy|untrustworthy|dishonest|sneaky|pedophiles|paedophiles|degenerates|degenerate|mentally ill|sick|freaks|abominations|an abomination|brainwashed|ugly|a burden|the problem|idiots|morons|retarded|retards|too stupid|all the same|subhuman|trash|garbage|scum|a disgrace|the enemy|not welcome|cancer|a cancer|a disease|a plague|parasites|vermin|animals|animal|inbred|primitive|backwards|useless|worthless`
	// dehumanisingNouns deny a group's humanity.
	dehumanisingNouns = `vermin|animals|parasites|cockroaches|roaches|rats|maggots|leeches|savages|subhuman|subhumans|sub-human|sub human|scum|filth|trash|garbage|human garbage|human trash|apes|monkeys|beasts|swine|pigs|dogs|a plague|a disease|a cancer|an infestation|a virus|a pest|pests|property|less than human|not (?:even )?human|not people|an invasive species|invaders|locusts|a swarm`
)

// Pronoun and subject alternations.
const (
	youWord     = `(?:you|u|ya|yu)`
	youAre      = `(?:you(?:'re| are| r|r| were| was)|u r|ur|u are|youre)`
	personSubj  = `(?:you|u|he|she|they|them|him|her|your(?:\s+\w+){1,2}|his(?:\s+\w+){1,2}|their(?:\s+\w+){1,2}|(?:that|this|the)\s+\w+(?:\s+who(?:\s+\w+){1,4})?)`
	groupSubj   = `(?:you|u|he|she|they|them|people like \w+|\w+ like (?:you|u|him|her|them)|(?:those|these)(?:\s+\w+)?\s+people|(?:those|these)\s+\w+|all (?:of )?(?:them|you))`
	objectWords = `(?:you|u|ya|your|ur|yo|him|her|them|his|their|that (?:\w+ )?(?:brat|bitch|bastard|idiot|guy|kid|woman|man|girl|boy))`
	modal       = `(?:'ll| will|'m going to| am going to|'m gonna| am gonna| gonna|'d| would| shall| want to| wanna|'re going to| are going to|'re gonna| are gonna| ma| will definitely| am gonna|'m about to)`
	violence    = `kill|murder|shoot|stab|strangle|choke|hang|lynch|rape|hurt|beat|slit|burn|bury|behead|torture|smash|break|punch|kick|cut|gut|skin|shank|slap|destroy|end|strangle`
)

// insultNoun matches one noun of list, singular or plural.
func insultNoun(list string) string { return `(?:` + list + `)(?:s|es)?\b` }

// repeat matches up to n of words, each followed by spaces or a comma.
func repeat(words string, n int) string {
	return `(?:(?:` + words + `)[\s,]+){0,` + strconv.Itoa(n) + `}`
}

// alt is one pattern of a rule with its anchors: substrings of which
// every match holds one. The pattern runs only on the sentences that hold
// an anchor, since scanning with the regexp is the costly part.
type alt struct {
	anchors []string
	also    []string // if set, the sentence must hold one of these too
	pattern *regexp.Regexp
	// set and alsoSet number anchors and also in the anchor index
	// (alsoSet -1: no also).
	set, alsoSet int
	// wordStart: a match must start a word. The pattern's leading \b is
	// checked in code instead, so that a pattern starting with a literal
	// keeps the regexp's fast literal-prefix scan.
	wordStart bool
	// starts, when set, are the words every match begins with; the pattern
	// is then anchored and tried only where one of them starts a word,
	// instead of at every byte of the sentence.
	starts []string
	// startByte marks the first bytes of starts.
	startByte [256]bool
	// needWords, when set, are words of which every match holds one as a
	// whole word: sentences without any are skipped before the pattern
	// runs.
	needWords []string
	// intent: a match counts only in a sentence with a word of intent
	// (intentPattern), so reports of violence are not threats.
	intent bool
	// filter is the necessary condition on literal text read from
	// pattern (package prefilter): sentences that fail it are skipped
	// before the pattern runs.
	filter *prefilter.Filter
}

// a compiles pattern with anchors, "|"-separated.
func a(anchors, pattern string) alt {
	rest, wordStart := strings.CutPrefix(pattern, `\b`)
	return alt{anchors: strings.Split(anchors, "|"), pattern: regexp.MustCompile(rest), wordStart: wordStart}
}

// startingWith returns al anchored to start at one of starts ("|"-separated
// words; the pattern must begin with a word boundary).
func startingWith(starts string, al alt) alt {
	if !al.wordStart {
		panic("toxicity: anchored pattern without a leading \\b: " + al.pattern.String())
	}
	al.starts = strings.Split(starts, "|")
	for _, w := range al.starts {
		al.startByte[w[0]] = true
	}
	al.pattern = regexp.MustCompile(`^(?:` + al.pattern.String() + `)`)
	return al
}

// needingWord makes al run only on sentences that hold one of words
// ("|"-separated) as a whole word. It must be a necessary condition of
// the pattern; it is much cheaper to test.
func needingWord(words string, al alt) alt {
	al.needWords = strings.Split(words, "|")
	return al
}

// groupSubjWords are words of which every match of groupSubj holds one as
// a whole word (each alternative of groupSubj names one of them, between
// a word boundary and white space).
const groupSubjWords = "you|u|he|she|they|them|him|her|those|these|people"

// anchors indexes the anchors of every alt of rules, built at init.
var anchors = func() *anchorIndex {
	x := &anchorIndex{}
	groupSet := x.add(groupAnchors)
	if x.add(protectedAnchors) != protectedSet || x.add(anchorsOf(reclaimableWords)) != reclaimableSet || x.add(anchorsOf(profaneWords)) != profaneSet {
		panic("toxicity: flag anchor sets out of order")
	}
	for i := range rules {
		for j := range rules[i].alts {
			al := &rules[i].alts[j]
			al.set, al.alsoSet = x.add(al.anchors), -1
			al.filter = prefilter.New(al.pattern)
			switch {
			case al.also == nil:
			case &al.also[0] == &protectedAnchors[0]:
				al.alsoSet = protectedSet
			default:
				al.alsoSet = groupSet
			}
		}
	}
	return x
}()

// Anchor sets registered first, in this order after the group set: the
// protected groups and those of the Flags.
const (
	protectedSet   = 1
	reclaimableSet = 2
	profaneSet     = 3
)

// anchorsOf returns words with the ones shorter than an anchor's 3 bytes
// left out.
func anchorsOf(words []string) []string {
	var out []string
	for _, w := range words {
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

// groupAnchors hold a substring of every match of groups.
var groupAnchors = strings.Split(literals(groupNouns)+"|people|these |those ", "|")

// withGroup makes al run only on sentences that also name a group.
func withGroup(al alt) alt {
	al.also = groupAnchors
	return al
}

// literals returns the literal prefix of each top-level alternative of an
// alternation (up to its first regexp operator), as anchors.
func literals(alternation string) string {
	var out []string
	depth, from := 0, 0
	add := func(item string) {
		end := strings.IndexAny(item, `\(?*+.{[`)
		if end < 0 {
			end = len(item)
		} else if end > 0 && strings.ContainsRune("?*{", rune(item[end])) {
			end-- // the operator applies to the previous character
		}
		lit := strings.TrimSpace(item[:end])
		if lit == "" {
			panic("toxicity: no literal prefix in " + item)
		}
		out = append(out, lit)
	}
	for i := 0; i < len(alternation); i++ {
		switch alternation[i] {
		case '(':
			depth++
		case ')':
			depth--
		case '|':
			if depth == 0 {
				add(alternation[from:i])
				from = i + 1
			}
		}
	}
	add(alternation[from:])
	return strings.Join(out, "|")
}

// rules are checked in order; the first used match decides: the base
// rules, then the group-target constructions of grouphate.go.
var rules = append(baseRules[:len(baseRules):len(baseRules)], groupHateRules...)

// baseRules are the rules about persons and the first group rules.
var baseRules = []rule{
	{category: SelfHarm, negatable: true, alts: []alt{
		a("yourself|urself|yourselves|ur self|your self", `\b(?:kill|hang|shoot|off|hurt|cut|drown|unalive)\s+(?:yourself|urself|yourselves|ur self|your self)\b`),
		a("kys", `\bkys\b`),
		a("bleach", `\b(?:drink|drinks|chug|swallow)\s+(?:some\s+|a\s+glass\s+of\s+)?bleach\b`),
		a("jump", `\bjump\s+(?:off|in front of|from)\s+(?:a|the)\s+(?:bridge|cliff|building|train|roof|bus|balcony|window)\b`),
		a("wrist", `\b(?:slit|cut)\s+(?:your|ur)\s+(?:own\s+)?wrists?\b`),
		a("life|breathing|die|exist", `\b`+youWord+`\s+(?:should|ought to|need to|must)\s+(?:just\s+)?(?:end\s+(?:your|ur)\s+(?:own\s+)?life|stop breathing|die|not exist)\b`),
		a("end it", `\b(?:just|go|so)\s+end it\b`),
		a("still alive", `\bwhy are you still alive\b`),
		a("without you", `\b(?:better|better off)\s+without\s+you\b`),
		a("miss you", `\b(?:nobody|no one)\s+would\s+miss\s+you\b`),
		a("favo", `\bdo\s+(?:us all|us|the world|everyone|everybody|humanity)\s+a\s+favou?r\b(?:\s+\S+){0,4}?\s+(?:and\s+)?(?:die|kill|end|disappear)\b`),
	}},
	{category: DeathWish, negatable: true, alts: []alt{
		startingWith("hope|hoping|wish|wishing|pray|praying", a("hope|hoping|wish|pray", `\b(?:hope|hoping|wish|wishing|pray|praying)\s+(?:that\s+)?`+personSubj+`\s+(?:\S+\s+){0,6}?(?:die|dies|died|dead|drops? dead|rots?|burns?|get(?:s)? (?:cancer|killed|shot|raped|hit by|run over|murdered|stabbed|aids)|chokes?|suffers?)\b`)),
		needingWord(groupSubjWords, a("should|deserve|ought|need|must", `\b`+groupSubj+`\s+(?:all\s+)?(?:should|deserves? to|ought to|needs? to|must|need to)\s+(?:all\s+)?(?:be\s+)?(?:shot|hanged|hung|killed|executed|put down|gassed|exterminated|wiped out|lynched|murdered|burned alive|burnt alive|tortured|beheaded|raped|die|drop dead|rot)\b`)),
		a("bullet", `\bput\s+a\s+bullet\s+(?:in|through)\s+(?:his|her|your|their|ur)\s+(?:head|brain|skull|face)\b`),
		a("dead", `\b(?:better|better off)\s+if\s+`+youWord+`\s+(?:were|was)\s+dead\b`),
		a("better off dead", `\b(?:you|he|she|they)\s+(?:are|is|'re|'s)\s+better off dead\b`),
		a("death", `\bdie\s+(?:a|an)\s+(?:slow|painful|horrible|miserable|agonizing|agonising)\s+death\b`),
		a("die", `(?:^|[.!?]\s*)die[\s,!]+(?:you|u|ya)\b`),
		a("die", `\b(?:go|just|pls|please)\s+(?:\w+\s+)?die\b`),
		a("and die", `\beat\s+shit\s+and\s+die\b`),
		a("die in", `\bdie\s+in\s+a\s+(?:fire|ditch|hole|gutter)\b`),
		a("in hell", `\brot\s+in\s+hell\b`),
	}},
	{category: Threat, negatable: true, alts: []alt{
		startingWith("i|we|i'm|imma|ima", a(violence, `\b(?:i|we|i'm|imma|ima)`+modal+`?\s+(?:\w+\s+){0,2}?(?:`+violence+`)(?:s|ing)?\b(?:\s+\S+){0,5}?\s+`+objectWords+`\b`)),
		startingWith("i|we", a("down", `\b(?:i|we)`+modal+`\s+(?:\w+\s+)?(?:find|hunt|track)\s+(?:you|u|him|her|them)\s+down\b`)),
		startingWith("i|we", a("find", `\b(?:i|we)`+modal+`\s+(?:\w+\s+)?(?:find)\s+(?:you|u|him|her|them)\s+and\b`)),
		a("make", `\bmake\s+(?:you|u|him|her|them)\s+(?:suffer|bleed|pay for|scream)\b`),
		a("know where", `\bi\s+know\s+where\s+(?:you|u|he|she|they|your family)\s+(?:live|lives|sleep|sleeps|work)\b`),
		a("watch your back", `\bwatch\s+your\s+back\b`),
		a("coming for", `\b(?:i'm|i am|we're|we are)\s+coming\s+for\s+(?:you|u|him|her|them)\b`),
		a("dead|die|regret", `\b`+youAre+`\s+(?:so\s+)?(?:dead meat|a dead man|dead when|gonna die|going to die|going to regret|gonna regret)\b`),
		a("eye open", `\bsleep\s+with\s+one\s+eye\s+open\b`),
		a("put", `\bput\s+(?:you|u|him|her|them)\s+in\s+(?:the\s+|a\s+)?(?:hospital|grave|ground|ditch|coffin|wheelchair)\b`),
		a("burn|blow up|torch|firebomb", `\b(?:burn|blow up|torch|firebomb)\s+(?:down\s+)?(?:your|his|her|their)\s+(?:house|car|home|school|office|shop)\b`),
		a("walk again", `\bnever\s+walk\s+again\b`),
		a("show up", `\bshow\s+up\s+at\s+(?:your|his|her|their)\s+(?:door|house|home|work|office|school)\s+with\s+a\s+(?:knife|gun|bat|axe|machete|rifle)\b`),
	}},
	{category: Dehumanisation, alts: []alt{
		withGroup(a(literals(dehumanisingNouns), `\b(?:`+groups+`)\s+(?:are|r|'re|is)\s+`+repeat(`just|nothing|but|more|than|no|better|all|like|worse|filthy|disgusting|dirty|such|literally|basically|simply|only|a|bunch|of|fucking|dumb|stupid|human|mere|nasty`, 5)+`(?:`+dehumanisingNouns+`)\b`)),
		a(literals(dehumanisingNouns), `\b(?:they|them)\s+(?:are|r|'re|is)\s+`+repeat(`just|nothing|but|more|than|no|better|all|like|worse|filthy|disgusting|dirty|such|literally|basically|simply|only|a|bunch|of|fucking|dumb|stupid|human|mere|nasty`, 5)+`(?:`+dehumanisingNouns+`)\b`),
		a("breed like", `\b(?:they|`+groups+`)\s+breed\s+like\s+(?:rats|rabbits|cockroaches|animals|flies)\b`),
	}},
	{category: IdentityHate, alts: []alt{
		withGroup(a(literals(groupNegatives), `\b(?:all\s+)?(?:`+groups+`)(?:\s+\w+){0,4}?\s+(?:are|r|'re)\s+`+repeat(`all|just|so|too|such|naturally|inherently|always|basically|nothing|but|a|bunch|of|fucking|really|the|same|and`, 4)+`(?:`+groupNegatives+`)\b`)),
		withGroup(a("hate|despise|stand|loathe|detest", `\bi\s+(?:hate|despise|can't stand|cannot stand|loathe|detest)\s+(?:all\s+)?(?:`+groups+`)\b`)),
		withGroup(a("go back|banned|deported|get out|kicked out|allowed|steril|locked up|removed|leave", `\b(?:`+groups+`)\s+should\s+(?:all\s+)?(?:\w+\s+)?(?:go back|be banned|be deported|get out|be kicked out|not be allowed|be sterili[sz]ed|be locked up|be removed|leave)\b`)),
		withGroup(a("allowed|let in|wanted", `\bno\s+(?:more\s+)?(?:`+groups+`)\s+(?:should be allowed|allowed|should be let in|wanted)\b`)),
		a("go back", `\bgo\s+back\s+to\s+(?:where|your|their)\s+(?:you|they)?\s*(?:came from|come from|country|own country)\b`),
		a("kitchen", `\b(?:women|girls|females)\s+(?:belong|should stay|should be kept)\s+in\s+the\s+kitchen\b`),
		a("jews", `\bjews\s+(?:control|run|own)\s+(?:the|all|our)\b`),
	}},
	{category: ObsceneAbuse, negatable: true, alts: []alt{
		a("fuc|fuk|fuu|ffu|fck|fk |go f|shut the|get fuck", `\bf+u+c*k+\s+(?:you|u|off|yourself|urself|your|ur|him|her|them|this guy|that guy)\b|\b(?:fck|fuk|fk)\s+(?:you|u|off|yourself|your)\b|\bgo\s+f\w*k\s+(?:yourself|urself|your)\b|\bshut\s+the\s+f\w*\s+up\b|\bget\s+fucked\b`),
		a("stfu", `\bstfu\b`),
		a("suck my", `\bsuck\s+my\s+(?:dick|cock|balls|d)\b`),
		a("eat", `\beat\s+(?:shit|a dick|my shit|a bag of dicks)\b`),
		a("kiss my", `\bkiss\s+my\s+(?:ass|arse)\b`),
		a("up yours", `\bup\s+yours\b`),
		a("screw", `\bscrew\s+(?:you|u|yourself)\b`),
		a("shove it", `\bshove\s+it\s+up\s+(?:your|ur)\s+(?:ass|arse)\b`),
		a("bitch|cunt|twat|asshole|arsehole|motherfucker|dickhead|wanker|prick|slut|whore|shit", `\b`+youWord+`\s+`+repeat(`fucking|stupid|dumb|little|fat|ugly|lazy|dirty|filthy|worthless`, 2)+`(?:bitch|cunt|twat|asshole|arsehole|motherfucker|dickhead|wanker|prick|slut|whore|shit|piece of shit)(?:es|s)?\b`),
		a("fucking", `\bfucking\s+(?:retard|bitch|cunt|idiot|moron|loser|asshole|bastard|whore|slut)\b`),
		a("motherfucker", `\bmotherfucker\b`),
	}},
	{category: Harassment, alts: []alt{
		a("nobody|no one|noone|everyone|everybody", `\b(?:nobody|no one|noone|everyone|everybody)\s+(?:here\s+|(?:at|on|in|from)\s+(?:the\s+|this\s+|your\s+|our\s+)?\w+\s+)?(?:will\s+|would\s+|could\s+)?(?:ever\s+)?(?:likes?|loves?|wants?|cares? about|hates?|laughs? at|dates?|misses|miss)\s+(?:you|u)\b`),
		a("nobody|no one|everyone|everybody", `\b(?:nobody|no one|everyone|everybody)\s+(?:thinks|knows)\s+(?:you|u)(?:'re| are| r)\s+(?:a|an|so)\b`),
		startingWith("post|leak|share|publish|send", a("your|ur ", `\b(?:post|leak|share|publish|send)\s+(?:your|ur)\s+(?:home\s+)?(?:address|number|nudes|photos|pictures|secrets|location)\b`)),
		a("hell", `\b(?:make|turn)\s+(?:your|ur)\s+life\s+(?:a\s+)?(?:living\s+)?hell\b`),
		a("ruin|destroy", `\b(?:ruin|destroy)\s+(?:you|u|your life|your career|your reputation)\b`),
		a("make sure", `\b(?:i'll|i will|i'm going to|i am going to|we'll|we will)\s+make\s+sure\s+(?:you|u)\s+(?:lose|never|regret|get fired)\b`),
		a("keep", `\b(?:i'll|i will|i'm going to|i am going to)\s+keep\s+(?:messaging|texting|calling|following|emailing|harassing|stalking)\s+(?:you|u)\b`),
		a("crawl back", `\bcrawl\s+back\s+(?:into|under|to)\b`),
		a("show your face", `\bashamed\s+to\s+show\s+(?:your|ur)\s+face\b`),
		a("left you|left u ", `\b(?:no\s+)?wonder\s+(?:your|ur)\s+\w+\s+left\s+(?:you|u)\b`),
		a("secrets", `\btell\s+everyone\s+(?:your|ur)\s+secrets\b`),
		a("hate you|hate u|ashamed of you", `\b(?:your|ur)\s+(?:parents|family|mom|mother|dad|father|friends|kids)\s+(?:all\s+)?(?:hate|are ashamed of)\s+(?:you|u)\b`),
	}},
	{category: Insult, alts: []alt{
		// "you idiot", "you are a worthless idiot", "you clown"
		startingWith("you|u|ya|yu|ur|youre", a(literals(strongInsults+`|`+weakInsults), `\b(?:`+youAre+`|`+youWord+`)\s+`+repeat(insultAdjectives+`|`+insultFillers, 4)+insultNoun(strongInsults+`|`+weakInsults))),
		// "X is a moron", "they are all idiots"
		startingWith("is|are|was|were|'s|'re|r|be|being", a(literals(strongInsults), `\b(?:is|are|was|were|'s|'re|r|be|being)\s+`+repeat(insultAdjectives+`|`+insultFillers, 4)+insultNoun(strongInsults))),
		// "X is a brainless clown"
		startingWith("is|are|was|were|'s|'re|r|be|being", a(literals(weakInsults), `\b(?:is|are|was|were|'s|'re|r|be|being)\s+`+repeat(insultFillers, 3)+`(?:`+insultAdjectives+`)[\s,]+`+repeat(insultAdjectives+`|`+insultFillers, 2)+insultNoun(weakInsults))),
		// "you are so stupid", "he's so dumb"
		startingWith("you|u|ur|youre|he|she", a(literals(personAdjectives), `\b(?:`+youAre+`|(?:he|she)(?:'s| is| was))\s+`+repeat(insultAdverbs, 2)+`(?:`+personAdjectives+`)\b`)),
		a("what a", `\bwhat\s+(?:a|an)\s+`+repeat(insultAdjectives, 2)+insultNoun(strongInsults)),
		a("like", `\b(?:`+strongInsults+`|`+weakInsults+`)(?:s|es)?\s+like\s+(?:you|u|him|her|them|that|this)\b`),
		startingWith("that|this", a("that|this", `\b(?:that|this)\s+`+repeat(insultAdjectives, 2)+`(?:idiot|moron|imbecile|cretin|dumbass|retard|loser|scumbag|asshole|bastard|bitch|cunt|twat|dickhead|douchebag|wanker|halfwit|dimwit)\b`)),
		a("suck", `\b`+youWord+`\s+(?:really\s+|fucking\s+|just\s+)?suck\b`),
		// "you are the dumbest person I know"
		startingWith("you|u|ur|youre|he|she|they|these|those", a("dumbest|stupidest|ugliest|worst|most|biggest", `\b(?:`+youAre+`|(?:he|she)(?:'s| is| was)|(?:they|these|those)(?:'re| are| were))\s+(?:the|one of the)\s+(?:dumbest|stupidest|ugliest|worst|most pathetic|most useless|most disgusting|most annoying|biggest (?:idiot|loser|moron|joke|failure))\b`)),
	}},
}
