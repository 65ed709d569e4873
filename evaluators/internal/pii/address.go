package pii

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// STREET_ADDRESS. Presidio finds addresses with its NER model (LOCATION);
// we match the shapes of a postal address instead:
//
//	house number + capitalised street name + street type
//	("221B Baker Street", "12 Timms Drive", "1668 Glyn St"):            0.75
//	street name with a street suffix + house number
//	("Koskikatu 25", "Villacher Strasse 89", "Király u. 15."):          0.75
//	street type first ("Rue Gafsa 62", "Via Franscini 71", "ul. Miła 53",
//	"137 Avenue Teboulbi", "Rua do Arenque 1634"):                       0.75
//	PO box ("P.O. Box 287", "Postfach 1234"), military
//	("PSC 0413, Box 8144", "APO AA 42323"):                              0.75 / 0.85
//	any of these followed by a unit or a postcode:                       0.85
//	the same with a lower-case street name ("3911 fourth avenue"):       0.5
//	a unit alone ("Apt. 595", "Suite 501"):                              0.4
//	an intersection ("the corner of 12 Hollis str and Quarry Lane",
//	"the corner of Main and Elm"):                                       0.75
//
// Context words ("address", "live", "located", "ship to", ...) add 0.35,
// so a lower-case address or a unit after "my address is" reaches 0.75.

// Street types written after the street name (English, French-Canadian).
const streetTypes = `Street|St|Avenue|Ave|Av|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Tce|Ter|` +
	`Square|Sq|Crescent|Cres|Close|Highway|Hwy|Parkway|Pkwy|Circle|Cir|Trail|Trl|Row|Grove|Gardens|Gdns|Mews|Walk|` +
	`Alley|Plaza|Parade|Pde|Esplanade|Expressway|Freeway|Turnpike|Quay|Wharf|Gateway|Causeway|Embankment|Wynd|Broadway`

// Word suffixes of street names (German, Dutch, Nordic, Finnish, Estonian,
// Icelandic, Hungarian, Slavic).
const streetSuffixes = `straße|strasse|str\.|gasse|weg|allee|platz|damm|ufer|chaussee|steig|` +
	`straat|laan|gracht|plein|kade|singel|dreef|` +
	`gade|vej|stræde|vænget|gatan|gata|gaten|vägen|vagen|veien|vegen|gränd|backe|torget|stræti|straeti|stígur|braut|` +
	`katu|tie|kuja|polku|kaari|rinne|puiestee|` +
	`utca|körút|` +
	`ulica|ulice|cesta|ulitsa`

// Street types as separate words after the street name.
const streetWordsAfter = `Straße|Strasse|Str\.|Gasse|Weg|Allee|Platz|Damm|straße|strasse|str\.|gasse|weg|allee|platz|` +
	`u\.|utca|út|tér|körút|krt\.|terrasse|vej|gade|gate|gata|katu|tie`

// Street types written before the street name (Romance, Slavic), and
// Greek ones (no ASCII word boundary before them).
const (
	streetTypesBefore = `Rue|rue|Rua|rua|Via|Viale|viale|Vicolo|vicolo|Calle|calle|Avenida|avenida|Avda\.|Av\.|Avenue|avenue|` +
		`Boulevard|boulevard|Bd\.|Bvd\.|Piazza|piazza|Plaza|Praça|praça|Largo|largo|Travessa|travessa|Carrer|carrer|Strada|strada|` +
		`Chemin|chemin|Allée|allée|Quai|quai|Calea|calea|Ulica|ulica|ul\.|Ul\.|Aleja|aleja|Odos|Corso|corso|Camino|camino|Paseo|paseo|Rambla|rambla`
	streetTypesBeforeGreek = `Οδός|Λ\.|Λεωφόρος|Οδ\.`
)

// Pieces of the address patterns: street-name words (a letter, then
// letters, apostrophes or hyphens, maybe a final dot), house numbers and
// the unit after a street.
const (
	capWord = `\p{Lu}[\p{L}\p{M}'’-]*\.?`
	anyWord = `\p{L}[\p{L}\p{M}'’-]*\.?`
	houseNo = `\d{1,6}[A-Za-z]?`
	// unitTail is an optional unit and/or postcode after a street.
	unitTail = `(?:,?\s{0,4}(?i:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Fl\.?|Floor|#)\s?#?\d{1,5}[A-Za-z]?)`
)

var (
	// The number-led patterns are anchored at the numbers of the text.
	// "221B Baker Street", "2450 Crown St".
	addressNumberFirst = regexp.MustCompile(`^` + houseNo + `(?:,? ` + houseNo + `)?,? (?:` + capWord + ` ){1,3}(?:` + streetTypes + `)\b\.?`)
	// Lower-case variant, weaker ("3911 fourth avenue").
	addressNumberFirstLower = regexp.MustCompile(`(?i)^` + houseNo + `,? (?:[a-z][a-z'-]* ){1,3}(?:street|avenue|road|boulevard|lane|drive|court|terrace|place|way)\b`) // lowerStreetTypes
	// "Koskikatu 25", "hersnapvej 18"; anchored at the start of a word
	// that ends in a street suffix and is followed by a number.
	addressSuffixed = regexp.MustCompile(`^[\p{L}\p{M}]{2,}(?:` + streetSuffixes + `) \d{1,4}[a-z]?\b\.?`)
	// "Villacher Strasse 89", "Király u. 15.", "Stensås terrasse 38".
	addressWordAfter = regexp.MustCompile(`(?:^|[\s,;:(])(?:` + capWord + ` ){1,3}(?:` + streetWordsAfter + `) \d{1,4}[a-zA-Z]?\b\.?`)
	// "Rue Gafsa 62", "Rua do Arenque 1634", "137 Avenue Teboulbi";
	// anchored at a street type word; a house number before it is found
	// by addressLeadingNumber.
	addressTypeFirst = regexp.MustCompile(`^(?:` + streetTypesBefore + `|` + streetTypesBeforeGreek + `) (?:(?:de|du|des|do|da|dos|das|del|della|di|la|le|les|al|el|von|van) ){0,2}` + capWord + `(?: ` + capWord + `){0,3}(?:,? \d{1,5}[a-zA-Z]?\b)?`)
	// "P.O. Box 287", "PO Box 12", "Postfach 1234".
	addressPOBox = regexp.MustCompile(`(?i)\b(?:p\.? ?o\.? ?box|post office box|postfach|apartado(?: postal)?|caixa postal|postbox|pobox|postboks|boîte postale) ?#? ?\d{1,6}\b`)
	// "PSC 0413, Box 8144", "Unit 4719 Box 7394", "APO AA 42323".
	addressMilitary = regexp.MustCompile(`\b(?:(?:PSC|Unit|CMR) \d{3,5},? Box \d{1,5}(?:\s{1,4}(?:APO|FPO|DPO) (?:AA|AE|AP) \d{5})?|(?:APO|FPO|DPO) (?:AA|AE|AP) \d{5})\b`)
	// A house number ending the text before a street type ("137 ").
	addressLeadingNumber = regexp.MustCompile(`(?:^|[^\pL\d])` + houseNo + `,? $`)
	// "28030 Edeby 55", "172 Maneeži 75": house or building number, a
	// street name without a type, a number.
	addressNumberedName = regexp.MustCompile(`^\d{1,6},? (?:` + anyWord + ` ){1,3}\d{1,4}[a-zA-Z]?\b\.?`)
	// "Apt. 595", "Suite 501".
	addressUnit = regexp.MustCompile(`\b(?:Apt\.?|Apartment|Suite|Ste\.|Unit|Flat) ?#?\d{1,5}[A-Za-z]?\b`)
	// A unit or a postcode right after a street.
	addressTailUnit = regexp.MustCompile(`^` + unitTail)
	addressTailZIP  = regexp.MustCompile(`^,?\s{1,4}(?:\p{L}[\p{L}\p{M}'’.-]*(?: \p{L}[\p{L}\p{M}'’.-]*){0,2},? )?(?:[A-Z]{2} )?\d{4,5}(?:-\d{3,4})?\b`)
)

// addressPattern is a pattern run only when the text shows the feature it
// needs (see addressFeatures).
type addressPattern struct {
	pattern
	needs addressFeature
	// at says where the pattern runs: the whole text, or only at the
	// anchors or in the windows addressFeatures found.
	at anchorKind
}

// anchorKind is where an address pattern runs.
type anchorKind uint8

const (
	wholeText           anchorKind = iota
	atNumbers                      // anchored at numbers that start a word
	atSuffixedWords                // anchored at words ending in a street suffix before a number
	atTypeWords                    // anchored at street types written first
	inStreetWordWindows            // in windows before a separate street word and number
)

// addressPatterns are tried in order; later matches overlapping earlier
// ones are skipped.
var addressPatterns = []addressPattern{
	{pattern{re: addressMilitary, score: 0.85}, featBox, wholeText},
	{pattern{re: addressNumberFirst, score: 0.75}, featTypeAfterNumber, atNumbers},
	{pattern{re: addressSuffixed, score: 0.75}, featWordBeforeNumber, atSuffixedWords},
	{pattern{re: addressWordAfter, score: 0.75}, featWordBeforeNumber, inStreetWordWindows},
	{pattern{re: addressTypeFirst, score: 0.75}, featTypeBefore, atTypeWords},
	{pattern{re: addressPOBox, score: 0.75}, featBox, wholeText},
	{pattern{re: addressNumberFirstLower, score: 0.5}, featTypeAfterNumber, atNumbers},
	{pattern{re: addressNumberedName, score: 0.5}, featNumberWordsNumber, atNumbers},
	{pattern{re: addressUnit, score: 0.4}, featUnit, wholeText},
}

func streetAddressRecognizer() recognizer {
	return recognizer{
		entity: StreetAddress,
		context: []string{"address", "addresses", "addr", "live", "lives", "living", "lived", "reside", "resides", "residence",
			"located", "location", "ship", "shipping", "shipped", "deliver", "delivery", "send", "sent", "mail", "mailing",
			"postal", "billing", "home", "moved", "move", "office", "offices", "visit", "meet", "street", "apartment",
			"drop", "drops", "dropped", "stop", "directions"},
		applies: func(s string) bool { return hasDigit(s) || strings.Contains(s, "orner of") },
		find:    findAddresses,
	}
}

func findAddresses(text string) []candidate {
	out := findCorners(text)
	if !hasDigit(text) {
		return out
	}
	var win addressWindows
	feats := addressFeatures(text, &win)
	if feats == 0 {
		return out
	}
	for _, p := range addressPatterns {
		if feats&p.needs == 0 {
			continue
		}
		for _, m := range matchesIn(p, text, &win) {
			start, end := trimAddressMatch(text, m[0], m[1])
			if start >= end || !hasDigit(text[start:end]) || overlapsAny(out, start, end) ||
				(p.re == addressNumberedName || p.re == addressNumberFirstLower) && !plausibleNumberedName(text[start:end]) {
				continue
			}
			score := p.score
			if weakAddress(p.re, text[start:end]) {
				score = 0.5
			}
			if p.score >= 0.5 && p.re != addressMilitary {
				if n, unit := addressTail(text[end:]); n > 0 {
					end += n
					// A unit makes any street shape an address; a
					// postcode only confirms a strong one.
					if unit || score >= 0.75 {
						score = 0.85
					}
				}
			}
			out = append(out, candidate{start: start, end: end, score: score})
		}
	}
	return out
}

// cornerScore is the score of an intersection ("the corner of X and Y").
const cornerScore = 0.75

// findCorners finds intersections: "corner of", then a street of one to
// six words, "and" (or "&"), then a street of one to four words ending at
// a line break, a punctuation mark or a common word. The streets must not
// start with a common word ("the corner of the room and ..."), and one of
// them must hold a number or a street type, or both must be capitalised
// and not places ("the corner of Main and Elm"; not "the corner of Europe
// and Asia").
func findCorners(text string) []candidate {
	var out []candidate
	for from := 0; ; {
		k := strings.Index(text[from:], "orner of ")
		if k < 0 {
			return out
		}
		at := from + k
		from = at + len("orner of ")
		if at == 0 || (text[at-1] != 'c' && text[at-1] != 'C') || at >= 2 && isWordByte(text[at-2]) {
			continue
		}
		if end, ok := cornerStreets(text, from); ok {
			out = append(out, candidate{start: from, end: end, score: cornerScore})
		}
	}
}

// cornerStreet is one street of an intersection.
type cornerStreet struct {
	words    int
	first    string // the first word, lower-cased
	numbered bool   // holds a number or a street type
	capped   bool   // starts with a capital or a number
}

// cornerMaxWords bounds the words of the first and the second street.
var cornerMaxWords = [2]int{6, 4}

// cornerStreets parses "X and Y" at text[start:] (see findCorners) and
// returns the end of Y.
func cornerStreets(text string, start int) (int, bool) {
	var streets [2]cornerStreet
	side, end := 0, start
	for i := start; i < len(text); {
		j := i
		for j < len(text) && !isSpaceByte(text[j]) {
			j++
		}
		tok := text[i:j]
		word := strings.TrimRight(tok, `.,;:!?"`)
		lw := strings.ToLower(word)
		if side == 0 && streets[0].words > 0 && (lw == "and" || lw == "&") {
			side = 1
		} else {
			st := &streets[side]
			if word == "" || commonWords[lw] && !gateTypeAfter[lw] || st.words == cornerMaxWords[side] {
				break
			}
			if st.words == 0 {
				r, _ := utf8.DecodeRuneInString(word)
				st.first, st.capped = lw, unicode.IsUpper(r) || isDigitByte(word[0])
			}
			st.words++
			st.numbered = st.numbered || hasDigit(word) || gateTypeAfter[lw]
			end = i + len(word)
			dot := len(word) < len(tok) && tok[len(word)] == '.'
			if dot {
				end++ // "St.", "39."
			}
			// A line break or a punctuation mark other than a dot ends a
			// street; so does a dot after a long word on the second.
			if len(word) < len(tok) && !dot || j < len(text) && text[j] != ' ' || side == 1 && dot && len(word) > 4 {
				if side == 0 {
					return 0, false
				}
				break
			}
		}
		for j < len(text) && text[j] == ' ' {
			j++
		}
		i = j
	}
	if side == 0 || streets[1].words == 0 {
		return 0, false
	}
	return end, cornerPlausible(streets)
}

// cornerPlausible reports whether two streets make an intersection: one
// holds a number or a street type, or both start capitalised and neither
// is a known place.
func cornerPlausible(st [2]cornerStreet) bool {
	if st[0].numbered || st[1].numbered {
		return true
	}
	return st[0].capped && st[1].capped && !placeWords[st[0].first] && !placeWords[st[1].first]
}

// englishGade are English words ending in a Danish street suffix.
var englishGade = map[string]bool{"brigade": true, "renegade": true}

// weakAddress reports whether a match of re is too ambiguous for the
// pattern's score: a suffixed street name in lower case or an English word
// ("brigade 3"), or a number-first street whose number is a year ("in 2004
// Central Park Drive" reads as a date).
func weakAddress(re *regexp.Regexp, s string) bool {
	switch re {
	case addressSuffixed:
		word := s[:strings.IndexByte(s, ' ')]
		r, _ := utf8.DecodeRuneInString(word)
		return !unicode.IsUpper(r) || englishGade[strings.ToLower(word)]
	case addressNumberFirst:
		if len(s) > 5 && s[4] == ' ' && !isDigitByte(s[5]) && (s[:2] == "18" || s[:2] == "19" || s[:2] == "20") {
			return countDigits(s[:4]) == 4
		}
	}
	return false
}

// notStreetWords are words between two numbers that make a date, a range
// or a count rather than a street ("25 January 1915", "2011 to 2017").
var notStreetWords = wordSet(`jan january feb february mar march apr april may jun june jul july aug august sep sept september
oct october nov november dec december to and or until till through thru according since staying for at of in on by from
hour hours minute minutes day days week weeks month months year years times points goals km miles mph percent`)

// lowerStreetTypes are the street types of addressNumberFirstLower.
var lowerStreetTypes = wordSet(`street avenue road boulevard lane drive court terrace place way`)

// plausibleNumberedName reports whether a match of addressNumberedName
// ("28030 Edeby 55") or addressNumberFirstLower ("3911 fourth avenue") can
// be a street: its first number is not a year and no word after it marks a
// date, range or count ("2 hour drive").
func plausibleNumberedName(s string) bool {
	n := 0
	for n < len(s) && isDigitByte(s[n]) {
		n++
	}
	if n == 4 && (s[:2] == "18" || s[:2] == "19" || s[:2] == "20") {
		return false
	}
	for _, w := range strings.Fields(s[n:]) {
		w = strings.ToLower(strings.Trim(w, ".,"))
		if w != "" && !isDigitByte(w[0]) && !lowerStreetTypes[w] && (notStreetWords[w] || commonWords[w]) {
			return false
		}
	}
	return true
}

// trimAddressMatch drops leading separators that addressWordAfter and
// addressLeadingNumber match before a street (" Koskikatu", "(137").
func trimAddressMatch(text string, start, end int) (int, int) {
	for start < end && strings.IndexByte(" ,;:(\"'\n\t", text[start]) >= 0 {
		start++
	}
	return start, end
}

// addressTail returns the length of a unit and/or postcode directly after
// a street (0 when there is none) and whether it holds a unit.
func addressTail(rest string) (n int, unit bool) {
	if m := addressTailUnit.FindStringIndex(rest); m != nil {
		n = m[1]
		if z := addressTailZIP.FindStringIndex(rest[n:]); z != nil {
			n += z[1]
		}
		return n, true
	}
	if m := addressTailZIP.FindStringIndex(rest); m != nil {
		return m[1], false
	}
	return 0, false
}

// addressFeature is a cheap sign, found in one pass over the words of a
// text, that an address pattern can match; the regular expressions run
// only when their feature is present.
type addressFeature uint8

const (
	featTypeAfterNumber   addressFeature = 1 << iota // a street type within 5 words after a number ("12 Timms Drive")
	featWordBeforeNumber                             // a street suffix or street word right before a number ("Koskikatu 25")
	featTypeBefore                                   // a street type before the name ("Rue", "Via", "ul.") near a number
	featBox                                          // "Box", "Postfach", "APO", ...
	featUnit                                         // "Apt", "Suite", "Unit", ... right before a number
	featNumberWordsNumber                            // a number, one to three words, a number ("28030 Edeby 55")
)

// Gate words, lower case and without their dots.
var (
	gateTypeAfter  = wordSet(strings.ToLower(strings.ReplaceAll(streetTypes, "|", " ")) + " street avenue road boulevard lane drive court terrace place way")
	gateTypeBefore = wordSet(strings.ToLower(strings.NewReplacer("|", " ", `\.`, "").Replace(streetTypesBefore + "|" + streetTypesBeforeGreek)))
	gateWordAfter  = wordSet(strings.ToLower(strings.NewReplacer("|", " ", `\.`, "").Replace(streetWordsAfter)))
	gateSuffixes   = strings.Split(strings.NewReplacer(`\.`, "", "|", " ").Replace(streetSuffixes), " ")
	gateBox        = wordSet(`box postfach apartado caixa postbox pobox postboks boîte apo fpo dpo`)
	gateUnit       = wordSet(`apt apartment suite ste unit flat`)
)

// addressFeatures scans the words and numbers of text once and reports
// which address features it shows.
func addressFeatures(text string, win *addressWindows) addressFeature {
	var feats addressFeature
	var buf [24]byte
	lastNumber := -100 // word index of the last number
	lastTypeBefore := -100
	lastUnit := -100
	prevStart, prevEnd := -1, -1 // the word right before, if any
	for i, n := 0, 0; i < len(text); n++ {
		c := text[i]
		switch {
		case isDigitByte(c):
			j := i
			for j < len(text) && isDigitByte(text[j]) {
				j++
			}
			if d := n - lastNumber; d >= 2 && d <= 4 {
				feats |= featNumberWordsNumber
			}
			if n-lastTypeBefore <= 6 {
				feats |= featTypeBefore
			}
			if n-lastUnit <= 2 {
				feats |= featUnit
			}
			if prevStart >= 0 && prevEnd < i && prevEnd+2 >= i {
				var lw string
				if lb := lowerBytes(text[prevStart:prevEnd], buf[:]); lb != nil {
					lw = string(lb) // does not escape: no allocation
				} else {
					lw = strings.ToLower(text[prevStart:prevEnd])
				}
				if gateWordAfter[lw] {
					feats |= featWordBeforeNumber
					win.streetWord = addWindow(text, win.streetWord, prevStart-wordAfterReach, j+8)
				} else if hasStreetSuffix(lw) {
					feats |= featWordBeforeNumber
					win.suffixAt = append(win.suffixAt, prevStart)
				}
			}
			if i == 0 || !isWordByte(text[i-1]) {
				win.numberAt = append(win.numberAt, i)
			}
			lastNumber = n
			prevStart = -1
			i = j
		case c >= utf8.RuneSelf || isASCIILetter(c):
			j := i
			for j < len(text) {
				r, size := utf8.DecodeRuneInString(text[j:])
				if !unicode.IsLetter(r) && !unicode.IsMark(r) {
					break
				}
				j += size
			}
			if j == i { // a non-letter rune
				_, size := utf8.DecodeRuneInString(text[i:])
				i += size
				n--
				continue
			}
			w := lowerBytes(text[i:j], buf[:])
			if w == nil { // long or non-ASCII ("Οδός", "Praça", "boîte")
				if lw := strings.ToLower(text[i:j]); gateTypeBefore[lw] {
					lastTypeBefore = n
					win.typeAt = append(win.typeAt, i)
					if n-lastNumber <= 2 {
						feats |= featTypeBefore
					}
				} else if gateBox[lw] {
					feats |= featBox
				}
				prevStart, prevEnd = i, j
				i = j
				continue
			}
			if gateTypeAfter[string(w)] && n-lastNumber <= 5 {
				feats |= featTypeAfterNumber
			}
			if gateBox[string(w)] {
				feats |= featBox
			}
			if gateTypeBefore[string(w)] {
				lastTypeBefore = n
				win.typeAt = append(win.typeAt, i)
				if n-lastNumber <= 2 {
					feats |= featTypeBefore
				}
			}
			if gateUnit[string(w)] {
				lastUnit = n
			}
			prevStart, prevEnd = i, j
			i = j
		default:
			i++
			n-- // separators are not words
		}
	}
	return feats
}

// lowerBytes lower-cases the short ASCII word w into buf; nil when w is
// longer than buf or not ASCII.
func lowerBytes(w string, buf []byte) []byte {
	if len(w) > len(buf) {
		return nil
	}
	for k := 0; k < len(w); k++ {
		c := w[k]
		if c >= utf8.RuneSelf {
			return nil
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[k] = c
	}
	return buf[:len(w)]
}

// hasStreetSuffix reports whether the lower-case word w ends in a street
// suffix after at least one letter.
func hasStreetSuffix(w string) bool {
	for _, suf := range gateSuffixes {
		if suf != "" && len(w) > len(suf) && strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// wordAfterReach is how far before a separate street word its window
// starts ("Brucker Bundes Strasse 31").
const wordAfterReach = 96

// anchorReach is how far past its anchor an anchored pattern can match
// (the window is widened to the next whitespace); short windows keep the
// backtracker cheap.
var anchorReach = map[anchorKind]int{atNumbers: 96, atSuffixedWords: 64, atTypeWords: 128}

// window is a byte range of a text.
type window struct{ start, end int }

// addressWindows are the anchors and merged windows of the patterns that
// do not run on the whole text.
type addressWindows struct {
	numberAt, suffixAt, typeAt []int
	streetWord                 []window
}

// addWindow appends [start, end) to ws, widened to whitespace on both
// sides (so word boundaries inside the window are those of the text) and
// merged with the last window when they overlap.
func addWindow(text string, ws []window, start, end int) []window {
	start = max(start, 0)
	end = min(end, len(text))
	for start > 0 && !isSpaceByte(text[start-1]) {
		start--
	}
	for end < len(text) && !isSpaceByte(text[end]) {
		end++
	}
	if n := len(ws); n > 0 && start <= ws[n-1].end {
		ws[n-1].end = max(ws[n-1].end, end)
		return ws
	}
	return append(ws, window{start, end})
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// matchesIn returns the matches of p in text: on the whole text, at its
// anchors, or in its windows.
func matchesIn(p addressPattern, text string, win *addressWindows) [][]int {
	switch p.at {
	case atNumbers, atSuffixedWords, atTypeWords:
		anchors := win.suffixAt
		switch p.at {
		case atNumbers:
			anchors = win.numberAt
		case atTypeWords:
			anchors = win.typeAt
		}
		reach := anchorReach[p.at]
		var out [][]int
		for _, at := range anchors {
			end := min(at+reach, len(text))
			for end < len(text) && !isSpaceByte(text[end]) {
				end++
			}
			m := p.re.FindStringIndex(text[at:end])
			if m == nil {
				continue
			}
			start := at
			if p.at == atTypeWords {
				// A house number before the type ("137 Avenue Teboulbi").
				if n := addressLeadingNumber.FindStringIndex(text[max(0, at-12):at]); n != nil {
					start = max(0, at-12) + n[0]
				}
			}
			out = append(out, []int{start, at + m[1]})
		}
		return out
	case inStreetWordWindows:
		var out [][]int
		for _, w := range win.streetWord {
			for _, m := range p.re.FindAllStringIndex(text[w.start:w.end], -1) {
				out = append(out, []int{m[0] + w.start, m[1] + w.start})
			}
		}
		return out
	}
	return p.re.FindAllStringIndex(text, -1)
}
