package pii

import (
	"regexp"
	"strconv"
	"strings"
)

// Entities beyond the patterned types and names: the rest of what
// Presidio reports (its NER model's LOCATION, ORGANIZATION, NRP and
// DATE_TIME, and its AGE, TITLE and ZIP_CODE labels). One scan over the
// tokens of the text (tokens.go) applies these rules:
//
//	LOCATION      a place of the gazetteer (GeoNames towns of 1,000+, regions,
//	              countries): capitalised and no English word 0.85; an English
//	              word ("Nice", "Reading") or a lower-case town only after a place
//	              cue ("in", "moved to", "live in") 0.75; a lower-case country,
//	              region or city of 100,000+ 0.75; a town-shaped unknown word
//	              ("Port Ashdown", "Millerton") 0.75; an unknown capitalised word
//	              after a strong place cue ("we moved here from Kenosha") 0.85
//	ORGANIZATION  capitalised words before a legal form or an organisation word
//	              ("Quintrell Dynamics Ltd", "Allstate Insurance Group") 0.85;
//	              hyphenated surnames ("Baxter-Holt") 0.75; the words after an
//	              employment cue ("I work for", "employed by") 0.85
//	NRP           nationalities, religious and political groups (and plurals)
//	              0.85; an English word among them ("polish", "catholic") only
//	              after "am", "is", "a", ... 0.75
//	DATE_TIME     dates in numbers or words, weekdays, times, a month after "in",
//	              years after "in", "since", "of", ... 0.85
//	AGE           "67-year-old", "aged 38", "turned 41", "I'm 34." 0.85 / 0.75
//	TITLE         a job title after "work as", "job title is", "I am a" 0.85 / 0.75
//	ZIP_CODE      a postcode after "zip", "postcode", "postal code", ... 0.85
//	PROPER_NOUN   a capitalised word inside a sentence that is neither an English
//	              word nor on any list (a person, place or organisation we cannot
//	              tell apart: "the gender of Vehbija") 0.7
//
// Scores at or above the default threshold 0.7 count for has_pii.

// The entity types of entities.go.
const (
	Location     = "LOCATION"
	Organization = "ORGANIZATION"
	NRP          = "NRP"
	DateTime     = "DATE_TIME"
	Age          = "AGE"
	Title        = "TITLE"
	ZipCode      = "ZIP_CODE"
	ProperNoun   = "PROPER_NOUN"
)

func entitiesRecognizer() recognizer {
	return recognizer{entity: ProperNoun, find: findEntities}
}

// entityScan holds the state of one findEntities call.
type entityScan struct {
	text string
	toks []token
	lx   *lexicon
	// flags are the lexicon flags of the tokens (0 for numbers).
	flags []uint32
	out   []candidate
	buf   [64]byte // scratch for multi-word keys
	// covered marks the tokens inside an entity already found, so that the
	// proper-noun rule does not report them again.
	covered []bool
}

func findEntities(text string) []candidate {
	tb := tokenPool.Get().(*tokenBuf)
	defer tokenPool.Put(tb)
	toks := tokenize(text, tb)
	if len(toks) == 0 {
		return nil
	}
	lx := lexicons()
	flags := tb.flags[:0]
	covered := tb.covered[:0]
	for k := range toks {
		f := uint32(0)
		if !toks[k].num {
			f = lx.wordFlags(toks[k].key)
		}
		flags = append(flags, f)
		covered = append(covered, false)
	}
	tb.flags, tb.covered = flags, covered
	s := &entityScan{text: text, toks: toks, lx: lx, flags: flags, covered: covered}
	for i := 0; i < len(toks); i++ {
		s.at(i)
		s.cued(i)
	}
	return s.out
}

func (s *entityScan) add(typ string, from, to int, score float64) {
	s.out = append(s.out, candidate{start: s.toks[from].start, end: s.toks[to].end, score: score, typ: typ})
	for k := from; k <= to; k++ {
		s.covered[k] = true
	}
}

// key returns the key of token i, "" out of range.
func (s *entityScan) key(i int) string {
	if i < 0 || i >= len(s.toks) {
		return ""
	}
	return s.toks[i].key
}

// sep returns the text between tokens i-1 and i ("" at the ends).
func (s *entityScan) sep(i int) string {
	if i <= 0 || i >= len(s.toks) {
		return ""
	}
	return s.text[s.toks[i-1].end:s.toks[i].start]
}

// glued reports whether tokens i-1 and i touch or are joined by sep only.
func (s *entityScan) joined(i int, sep string) bool {
	return i > 0 && i < len(s.toks) && s.sep(i) == sep
}

// prevWords reports whether the n tokens before i have the keys of words,
// in order, each separated by spaces only (or an apostrophe for "m", "s").
func (s *entityScan) prevWords(i int, words ...string) bool {
	n := len(words)
	if i-n < 0 {
		return false
	}
	for k := 0; k < n; k++ {
		t := i - n + k
		if s.toks[t].key != words[k] {
			return false
		}
		if sp := s.sep(t + 1); strings.TrimSpace(sp) != "" && sp != "'" && sp != "’" {
			return false
		}
	}
	return true
}

// english reports whether the key is an English word (or a common word of
// the name rules).
func (s *entityScan) english(key string) bool {
	return s.lx.words[key]&(wEnglish|wCommon) != 0
}

func (s *entityScan) at(i int) {
	t := &s.toks[i]
	if t.num {
		s.number(i)
		return
	}
	if s.covered[i] {
		return
	}
	if f := s.flags[i]; f&(wEnglish|wCommon) != 0 && f&wHot == 0 {
		// An English word: only an organisation after an employment cue,
		// a capitalised organisation or a job title can start here.
		switch {
		case t.lower && !s.workCue(i):
			if f&wHonorific != 0 {
				s.honorific(i)
			} else if i > 0 && s.flags[i-1]&wTitleCue != 0 {
				s.title(i)
			}
		default:
			_ = s.honorific(i) || s.org(i) || s.title(i) || s.nrp(i) || s.place(i)
		}
		return
	}
	switch {
	case s.month(i), s.weekday(i), s.timeWords(i), s.ageWords(i):
	case s.org(i), s.title(i), s.nrp(i), s.place(i), s.cuedName(i):
	default:
		s.properNoun(i)
	}
}

// Dates, times and ages.

var monthKeys = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var weekdayKeys = wordSet(`monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays`)
var weekdayAbbr = wordSet(`mon tue tues wed thu thur thurs fri sat sun`)

// yearCues before a four-digit year make it a date ("since 1998", "Act of 2001").
var yearCues = wordSet(`in since during of from until till by before after year founded born circa ca c around early late mid
summer winter spring autumn fall between and to established est class jan feb mar apr may jun jul aug sep sept oct nov dec
january february march april june july august september october november december`)

// monthAloneCues before a month name without a day make it a date ("in March").
var monthAloneCues = wordSet(`in since until till by last next this early late mid of during from before after every each`)

// ordinalSuffix reports whether key is st, nd, rd or th.
func ordinalSuffix(key string) bool { return key == "st" || key == "nd" || key == "rd" || key == "th" }

func atoiSmall(s string) int {
	if len(s) > 4 {
		return -1
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

// number handles a digit token: dates, times, years and ages.
func (s *entityScan) number(i int) {
	t := s.toks[i]
	n := atoiSmall(t.key)
	digits := len(t.key)
	next := s.key(i + 1)
	// yyyy-mm-dd, d/m/y, d.m.y, with one separator kind.
	if i+2 < len(s.toks) && s.toks[i+1].num && s.toks[i+2].num {
		sep := s.sep(i + 1)
		mid, last := len(s.toks[i+1].key), len(s.toks[i+2].key)
		if (sep == "-" || sep == "/" || sep == ".") && s.sep(i+2) == sep && mid <= 2 &&
			(digits == 4 && last <= 2 || digits <= 2 && (last == 2 || last == 4)) {
			s.add(DateTime, i, s.timeAfter(i+2), 0.85)
			return
		}
	}
	// hh:mm, h am/pm.
	if digits <= 2 && n <= 24 {
		if s.joined(i+1, ":") && s.toks[i+1].num && len(s.toks[i+1].key) == 2 && atoiSmall(s.toks[i+1].key) < 60 {
			end := i + 1
			if s.joined(end+1, ":") && s.toks[end+1].num {
				end++
			}
			if k := s.key(end + 1); k == "am" || k == "pm" || k == "a" || k == "p" {
				end++
			}
			s.add(DateTime, i, end, 0.85)
			return
		}
		if (next == "am" || next == "pm" || (next == "a" || next == "p") && s.key(i+2) == "m") && n >= 1 && n <= 12 {
			s.add(DateTime, i, i+1, 0.85)
			return
		}
		if next == "o" && s.key(i+2) == "clock" {
			s.add(DateTime, i, i+2, 0.85)
			return
		}
	}
	// A day before a month: "12 March 2024", "the 21st of June", "14 Oct".
	if digits <= 2 && n >= 1 && n <= 31 {
		j := i + 1
		if ordinalSuffix(s.key(j)) && s.joined(j, "") {
			j++
		}
		if s.key(j) == "of" {
			j++
		}
		if _, ok := monthKeys[s.key(j)]; ok && !s.toks[j].num && (s.key(j) != "may" || s.toks[j].title) {
			end := j
			if k := j + 1; k < len(s.toks) && s.toks[k].num && len(s.toks[k].key) == 4 {
				end = k
			}
			s.add(DateTime, i, end, 0.85)
			return
		}
	}
	// Ages: "67-year-old", "12 years old", "8 months old", "34 yo".
	if digits <= 3 && n <= 130 && s.ageAfter(i) {
		return
	}
	// A year after a cue, or a decade ("the 1970s").
	if digits == 4 && n >= 1900 && n <= 2099 && !s.joined(i, ".") && !s.joined(i+1, ".") && !s.joined(i+1, ",") || digits == 4 && n >= 1900 && n <= 2099 && s.joined(i+1, ",") && !(i+1 < len(s.toks) && s.toks[i+1].num) {
		if yearCues[s.key(i-1)] && !(i > 0 && s.toks[i-1].num) || next == "s" && s.joined(i+1, "") {
			s.add(DateTime, i, i, 0.85)
			return
		}
	}
	// Ages after a cue: "aged 38", "turned 41", "I'm 34.", "The applicant, 52, has".
	if digits <= 3 && n <= 120 && s.ageBefore(i) {
		s.add(Age, i, i, 0.85)
	}
}

// timeAfter extends a date ending at token end with a time right after it.
func (s *entityScan) timeAfter(end int) int {
	j := end + 1
	if s.key(j) == "at" {
		j++
	}
	if j+1 < len(s.toks) && s.toks[j].num && s.joined(j+1, ":") && s.toks[j+1].num {
		end = j + 1
		if s.joined(end+1, ":") && s.toks[end+1].num {
			end++
		}
	}
	return end
}

var timeWordKeys = wordSet(`half quarter noon midnight`)

var numberWords = wordSet(`one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred`)

var decadeWords = wordSet(`teens twenties thirties forties fifties sixties seventies eighties nineties`)

// ageAfter adds an AGE for a number (token i, or a number word ending at
// i) followed by "year(s) old", "months old", "yo", "y/o", "years of age".
func (s *entityScan) ageAfter(i int) bool {
	j := i + 1
	switch s.key(j) {
	case "year", "years", "yr", "yrs", "month", "months", "week", "weeks", "day", "days":
		if k := s.key(j + 1); k == "old" {
			start := i
			for start > 0 && s.joined(start, "-") && numberWords[s.key(start-1)] {
				start--
			}
			s.add(Age, start, j+1, 0.85)
			return true
		}
		if s.key(j+1) == "of" && s.key(j+2) == "age" {
			s.add(Age, i, j+2, 0.85)
			return true
		}
	case "yo":
		s.add(Age, i, j, 0.85)
		return true
	case "y":
		if s.joined(j+1, "/") && s.key(j+1) == "o" {
			s.add(Age, i, j+1, 0.85)
			return true
		}
	}
	return false
}

// ageCueWords right before a number make it an age.
var ageCueWords = wordSet(`aged age turned turn turns turning`)

// ageBefore reports whether the number at i is an age by what precedes
// and follows it.
func (s *entityScan) ageBefore(i int) bool {
	prev := s.key(i - 1)
	next := s.key(i + 1)
	nextIsEnd := i+1 >= len(s.toks) || strings.ContainsAny(s.sep(i+1), ".!?;\n") || next == "and" || next == "today" || next == "now" || next == "yesterday" ||
		next == "when" || next == "but" || next == "this" || next == "next" || next == "last" || next == "in" || next == "on" || next == "years"
	switch {
	case prev == "aged" || prev == "age" && (strings.Contains(s.sep(i), ":") || s.key(i-2) == "my" || s.key(i-2) == "the"):
		return true
	case prev == "of" && s.key(i-2) == "age":
		return true
	case ageCueWords[prev] && prev != "age" && nextIsEnd:
		return true
	case (prev == "m" || prev == "am" || prev == "re" || prev == "are" || prev == "is" || prev == "s" || prev == "was" || prev == "both" || prev == "only" || prev == "just") && nextIsEnd:
		// "I'm 34 and", "we are both 31", "she was only 22 when".
		return !(i > 1 && (s.toks[i-2].num))
	case strings.TrimSpace(s.sep(i)) == "," && strings.TrimSpace(s.sep(i+1)) == "," && i > 0 && !s.toks[i-1].num && i+1 < len(s.toks) && !s.toks[i+1].num:
		// "The applicant, 52, has".
		return true
	}
	return false
}

// ageWords handles "twenty-six years old", "turned nineteen", "in his
// forties".
func (s *entityScan) ageWords(i int) bool {
	k := s.key(i)
	if numberWords[k] {
		end := i
		for end+1 < len(s.toks) && s.joined(end+1, "-") && numberWords[s.key(end+1)] {
			end++
		}
		if s.ageAfterWords(i, end) {
			return true
		}
		if ageCueWords[s.key(i-1)] && s.key(i-1) != "age" {
			s.add(Age, i, end, 0.85)
			return true
		}
		switch s.key(i - 1) {
		case "m", "am", "is", "s", "are", "re", "was", "both", "only", "just":
			next := s.key(end + 1)
			if end+1 >= len(s.toks) || strings.ContainsAny(s.sep(end+1), ".!?;,\n") || next == "and" || next == "when" || next == "but" || next == "now" || next == "today" {
				s.add(Age, i, end, 0.75)
				return true
			}
		}
		return false
	}
	if decadeWords[k] {
		j := i - 1
		if m := s.key(j); m == "early" || m == "mid" || m == "late" {
			j--
		}
		if p := s.key(j); (p == "his" || p == "her" || p == "their" || p == "my" || p == "your") && s.key(j-1) == "in" {
			s.add(Age, j, i, 0.85)
			return true
		}
	}
	return false
}

func (s *entityScan) ageAfterWords(start, end int) bool {
	j := end + 1
	switch s.key(j) {
	case "year", "years", "month", "months":
		if s.key(j+1) == "old" {
			s.add(Age, start, j+1, 0.85)
			return true
		}
	}
	return false
}

// month handles a month name: with a day or a year, or after "in".
func (s *entityScan) month(i int) bool {
	k := s.key(i)
	if _, ok := monthKeys[k]; !ok {
		return false
	}
	t := s.toks[i]
	short := len(k) <= 4 && k != "june" && k != "july"
	if k == "may" || k == "march" || k == "sat" || short {
		// Words with other senses need a capital, and a day or a year.
		if !t.title && !t.upper {
			return false
		}
	}
	// "March 12", "March 12th, 2024", "March 2024".
	if j := i + 1; j < len(s.toks) && s.toks[j].num && (s.joined(j, " ") || s.joined(j, ". ") || s.joined(j, ".")) {
		n := atoiSmall(s.key(j))
		end := -1
		switch {
		case len(s.key(j)) <= 2 && n >= 1 && n <= 31:
			end = j
			if ordinalSuffix(s.key(j+1)) && s.joined(j+1, "") {
				end++
			}
			if y := end + 1; y < len(s.toks) && s.toks[y].num && len(s.key(y)) == 4 && (s.joined(y, ", ") || s.joined(y, " ")) {
				end = y
			}
		case len(s.key(j)) == 4 && n >= 1000:
			end = j
		}
		if end >= 0 {
			s.add(DateTime, i, end, 0.85)
			return true
		}
	}
	if short || k == "may" {
		return false
	}
	if monthAloneCues[s.key(i-1)] || s.key(i-1) == "of" {
		s.add(DateTime, i, i, 0.75)
		return true
	}
	return false
}

// weekday handles weekday names (and "Sat 14 Oct").
func (s *entityScan) weekday(i int) bool {
	k := s.key(i)
	t := s.toks[i]
	if weekdayKeys[k] {
		s.add(DateTime, i, i, 0.85)
		return true
	}
	if weekdayAbbr[k] && (t.title || t.upper) && i+1 < len(s.toks) && s.toks[i+1].num {
		s.add(DateTime, i, i+1, 0.85)
		return true
	}
	return false
}

// timeWords handles "half past eight", "quarter to six", "at noon".
func (s *entityScan) timeWords(i int) bool {
	k := s.key(i)
	switch {
	case (k == "half" || k == "quarter") && (s.key(i+1) == "past" || s.key(i+1) == "to") && (numberWords[s.key(i+2)] || i+2 < len(s.toks) && s.toks[i+2].num):
		s.add(DateTime, i, i+2, 0.85)
		return true
	case (k == "noon" || k == "midnight") && (s.key(i-1) == "at" || s.key(i-1) == "after" || s.key(i-1) == "before"):
		s.add(DateTime, i, i, 0.75)
		return true
	case numberWords[k] && s.key(i+1) == "o" && s.key(i+2) == "clock":
		s.add(DateTime, i, i+2, 0.85)
		return true
	}
	return false
}

// Organisations.

// legalForms after a name make it a company whatever the name's words.
var legalForms = wordSet(`inc llc ltd plc gmbh ag sa corp corporation co llp lp bv nv oy ab as srl spa pty kg kgaa sarl sas ug oyj asa`)

// orgSuffixes after capitalised words that are not all English words make
// an organisation ("Allstate Insurance Group", "Brindle Capital").
var orgSuffixes = wordSet(`group holdings partners associates investments capital insurance finance financial bank trust fund
industries enterprises ventures labs laboratories media foods motors airlines airways pharmaceuticals pharma energy software
networks systems solutions services technologies technology consulting analytics logistics dynamics aerospace biotech
bioscience biosciences therapeutics foundation records studios productions publishing press global international brothers
bros consultancy agency institute university college hospital clinic academy`)

// workCues end an employment phrase: the organisation follows.
func (s *entityScan) workCue(i int) bool {
	p := s.key(i - 1)
	pp := s.key(i - 2)
	switch p {
	case "for", "at", "with":
		switch pp {
		case "work", "works", "worked", "working", "job", "position", "contractor", "consultant", "intern", "internship", "interview", "account", "employed", "volunteer", "volunteers":
			return true
		}
	case "by":
		return pp == "employed" || pp == "hired" || pp == "acquired" || pp == "owned" || pp == "off" && s.key(i-3) == "laid"
	case "joined":
		return true
	case "from":
		return pp == "offer" || pp == "recruiter" || pp == "letter" || pp == "is" || pp == "am" || pp == "m"
	case "is", "was":
		return pp == "employer" || pp == "company" || pp == "landlord"
	case "employer", "company", "organisation", "organization", "firm":
		return strings.Contains(s.sep(i), ":")
	case "of":
		return pp == "founder" || pp == "ceo" || pp == "customers" || pp == "customer" || pp == "client" || pp == "employee"
	}
	return false
}

func (s *entityScan) org(i int) bool {
	t := s.toks[i]
	// Capitalised run (1-4 words, "&", "and", commas and hyphens inside)
	// ending in a legal form or an organisation word.
	if t.title || t.upper || s.workCue(i) || t.lower && !s.english(t.key) && len(t.key) >= 4 {
		end, anyUnknown := i, !s.english(t.key)
		for j := i + 1; j < len(s.toks) && j <= i+6; j++ {
			sep := s.sep(j)
			tj := s.toks[j]
			if tj.num || !(sep == " " || sep == "-" || sep == ", " || sep == " & ") {
				break
			}
			if legalForms[tj.key] || orgSuffixes[tj.key] {
				if (t.lower || !t.sentStart || anyUnknown || legalForms[tj.key]) && (tj.title || tj.upper || t.lower && tj.lower) &&
					(legalForms[tj.key] || anyUnknown || s.workCue(i)) && (!t.lower || anyUnknown || s.workCue(i)) {
					s.add(Organization, i, j, 0.85)
					return true
				}
				break
			}
			if tj.key == "and" && sep == " " {
				continue
			}
			if !(tj.title || tj.upper || t.lower && tj.lower && (s.workCue(i) || !s.english(tj.key))) {
				break
			}
			end = j
			anyUnknown = anyUnknown || !s.english(tj.key)
		}
		_ = end
	}
	// "Baxter-Holt": two capitalised words joined by a hyphen, not both English.
	if i+1 < len(s.toks) && s.joined(i+1, "-") && !s.toks[i+1].num && (t.title && s.toks[i+1].title || t.lower && s.toks[i+1].lower && s.workCue(i)) &&
		len(t.key) >= 3 && len(s.key(i+1)) >= 3 && !(s.english(t.key) && s.english(s.key(i+1))) && s.lx.places[t.key+" "+s.key(i+1)] == 0 {
		s.add(Organization, i, i+1, 0.75)
		return true
	}
	// The words right after an employment cue.
	if s.workCue(i) {
		switch {
		case (t.title || t.upper) && !commonWords[t.key] && t.key != "the" && t.key != "a":
			end := i
			for end+1 < len(s.toks) && s.joined(end+1, " ") && (s.toks[end+1].title || s.toks[end+1].upper) && end < i+3 {
				end++
			}
			s.add(Organization, i, end, 0.85)
			return true
		case t.lower && !s.english(t.key) && len(t.key) >= 4 && s.lx.places[t.key] == 0:
			s.add(Organization, i, i, 0.75)
			return true
		}
	}
	return false
}

// Job titles.

// jobHeads end a job title.
var jobHeads = wordSet(`clerk operator driver specialist consultant technician engineer manager assistant administrator officer
analyst nurse teacher worker cleaner writer designer developer scientist therapist inspector mechanic supervisor coordinator
director agent attendant installer repairer programmer accountant auditor planner pathologist architect hygienist keyer
underwriter adjuster paralegal cook packager electrician plumber carpenter barista cashier receptionist secretary librarian
pharmacist physician surgeon dentist lawyer attorney translator interpreter editor journalist reporter photographer artist
musician chef baker butcher farmer fisherman miner welder machinist fitter labourer laborer porter guard janitor caretaker
housekeeper nanny tutor lecturer professor researcher economist statistician psychologist counselor counsellor estimator
broker trader banker teller recruiter representative salesperson salesman saleswoman merchandiser buyer dispatcher courier
roofer painter plasterer glazier tiler mason bricklayer surveyor geologist chemist biologist physicist veterinarian
technologist sonographer radiographer paramedic midwife aide caregiver carer steward stewardess pilot sailor soldier
firefighter detective sheriff constable warden ranger forester gardener landscaper groundskeeper florist tailor seamstress
hairdresser barber stylist beautician cosmetologist trainer coach instructor educator principal registrar bookkeeper
controller treasurer executive ceo cfo cto coo founder proprietor foreman superintendent contractor handyman locksmith
upholsterer jeweler jeweller optician optometrist audiologist dietitian nutritionist scheduler lineman repairman
serviceman programmer tester strategist marketer copywriter animator illustrator producer curator archivist conservator
sorter loader picker assembler fabricator setter tender polisher sander grinder cutter finisher inspector examiner
investigator appraiser assessor collector processor preparer transcriptionist therapist medic dispatcher attendant`)

// titleCue reports whether a job title may start at token i: after "work
// as (a)", "job title is", "occupation:", "I am a", ... The result is the
// score a title there gets (0 when no cue).
func (s *entityScan) titleCue(i int) float64 {
	j := i - 1
	if k := s.key(j); k == "a" || k == "an" {
		j--
	}
	p := s.key(j)
	switch p {
	case "as":
		switch s.key(j - 1) {
		case "work", "works", "worked", "working", "employed", "hired", "trained", "qualified", "serve", "serves", "served", "job", "started", "retired":
			return 0.85
		}
		if j < i-1 {
			return 0.75 // "as a"
		}
	case "is", "was", ":":
		if k := s.key(j - 1); k == "title" || k == "occupation" || k == "position" || k == "role" || k == "job" || k == "profession" {
			return 0.85
		}
		if j < i-1 {
			return 0.75 // "she is a"
		}
	case "am", "m", "re", "are", "s", "became", "become":
		if j < i-1 {
			return 0.75
		}
	case "title", "occupation", "position", "profession":
		return 0.85
	case "to":
		if s.key(j-1) == "promoted" {
			return 0.85
		}
	case "for":
		if s.key(j-1) == "applied" || s.key(j-1) == "applying" {
			return 0.85
		}
	}
	if strings.Contains(s.sep(i), ":") {
		if k := s.key(i - 1); k == "occupation" || k == "title" || k == "position" || k == "job" || k == "profession" || k == "role" {
			return 0.85
		}
	}
	return 0
}

func (s *entityScan) title(i int) bool {
	score := s.titleCue(i)
	if score == 0 {
		return false
	}
	// Up to 7 words (commas, "and", hyphens inside) ending in a job head
	// right before the end of the phrase; after a comma only a listed job
	// noun ends it ("court, municipal, and license clerk", not "a central
	// element, incorporating a modern and minimalist style").
	comma := false
	for j := i; j < len(s.toks) && j <= i+6; j++ {
		tj := s.toks[j]
		if tj.num {
			return false
		}
		if j > i {
			sep := s.sep(j)
			if !(sep == " " || sep == "-" || sep == ", " || sep == " / ") {
				return false
			}
			comma = comma || sep == ", "
		}
		if jobHeads[tj.key] || !comma && (strings.HasSuffix(tj.key, "ist") && len(tj.key) > 5 || strings.HasSuffix(tj.key, "ician")) {
			if next := s.key(j + 1); next == "" || !jobHeads[next] {
				s.add(Title, i, j, score)
				return true
			}
		}
	}
	return false
}

// Nationalities, religious and political groups.

func (s *entityScan) nrp(i int) bool {
	t := s.toks[i]
	best := -1
	key := append(s.buf[:0], t.key...)
	for j := i; ; {
		f := s.lx.nrp[string(key)]
		if f&1 != 0 {
			best = j
		}
		if f&2 == 0 || j+1 >= len(s.toks) || !(s.joined(j+1, " ") || s.joined(j+1, "-")) {
			break
		}
		j++
		key = append(append(key, ' '), s.toks[j].key...)
	}
	if best < 0 {
		return false
	}
	eng := s.english(t.key) && best == i
	switch {
	case (t.title || t.upper) && !t.sentStart && !eng, (t.title || t.upper) && !eng, t.lower && !eng:
		s.add(NRP, i, best, 0.85)
		return true
	}
	// "polish", "catholic", "Democrat" at a sentence start: after "am",
	// "is", "a", "as a" only.
	switch s.key(i - 1) {
	case "am", "m", "is", "s", "are", "re", "was", "were", "a", "an", "devout", "practising", "practicing", "registered", "lifelong", "staunch":
		s.add(NRP, i, best, 0.75)
		return true
	}
	if (t.title || t.upper) && !t.sentStart {
		s.add(NRP, i, best, 0.75)
		return true
	}
	return false
}

// Places.

// placeCues right before a lower-case or ambiguous place name.
var placeCues = wordSet(`in to from near at outside around across through into via towards toward visit visiting visited
between reach leave left`)

// strongPlaceCues end phrases after which an unknown capitalised word is a
// place: "I live in", "moved here from", "based in".
func (s *entityScan) strongPlaceCue(i int) bool {
	p, pp := s.key(i-1), s.key(i-2)
	switch p {
	case "in":
		switch pp {
		case "live", "lives", "living", "lived", "based", "born", "up", "located", "stay", "staying", "stayed", "holiday", "vacation", "m", "am", "reside", "resides", "settled", "raised", "situated", "headquartered":
			return true
		}
	case "to":
		switch pp {
		case "moved", "move", "moving", "relocated", "relocating", "travelling", "traveling", "travel", "flight", "trip", "emigrated", "immigrated", "deliver", "ship", "fly", "flew", "drove", "posted":
			return true
		}
	case "from":
		switch pp {
		case "moved", "here", "come", "comes", "came", "emigrated", "immigrated", "relocated", "originally", "hail", "hails":
			return true
		}
	case "visit", "visiting", "visited":
		return true
	}
	if strings.Contains(s.sep(i), ":") {
		switch p {
		case "city", "town", "location", "where", "country", "place", "region", "state", "province", "birthplace", "residence":
			return true
		}
	}
	return false
}

// townPrefixes and townSuffixes shape invented or unknown town names.
var townPrefixes = wordSet(`north south east west new lake port fort mount saint st`)

var townSuffixes = []string{"ville", "town", "ton", "burgh", "borough", "bury", "haven", "mouth", "port", "stad", "furt", "chester", "fort", "side", "shire", "field", "ford", "land", "view", "berg", "burg"}

func (s *entityScan) place(i int) bool {
	t := s.toks[i]
	// The longest gazetteer match starting here.
	best, flags := -1, uint8(0)
	key := append(s.buf[:0], t.key...)
	for j := i; ; {
		f := s.lx.places[string(key)]
		if f&^placePrefix != 0 {
			best, flags = j, f
		}
		if f&placePrefix == 0 || j+1 >= len(s.toks) || j+1-i >= maxPlaceWords {
			break
		}
		sep := s.sep(j + 1)
		if !(sep == " " || sep == "-" || sep == "'" || sep == ". " || sep == "’") || s.toks[j+1].num {
			break
		}
		j++
		key = append(append(key, ' '), s.toks[j].key...)
	}
	capital := t.title || t.upper
	if best >= 0 && len(t.key) >= 3 {
		eng := true
		for k := i; k <= best; k++ {
			if s.flags[k]&wEnglish == 0 {
				eng = false
				break
			}
		}
		cued := placeCues[s.key(i-1)] || s.strongPlaceCue(i) || strings.HasPrefix(s.sep(best+1), ", ") && best+1 < len(s.toks) && s.lx.places[s.key(best+1)]&(placeRegion|placeCountry) != 0
		big := flags&(placeCountry|placeRegion|placeBigCity) != 0
		switch {
		case capital && !eng && (!t.sentStart || big || cued || best > i || len(t.key) >= 5):
			s.add(Location, i, best, 0.85)
			return true
		case capital && eng && !t.sentStart && (cued || big && !s.inTitleRun(i, best)):
			s.add(Location, i, best, 0.75)
			return true
		case t.lower && !eng && (big || cued) && len(t.key) >= 4:
			s.add(Location, i, best, 0.75)
			return true
		}
	}
	if t.lower && placeCues[s.key(i-1)] && !s.english(t.key) && townShaped(t.key) {
		s.add(Location, i, i, 0.75)
		return true
	}
	if !capital || s.english(t.key) {
		return false
	}
	// Town-shaped names ("Port Ashdown", "Millerton") and unknown
	// capitalised words after a strong place cue.
	if townPrefixes[t.key] && i+1 < len(s.toks) && s.joined(i+1, " ") && s.toks[i+1].title && !s.english(s.key(i+1)) {
		s.add(Location, i, i+1, 0.75)
		return true
	}
	if !t.sentStart && townShaped(t.key) {
		s.add(Location, i, i, 0.75)
		return true
	}
	if s.strongPlaceCue(i) && !t.inner {
		end := i
		for end+1 < len(s.toks) && end < i+2 && s.joined(end+1, " ") && (s.toks[end+1].title || s.toks[end+1].upper) && !s.english(s.key(end+1)) {
			end++
		}
		s.add(Location, i, end, 0.85)
		return true
	}
	return false
}

// inTitleRun reports whether tokens from..to sit in a run of capitalised
// words (a heading or a name: "Further Reading", "Mobile Phone Plans").
func (s *entityScan) inTitleRun(from, to int) bool {
	if p := from - 1; p >= 0 && (s.toks[p].title || s.toks[p].upper) && (!s.toks[p].sentStart || !placeStartStop[s.toks[p].key]) && s.joined(from, " ") {
		return true
	}
	return to+1 < len(s.toks) && (s.toks[to+1].title || s.toks[to+1].upper) && s.joined(to+1, " ")
}

// townShaped reports whether key ends in a town suffix after 3+ letters.
func townShaped(key string) bool {
	for _, suf := range townSuffixes {
		if len(key) > len(suf)+2 && strings.HasSuffix(key, suf) {
			return true
		}
	}
	return false
}

// honorificKeys before a word make it a surname, whatever its case
// ("dr. laurentiu", "ms. boululia zaefix").
var honorificKeys = wordSet(`mr mrs ms mx dr prof miss mister madam herr frau sra sr mme mlle`)

// honorific reports an honorific right before a name as a TITLE, as
// Presidio labels it ("Dr." of "Dr. Marsh", "mrs" of "mrs okafor").
func (s *entityScan) honorific(i int) bool {
	t := s.toks[i]
	if s.flags[i]&wHonorific == 0 || t.key == "madam" || i+1 >= len(s.toks) || s.toks[i+1].num || !(t.title || t.upper || t.lower) {
		return false
	}
	if sep := s.sep(i + 1); sep != " " && sep != ". " {
		return false
	}
	// A name follows: capitalised, or no English word ("dr and" is a drive).
	if n := s.toks[i+1]; !(n.title || n.upper) && s.flags[i+1]&(wEnglish|wCommon) != 0 {
		return false
	}
	end := s.toks[i].end
	if end < len(s.text) && s.text[end] == '.' {
		end++
	}
	s.out = append(s.out, candidate{start: t.start, end: end, score: 0.85, typ: Title})
	return false // the name after it is still looked at
}

// greetingKeys before a comma-separated word make it a name being
// addressed ("happy birthday, giedre!", "thanks, Vendra!").
var greetingKeys = wordSet(`hi hello hey dear thanks thank birthday bye goodbye congratulations congrats cheers morning evening night`)

// slangWords are lower-case words missing from the English list that
// follow "I'm" or "this is" without being names.
var slangWords = wordSet(`gonna wanna gotta tryna kinda sorta lemme gimme dunno outta alright ok okay sooo pls plz thx lol omg`)

// requestWords open a question or request after a name being addressed.
var requestWords = wordSet(`are can could would will do did have please is was you`)

// sentenceVerbs after a capitalised word opening a sentence make it the
// subject's name.
var sentenceVerbs = wordSet(`is was has had said says will would can could and wrote told asked lives lived works worked`)

// cuedName finds a name in any case that a cue right before it marks:
// an honorific, a greeting with a comma, "I'm", "this is", "my name is",
// "call me".
func (s *entityScan) cuedName(i int) bool {
	t := s.toks[i]
	if len(t.key) < 3 || t.num || s.english(t.key) || slangWords[t.key] {
		return false
	}
	next := s.key(i + 1)
	if t.lower {
		switch {
		case len(next) == 1 && i+2 < len(s.toks) && (s.joined(i+1, " ") && (s.joined(i+2, ". ") || s.joined(i+2, " "))) &&
			s.toks[i+2].lower && len(s.key(i+2)) >= 3 && !s.english(s.key(i+2)):
			// "naraen s. oyelaran", "codey m ross".
			s.add(Person, i, i+2, 0.75)
			return true
		case s.joined(i+1, "-") && i+1 < len(s.toks) && s.toks[i+1].lower && len(next) >= 3 && !s.english(next):
			// "lindqvist-fitzwilliam".
			s.add(Person, i, i+1, 0.7)
			return true
		case speechVerbs[next] && s.joined(i+1, " "):
			// "breran said".
			s.add(Person, i, i, 0.75)
			return true
		case t.sentStart && strings.HasPrefix(s.sep(i+1), ",") && requestWords[next]:
			// "thaevun, are you coming".
			s.add(Person, i, i, 0.75)
			return true
		}
	}
	if t.title && t.sentStart && len(t.key) >= 4 && s.joined(i+1, " ") && sentenceVerbs[next] && !t.inner {
		// "Shovda is very reliable", "Luiza is from Xignite".
		s.add(ProperNoun, i, i, 0.7)
		return true
	}
	end := i
	if j := i + 1; j < len(s.toks) && s.joined(j, " ") && !s.toks[j].num && !s.english(s.key(j)) && len(s.key(j)) >= 3 && (t.lower == s.toks[j].lower) {
		end = j
	}
	prev := s.key(i - 1)
	sep := s.sep(i)
	switch {
	case honorificKeys[prev] && (sep == " " || sep == ". "):
		s.add(Person, i, end, 0.85)
		return true
	case greetingKeys[prev] && strings.HasPrefix(sep, ",") || greetingKeys[prev] && (prev == "hi" || prev == "hello" || prev == "hey" || prev == "dear") && sep == " ":
		s.add(Person, i, end, 0.75)
		return true
	case prev == "m" && (s.key(i-2) == "i") || prev == "am" && s.key(i-2) == "i" || prev == "is" && (s.key(i-2) == "this" || s.key(i-2) == "name") ||
		prev == "me" && s.key(i-2) == "call" || prev == "s" && s.key(i-2) == "it":
		if t.lower || t.title {
			s.add(Person, i, end, 0.75)
			return true
		}
	}
	return false
}

// properNoun reports a capitalised word inside a sentence that is neither
// an English word nor on any list.
func (s *entityScan) properNoun(i int) {
	t := s.toks[i]
	if !t.title || t.sentStart || t.inner || len(t.key) < 3 || s.english(t.key) {
		return
	}
	// Not part of a file name, handle, URL or code identifier.
	if t.start > 0 && strings.IndexByte("@#/._\\$<{[=", s.text[t.start-1]) >= 0 {
		return
	}
	if t.end < len(s.text) && strings.IndexByte("@/_\\(=>}]", s.text[t.end]) >= 0 {
		return
	}
	if t.end+1 < len(s.text) && s.text[t.end] == '.' && s.text[t.end+1] >= 'a' && s.text[t.end+1] <= 'z' {
		return
	}
	s.add(ProperNoun, i, i, 0.7)
}

// Zip codes and address shapes found by regular expressions at cues.

var zipCueRe = regexp.MustCompile(`^(?i)(?:zip(?:\s?code)?|post\s?code|postal\s+code|post\s+code|postleitzahl|plz|code\s+postal|c[oó]digo\s+postal|cep|cap|cp|postnummer|postinumero|pin\s?code)\b(?:\s*(?:is|was|:|#|number|no\.?|on\s+file|to|=)){0,3}\s*`)

var zipShapeRe = regexp.MustCompile(`^(?i:[a-z]{1,2}\d[a-z\d]?\s?\d[a-z]{2}\b|[a-z]\d[a-z]\s?\d[a-z]\d\b|\d{4}\s?[a-z]{2}\b|\d{3}\s\d{2}\b|\d{2}-\d{3}\b|\d{4}-\d{3}\b|\d{5}-\d{4}\b|\d{3,6}\b)`)

var (
	militaryRe = regexp.MustCompile(`^(?i)(?:apo|fpo|dpo)\s+(?:aa|ae|ap)\s+\d{5}\b|^(?i:psc|unit|cmr)\s+\d{3,5},?\s+box\s+\d{2,5}\b`)
	frenchRe   = regexp.MustCompile(`^(?i)\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|chemin|all[ée]e|place|quai|impasse|route|cours|passage)\s+(?:(?:de\s+la|de\s+l'|du|des|de|d'|la|le|saint-|sainte-)\s*)?\p{L}[\p{L}'-]+`)
)

// zipCueKeys, militaryKeys and frenchKeys are the tokens at which the
// regular expressions of zip codes, military and French addresses run.
var (
	zipCueKeys   = wordSet(`zip zipcode post postcode postal postleitzahl plz code codigo cep cap cp postnummer postinumero pin`)
	militaryKeys = wordSet(`apo fpo dpo psc unit cmr`)
	frenchKeys   = wordSet(`rue avenue boulevard bd chemin allee place quai impasse route cours passage`)
)

// cued runs the regular expressions anchored at token i when it is one of
// their cue words.
func (s *entityScan) cued(i int) {
	t := s.toks[i]
	if s.flags[i]&wRegexCue == 0 {
		return
	}
	rest := s.text[t.start:]
	if zipCueKeys[t.key] {
		if m := zipCueRe.FindStringIndex(rest); m != nil && m[0] == 0 {
			if loc := zipShapeRe.FindStringIndex(rest[m[1]:]); loc != nil {
				s.out = append(s.out, candidate{start: t.start + m[1] + loc[0], end: t.start + m[1] + loc[1], score: 0.85, typ: ZipCode})
			}
		}
	}
	if militaryKeys[t.key] {
		if m := militaryRe.FindStringIndex(rest); m != nil && m[0] == 0 {
			s.out = append(s.out, candidate{start: t.start, end: t.start + m[1], score: 0.85, typ: StreetAddress})
		}
	}
	if frenchKeys[t.key] && i > 0 && s.toks[i-1].num {
		from := s.toks[i-1].start
		if m := frenchRe.FindStringIndex(s.text[from:]); m != nil && m[0] == 0 {
			s.out = append(s.out, candidate{start: from, end: from + m[1], score: 0.75, typ: StreetAddress})
		}
	}
}
