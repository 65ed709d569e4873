package pii

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// PERSON. Presidio finds names with a spaCy NER model; we have none, so the
// recognizer looks for runs of one to four capitalised words (middle
// initials allowed) and scores them by what it knows:
//
//	first word a known given name, two or more words:                0.85
//	last word a known surname, two or more words:                      0.75
//	"First M. Last" (a middle initial between two words):              0.75
//	first word a known given name, alone:                              0.7
//	lower-case known given name + known surname ("olga smith"):        0.75
//	known surname alone:                                               0.45
//	unknown capitalised words, two or more:                            0.4
//	unknown capitalised word, alone:                                   0.35
//
// Cues add 0.35 (capped at 1): a name word among the five words before
// ("name", "called", "Mr", "patient", ...; the recognizer's context), an
// honorific, a relation or a job title right before ("Frau", "Señora",
// "my kid", "songwriter", "Signed,"), "I'm"/"I am" right before, or a
// speech verb right after ("... said"). A run holding a known given name
// after its first word starts there ("Producer James Sparks"). A run
// right before an organisation word ("Russell Investments", "Balefire
// Global") or holding a place prefix ("San Jose", "Fort Worth") is not a
// name. Words of commonWords never take part in a name: they are
// capitalised at the start of sentences, in titles and in organisation and
// place names. Names are looked up lower-cased, without diacritics and
// without a possessive "'s".

//go:embed names.txt
var namesFile string

//go:embed census_given.txt
var censusGivenFile string

//go:embed census_surnames.txt.gz
var censusSurnamesGz []byte

// givenNames is the set of names.txt and census_given.txt, folded.
var givenNames = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, 6000)
	for _, file := range []string{namesFile, censusGivenFile} {
		for _, line := range strings.Split(file, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "#") && !commonWords[line] && !placeWords[line] {
				m[foldName(line)] = true
			}
		}
	}
	return m
})

// surnames is the set of census_surnames.txt.gz (1990 US Census surnames
// that are not lower-case English words), less commonWords and words that
// mostly end place names.
var surnames = sync.OnceValue(loadSurnames)

// loadSurnames builds the surname set from the embedded list.
func loadSurnames() map[string]bool {
	m := make(map[string]bool, 90000)
	eachLine(gunzipString(censusSurnamesGz, "embedded surname list"), func(w string) {
		if w != "" && !commonWords[w] && !placeWords[w] && !placeEndings[w] {
			m[w] = true
		}
	})
	return m
}

// commonWords are lower-case words that end or break a name.
var commonWords = wordSet(`
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
irish scottish welsh british canadian australian russian chinese japanese korean indian dutch swedish norwegian
danish finnish polish greek turkish egyptian african mexican brazilian argentine jewish christian muslim catholic
`)

// orgWords, capitalised right after a run of capitalised words, make the
// run part of an organisation, product or building name.
var orgWords = wordSet(`
inc llc ltd plc gmbh ag sa corp corporation company co group holdings partners associates investments capital
insurance finance financial bank trust fund industries enterprises ventures labs laboratories media foods motors
airlines airways pharmaceuticals pharma energy software networks systems solutions services technologies technology
consulting foundation records studios productions pictures publishing press bioscience biosciences therapeutics
global international brothers bros orchestra band university college school institute academy hospital clinic
church cathedral stadium arena airport station bridge river lake mountains island islands valley county province
district street avenue road park hall center centre museum theatre theater hotel mall tower building library
festival awards award prize cup league championship trophy magazine weekly daily times news post journal review
gazette tribune herald telegraph express show tour album records mine mines canyon garden gardens creek harbor
harbour forest desert glacier peak dam reservoir canal castle palace abbey cemetery prison railway highway
`)

// placePrefixes inside a run make it a place ("San Jose", "Fort Worth",
// "Los Angeles").
var placePrefixes = wordSet(`san santa santo são sao saint sainte sankt ste sta los las fort port puerto porto mount mt
lake cape cabo isla ilha rio villa vila ciudad nueva nuevo novo nova costa sri hong point great`)

// placeWords are names that are mostly places (countries, big cities, US
// states); they count neither as given names nor as surnames.
var placeWords = wordSet(`france italy spain germany england ireland scotland wales poland russia china india japan
korea brazil chile peru cuba canada mexico egypt israel jordan kenya ghana nigeria sudan chad niger mali georgia
armenia albania austria belgium holland denmark norway sweden finland iceland greece turkey syria lebanon iran iraq
libya morocco tunisia algeria ethiopia somalia uganda zambia angola congo cyprus malta estonia latvia lithuania
hungary romania bulgaria serbia croatia bosnia slovenia slovakia ukraine belarus moldova portugal argentina bolivia
colombia ecuador uruguay paraguay venezuela panama honduras nicaragua guatemala jamaica haiti philippines indonesia
malaysia thailand vietnam cambodia laos burma nepal bhutan pakistan afghanistan mongolia australia asia africa europe
america london paris berlin madrid rome vienna moscow tokyo dublin boston chicago dallas houston denver phoenix
atlanta seattle detroit memphis orlando miami austin florida virginia carolina dakota texas arizona nevada montana
indiana alabama tennessee kentucky vermont maine oregon idaho utah washington lincoln victoria sydney britain
`)

// placeEndings are surnames that mostly end place names ("Hong Kong",
// "Puerto Rico", "New Jersey"); they do not count as surnames.
var placeEndings = wordSet(`kong rico aires lanka leone arabia zealand vegas angeles francisco diego jose antonio paso
york jersey orleans hampshire mexico guinea verde rica salvador domingo lucia marino helena tome kitts verde lumpur
delhi bay beach springs falls heights hills city ville town field`)

// honorifics, relations and job titles that, right before a capitalised
// word, mark it as a person's name. Multilingual honorifics are here
// rather than among the context words because most are short words with
// other senses ("pan", "don", "fr").
var nameCues = wordSet(`
mr mrs ms miss mx dr prof sir madam mister dame herr frau fräulein monsieur madame mme mlle mademoiselle señor señora
señorita senor senora senorita sr sra srta don doña dona senhor senhora signor signora sig dott dottore dottoressa
pan pani panna dhr mevr mevrouw meneer hr fru fr gospodin gospodja sayın sheikh rabbi imam reverend rev pastor
father sister brother uncle aunt auntie cousin nephew niece grandma grandpa grandmother grandfather mom mum dad
mother son daughter wife husband kid kids child boyfriend girlfriend fiancé fiancée partner friend colleague boss
nurse officer detective agent coach judge senator governor mayor producer director singer songwriter actor actress
author writer poet painter ceo founder cofounder chairman chairwoman manager employee dear signed sincerely regards
cheers`)

// speechVerbs right after a run mark it as a person's name ("Liviana
// Palerma explained").
var speechVerbs = wordSet(`said says told asked explained wrote replied added noted stated recalled admitted argued
insisted whispered shouted laughed smiled`)

// initialNonNames are words that precede a letter without being a given
// name ("Vitamin D Deficiency", "Type A Personality").
var initialNonNames = wordSet(`vitamin type plan grade class section part group level phase stage hepatitis channel
building block gate terminal platform row car team model series unit room exhibit appendix figure table schedule
article title form category division zone area sector route highway interstate option version formula`)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

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
	particle   bool // a lower-case name particle ("van", "ten") inside a run
}

// personFinder holds the state of one findPersons scan.
type personFinder struct {
	text     string
	given    map[string]bool
	surnames map[string]bool
	span     []nameToken
	out      []candidate
	// orgRuns are the starts of runs dropped because an organisation word
	// ends or follows them ("Williamson Orchestra").
	orgRuns []int
}

func findPersons(text string) []candidate {
	f := personFinder{text: text, given: givenNames(), surnames: surnames()}
	// prevLower is the last lower-case known given name, for "olga smith".
	prevLower := -1
	prevLowerEnd := -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += size
			continue
		}
		start := i
		end := scanWord(text, i)
		i = end
		if unicode.IsLower(r) {
			f.lowerCaseWord(start, end, &prevLower, &prevLowerEnd)
		} else {
			prevLower = -1
		}
		tok, ok := classifyNameWord(text, start, end)
		if !ok {
			if f.joinsParticle(start, end) {
				f.span = append(f.span, nameToken{start: start, end: end, particle: true})
				continue
			}
			f.flush(start, end)
			continue
		}
		if len(f.span) > 0 && !adjacent(text, f.span[len(f.span)-1].end, start) || len(f.span) == 4 {
			f.flush(-1, -1)
		}
		if tok.initial && i < len(text) && text[i] == '.' {
			tok.end = i + 1
			i++
		}
		f.span = append(f.span, tok)
	}
	f.flush(-1, -1)
	f.coordinate()
	return f.out
}

// lowerCaseWord handles a lower-case word: a known given name is remembered,
// and a known surname right after one makes a name ("olga smith").
func (f *personFinder) lowerCaseWord(start, end int, prevLower, prevLowerEnd *int) {
	w := f.text[start:end]
	if commonWords[w] {
		*prevLower = -1
		return
	}
	if *prevLower >= 0 && f.text[*prevLowerEnd:start] == " " && (inFolded(f.surnames, w) || surnameShaped(nameKey(w))) {
		f.out = append(f.out, candidate{start: *prevLower, end: end, score: 0.75})
		*prevLower = -1
		return
	}
	// A middle initial keeps the given name before it ("wanda j. kravchenko").
	if *prevLower >= 0 && end-start == 1 && end < len(f.text) && f.text[end] == '.' && f.text[*prevLowerEnd:start] == " " {
		*prevLowerEnd = end + 1
		return
	}
	if len(w) >= 3 && inFolded(f.given, w) {
		*prevLower, *prevLowerEnd = start, end
		// Alone, a lower-case given name needs a cue ("tracy: hi",
		// "my kid nina", "roberto's daughter").
		if nameCues[previousWord(f.text, start)] || possessiveRelation(f.text, end) || speakerLabel(f.text, start, end) || selfIntroduced(f.text, start) {
			f.out = append(f.out, candidate{start: start, end: end, score: 0.35 + contextBoost})
		}
		return
	}
	*prevLower = -1
}

// flush scores the current run of capitalised words and empties it.
// nextStart and nextEnd give the word that broke the run (-1 when the run
// ended otherwise).
func (f *personFinder) flush(nextStart, nextEnd int) {
	span := f.span
	f.span = f.span[:0]
	text := f.text
	// Trailing initials and particles are not part of the name.
	for len(span) > 0 && (span[len(span)-1].initial || span[len(span)-1].particle) {
		span = span[:len(span)-1]
	}
	if len(span) == 0 {
		return
	}
	// An organisation word right after the run ("Russell Investments"),
	// or a place prefix inside it ("San Jose"), makes it no name.
	lastWord := text[span[len(span)-1].start:span[len(span)-1].end]
	if len(span) > 1 && orgWords[strings.ToLower(lastWord)] {
		f.orgRuns = append(f.orgRuns, span[0].start)
		return
	}
	if nextStart >= 0 && adjacent(text, span[len(span)-1].end, nextStart) {
		next := text[nextStart:nextEnd]
		if r, _ := utf8.DecodeRuneInString(next); unicode.IsUpper(r) && orgWords[strings.ToLower(next)] {
			f.orgRuns = append(f.orgRuns, span[0].start)
			return
		}
	}
	for _, t := range span {
		if !t.initial && placePrefixes[strings.ToLower(text[t.start:t.end])] {
			return
		}
	}
	// A job title or relation starting the run is a cue ("Producer
	// Liviana Palerma"); a known given name inside a run that does not
	// start with one starts the name ("Film Director James Sparks").
	// Cues before the run count for a name found inside it ("I'm Quarto
	// Angelo").
	cued := selfIntroduced(text, span[0].start) || nameCues[previousWord(text, span[0].start)]
	if len(span) > 1 && !span[0].initial && inLower(nameCues, text[span[0].start:span[0].end]) {
		span = span[1:]
		cued = true
	}
	if !inFolded(f.given, withoutPossessive(text[span[0].start:span[0].end])) {
		for k, t := range span {
			if k > 0 && !t.initial && !t.particle && inFolded(f.given, withoutPossessive(text[t.start:t.end])) {
				span = span[k:]
				break
			}
		}
	}
	if len(span) == 0 || span[0].initial || span[0].particle {
		return
	}
	words, initials, particle := 0, false, false
	for k, t := range span {
		switch {
		case t.initial:
			initials = initials || k > 0
		case t.particle:
			particle = particle || nameParticles[text[t.start:t.end]]
		default:
			words++
		}
	}
	first := nameKey(text[span[0].start:span[0].end])
	last := nameKey(text[span[len(span)-1].start:span[len(span)-1].end])
	var score float64
	switch {
	case f.given[first] && words >= 2:
		score = 0.85
	case (f.surnames[last] || surnameShaped(last)) && words >= 2:
		score = 0.75
	case initials && words >= 2 && !initialNonNames[first]:
		score = 0.75
	case particle && words >= 2:
		score = 0.75
	case len(span) == 2 && words == 2 && accentedRun(text, span):
		score = 0.7
	case f.given[first]:
		score = 0.7
	case f.surnames[last] || surnameShaped(last):
		score = 0.45
	case words >= 2:
		score = 0.4
	default:
		score = 0.35
	}
	start, end := span[0].start, span[len(span)-1].end
	known := f.given[first] || f.surnames[last] || surnameShaped(last)
	if cued || nameCues[previousWord(text, start)] || possessiveRelation(text, end) ||
		(words >= 2 || f.given[first]) && speechVerbs[nextWordLower(text, end)] || (f.given[first] || f.surnames[last]) && speakerLabel(text, start, end) ||
		known && (workNouns[nextWordLower(text, end)] || exPrefixed(text, start)) || len(span) == 1 && vocative(text, start, end) {
		score = min(score+contextBoost, maxScore)
	}
	f.out = append(f.out, candidate{start: start, end: end, score: score})
}

// accentedRun reports whether a word of the two-word run holds a Latin
// letter outside ASCII ("Dravék Oszlányi", "Jurij Kovačič"): English
// capitalised pairs rarely do, names from other languages often (longer
// runs are as often bands and firms: "Blue Öyster Cult", "Troller
// Veículos Especiais"). Runs holding a known place do not count.
func accentedRun(text string, span []nameToken) bool {
	accented := false
	for _, t := range span {
		w := text[t.start:t.end]
		if placeWords[nameKey(w)] || placeEndings[nameKey(w)] {
			return false
		}
		for _, r := range w {
			if r >= utf8.RuneSelf && unicode.Is(unicode.Latin, r) {
				accented = true
				break
			}
		}
	}
	return accented
}

// nameParticles join the capitalised words around them into one name
// ("Ludwig van Beethoven", "Osama bin Laden", "Anne ter Horst");
// particleFollowers join only after another particle ("van der").
// Romance particles (de, da, del, la) are left out: they join place and
// organisation names as often ("Plaza de Mayo").
var (
	nameParticles     = wordSet(`van von ten ter bin ibn`)
	particleFollowers = wordSet(`der den de het`)
)

// joinsParticle reports whether the lower-case word text[start:end]
// continues the current run as a name particle: it directly follows a
// capitalised word or another particle, and a capitalised word or a
// particle follows it.
func (f *personFinder) joinsParticle(start, end int) bool {
	if len(f.span) == 0 || len(f.span) >= 3 || !adjacent(f.text, f.span[len(f.span)-1].end, start) {
		return false
	}
	w := f.text[start:end]
	last := f.span[len(f.span)-1]
	if !nameParticles[w] && !(last.particle && particleFollowers[w]) {
		return false
	}
	if last.initial && !last.particle && len(f.span) == 1 {
		return false // "A van Driver"
	}
	if end+1 >= len(f.text) || f.text[end] != ' ' {
		return false
	}
	next, _ := utf8.DecodeRuneInString(f.text[end+1:])
	if unicode.IsUpper(next) {
		return true
	}
	nextEnd := scanWord(f.text, end+1)
	return particleFollowers[f.text[end+1:nextEnd]]
}

// workNouns after a known name ("the Hemingway novel", "the Kennedy
// family") mark it as a person.
var workNouns = wordSet(`novel novels book books memoir memoirs biography autobiography poem poems essay
essays painting paintings portrait sculpture symphony sonata concerto opera song songs album albums film films movie
movies administration presidency family household estate`)

// coordinate handles names in a coordinated list. A known name (given
// name, census surname or surname shape), and every item of a list with
// two known names, gets the cue boost in a list of three or more ("our
// founders: Talbeck, Kowalczyk and Whitfield") and in a pair that is the
// subject of a plural verb ("Kowalczyk and Whitfield were ..."); a pair
// otherwise reads as often as a firm named after its founders ("Rohm and
// Haas", "Abercrombie and Fitch"). A list after a place preposition ("in
// Trinidad and Tobago") gets no boost, and a list of single words ending in
// an organisation ("Davis, Reynolds and Williamson Orchestra") is no name
// at all.
func (f *personFinder) coordinate() {
	out := f.out
	for i := 0; i < len(out); {
		j := i
		for j+1 < len(out) && f.joined(out[j], out[j+1].start) != "" {
			j++
		}
		next := j + 1
		if f.orgList(out[i : j+1]) {
			for k := i; k <= j; k++ {
				out[k].score = 0
			}
			i = next
			continue
		}
		// The list ends at its last "and" (in "south Texas, Gonzalez or
		// ..." the comma joins no list).
		for j > i && f.joined(out[j-1], out[j].start) == "," {
			j--
		}
		n := j - i + 1
		if n >= 2 && !placePrepositions[previousWord(f.text, out[i].start)] &&
			(n >= 3 && !singularVerbs[previousWord(f.text, out[i].start)] || pluralFollowers[nextWordLower(f.text, out[j].end)]) {
			known := 0
			for k := i; k <= j; k++ {
				if f.knownName(out[k]) {
					known++
				}
			}
			// Two known names make the other items names too ("Quorvax,
			// Hannah and Anthony").
			for k := i; k <= j; k++ {
				if (known >= 2 || f.knownName(out[k])) && out[k].score < DefaultThreshold {
					out[k].score = min(out[k].score+contextBoost, maxScore)
				}
			}
		}
		i = next
	}
	// Drop the zeroed runs.
	kept := out[:0]
	for _, c := range out {
		if c.score > 0 {
			kept = append(kept, c)
		}
	}
	f.out = kept
}

// joined returns how the run c is joined to a run starting at next: "and"
// (" and ", ", and ", " & "), "," (", ") or "" (not a list).
func (f *personFinder) joined(c candidate, next int) string {
	if next <= c.end {
		return ""
	}
	switch f.text[c.end:next] {
	case " and ", ", and ", " & ":
		return "and"
	case ", ":
		return ","
	}
	return ""
}

// orgList reports whether the runs of list are single words joined to an
// organisation run that follows them ("Davis, Reynolds and Williamson
// Orchestra").
func (f *personFinder) orgList(list []candidate) bool {
	for _, c := range list {
		if strings.IndexByte(f.text[c.start:c.end], ' ') >= 0 {
			return false
		}
	}
	last := list[len(list)-1]
	for _, s := range f.orgRuns {
		if f.joined(last, s) != "" {
			return true
		}
	}
	return false
}

// pluralFollowers after a pair make it a plural subject ("Kowalczyk and
// Whitfield were"); singularVerbs before a list make it one thing ("is Rohm
// and Haas").
var (
	pluralFollowers = wordSet(`were are have both each together`)
	singularVerbs   = wordSet(`is was does has`)
)

// placePrepositions before a list make it a list of places.
var placePrepositions = wordSet(`in at from to into across near between through throughout within`)

// knownName reports whether the run of c starts with a known given name or
// ends in a census surname or a surname shape.
func (f *personFinder) knownName(c candidate) bool {
	s := f.text[c.start:c.end]
	first, last := s, s
	if i := strings.IndexByte(s, ' '); i >= 0 {
		first, last = s[:i], s[strings.LastIndexByte(s, ' ')+1:]
	}
	fk, lk := nameKey(first), nameKey(last)
	return f.given[fk] || f.surnames[lk] || surnameShaped(lk)
}

// surnameSuffixes end surnames of many languages: Slavic (-ović, -ski,
// -ska, -ov, -ova, -enko, -wicz), Nordic (-sson, -sen, -dottir, -ström),
// Finnish (-nen), Baltic (-auskas, -aitis), Georgian (-shvili, -dze),
// Armenian (-yan), Greek (-poulos, -akis, -idis), Turkish (-oglu),
// Romanian (-escu, -eanu).
var surnameSuffixes = []string{"ovic", "evic", "ovich", "evich", "vych", "wicz", "ski", "sky", "skiy", "ska", "skaya", "cki", "cka",
	"ov", "ova", "ev", "eva", "enko", "chuk", "czuk", "czyk", "shvili", "dze", "yan", "sson", "sen", "dottir", "strom", "qvist",
	"quist", "inen", "anen", "onen", "auskas", "aitis", "poulos", "akis", "idis", "oglu", "escu", "eanu"}

// surnameSuffixFalseFriends are words with a surname suffix that are not
// surnames.
var surnameSuffixFalseFriends = wordSet(`alaska nebraska husky whisky geneva moldova casanova villanova bratislava kosovo
chosen risky frisky pesky dusky kiev lev prev rev nov ova eva bova`)

// surnameShaped reports whether the folded word key ends in a surname
// suffix after a stem of at least three letters ("szczepanska",
// "arvidsson"); for -ski/-ska/-sky the stem must end in a consonant.
func surnameShaped(key string) bool {
	if surnameSuffixFalseFriends[key] {
		return false
	}
	for _, suf := range surnameSuffixes {
		if len(key) < len(suf)+3 || !strings.HasSuffix(key, suf) {
			continue
		}
		if suf == "ski" || suf == "ska" || suf == "sky" {
			if strings.IndexByte("aeiouy", key[len(key)-len(suf)-1]) >= 0 {
				continue
			}
		}
		return true
	}
	return false
}

// relationNouns after a possessive mark a person ("Asya's kid").
var relationNouns = wordSet(`kid kids son sons daughter daughters wife husband mother father mom mum dad brother brothers sister
sisters uncle aunt cousin nephew niece grandson granddaughter grandmother grandfather boyfriend girlfriend fiancé fiancée
widow widower parents children child family baby killer killers murder murderer funeral wedding birthday grave`)

// possessiveRelation reports whether the name ending at end is followed by
// "'s" and a relation noun.
func possessiveRelation(text string, end int) bool {
	rest := text[end:]
	switch {
	case strings.HasPrefix(rest, "'s "), strings.HasPrefix(rest, "’s "):
	default:
		// The name token may hold the "'s" already.
		if !(end >= 2 && (text[end-2:end] == "'s") || end >= 4 && text[end-4:end] == "’s") || !strings.HasPrefix(rest, " ") {
			return false
		}
	}
	rest = rest[strings.IndexByte(rest, ' ')+1:]
	n := 0
	for n < len(rest) && rest[n] >= 'a' && rest[n] <= 'z' {
		n++
	}
	return relationNouns[rest[:n]]
}

// exPrefixed reports whether the name at start follows a word with the
// prefix "ex-" ("ex-Beatle Starr", "ex-Senator Whitfield"): a former member
// or holder of a role.
func exPrefixed(text string, start int) bool {
	if start < 5 || text[start-1] != ' ' {
		return false
	}
	i := start - 1
	for i > 0 && !isSpaceByte(text[i-1]) {
		i--
	}
	w := text[i : start-1]
	return len(w) > 3 && (w[:3] == "ex-" || w[:3] == "Ex-")
}

// vocativeFollowers after "Name, " make a request to the person named
// ("Quorvax, can I please speak to your boss?").
var vocativeFollowers = wordSet(`can could would will may do did have are please`)

// notVocatives are capitalised words that open a sentence before a comma
// without naming anyone ("Sorry, can you ...", "Guys, could you ...").
var notVocatives = wordSet(`sorry well yes yeah yep yup nope okay alright also now so then anyway anyways however meanwhile
besides still again first second third next finally lastly listen look wait guys folks everyone everybody anyone someone
somebody team people friends ladies gentlemen kids children hey hello hi thanks ah oh um uh wow great cool sure fine
perfect right excellent awesome nice good bad morning evening afternoon tonight honey darling dude buddy bro man boss
certainly absolutely indeed agreed understood noted question quick update reminder note important urgent ps btw fyi`)

// vocative reports whether the one-word run text[start:end] opens the text
// or a line and addresses someone: a comma, then a request ("Quorvax, can
// I ...", "Ilse, please ...").
func vocative(text string, start, end int) bool {
	if start > 0 && text[start-1] != '\n' || !strings.HasPrefix(text[end:], ", ") {
		return false
	}
	w := text[start:end]
	if inLower(notVocatives, w) || inLower(nameCues, w) || strings.HasSuffix(w, "ly") {
		return false
	}
	return vocativeFollowers[nextWordLower(text, end)]
}

// speakerLabel reports whether the name at text[start:end] opens a line
// and is followed by ':' (a chat transcript's speaker, "tracy: hi").
func speakerLabel(text string, start, end int) bool {
	if end >= len(text) || text[end] != ':' {
		return false
	}
	i := start
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i == 0 || text[i-1] == '\n'
}

// nameKey is the lookup form of a name word: lower-cased, without
// diacritics and without a possessive "'s".
func nameKey(w string) string {
	return foldName(withoutPossessive(w))
}

// withoutPossessive is w without a possessive "'s".
func withoutPossessive(w string) string {
	for _, s := range []string{"'s", "’s", "'S", "’S"} {
		if strings.HasSuffix(w, s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

// shortWord bounds the words inFolded and inLower lower-case on the stack.
const shortWord = 32

// inFolded reports set[foldName(w)] without allocating for a short ASCII
// word (whose fold is its ASCII lower case).
func inFolded(set map[string]bool, w string) bool {
	var buf [shortWord]byte
	if b := lowerBytes(w, buf[:]); b != nil {
		return set[string(b)]
	}
	return set[foldName(w)]
}

// inLower reports set[strings.ToLower(w)] without allocating for a short
// ASCII word.
func inLower(set map[string]bool, w string) bool {
	var buf [shortWord]byte
	if b := lowerBytes(w, buf[:]); b != nil {
		return set[string(b)]
	}
	return set[strings.ToLower(w)]
}

// foldName lower-cases w and strips its diacritics ("Sörös" → "soros");
// ASCII words are only lower-cased.
func foldName(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(w)
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(w) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ł' || r == 'Ł':
			b.WriteByte('l')
		case r == 'ø' || r == 'Ø':
			b.WriteByte('o')
		case r == 'ß':
			b.WriteString("ss")
		case r == 'æ' || r == 'Æ':
			b.WriteString("ae")
		case r == 'đ' || r == 'Đ' || r == 'ð' || r == 'Ð':
			b.WriteByte('d')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// previousWord returns the lower-cased word before offset start, skipping
// spaces, a comma, a colon or a line break ("Signed,\nAnna" gives
// "signed"); "" when there is none.
func previousWord(text string, start int) string {
	i := start
	for i > 0 && strings.IndexByte(" \t\n\r,:.", text[i-1]) >= 0 && start-i < 4 {
		i--
	}
	end := i
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsLetter(r) {
			break
		}
		i -= size
	}
	if i == end || end-i > 20 {
		return ""
	}
	return strings.ToLower(text[i:end])
}

// nextWordLower returns the lower-case word right after offset end (one
// space or ", " between), "" when the next word is not lower-case.
func nextWordLower(text string, end int) string {
	rest := text[end:]
	rest = strings.TrimPrefix(rest, "'s")
	rest = strings.TrimPrefix(rest, ",")
	if !strings.HasPrefix(rest, " ") {
		return ""
	}
	rest = rest[1:]
	n := 0
	for n < len(rest) && rest[n] >= 'a' && rest[n] <= 'z' {
		n++
	}
	return rest[:n]
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
	if !hasLower || inLower(commonWords, w) {
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
