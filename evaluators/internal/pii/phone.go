package pii

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// PHONE_NUMBER. A hand-written scanner proposes phone-shaped runs (an
// optional '+', digits in groups split by one space, '.', '-', '/' or
// parentheses, an optional "x123" extension, 7 to 15 digits); libphonenumber
// then judges them. Scores:
//
//	valid number written as a full number: international ("+", "00"), with
//	a trunk prefix ("0..."), an area code in parentheses, or a 10-digit
//	North American number; with separators:                      0.75
//	any other valid number (local numbers, bare digit runs):     0.5
//	phone-shaped but not valid anywhere:                         0.4
//
// Short local numbers ("224 4966") look like house and street numbers, so
// they need a context word.
//
// A context word ("phone", "call", "mobile", ...) adds 0.35.

// phoneRegions are the regions a number without '+' is tried in, in order.
var phoneRegions = []string{"US", "GB", "DE", "FR", "IN", "AU", "ES", "IT", "NL", "BE", "CH", "AT", "SE", "DK", "NO", "FI", "PL", "IE", "PT", "BR", "MX", "IL", "JP"}

const (
	phoneMinDigits = 7
	phoneMaxDigits = 15
)

// datePrefix matches candidates that start like a date ("2015-12-22 04").
var datePrefix = regexp.MustCompile(`^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})(?:\D|$)`)

func phoneRecognizer() recognizer {
	return recognizer{
		entity: Phone,
		context: []string{"phone", "telephone", "tel", "mobile", "cell", "cellphone", "call", "fax", "desk",
			"contact", "reach", "whatsapp", "sms", "text", "message", "messages", "answering", "dial", "ring", "landline", "hotline"},
		needsDigit: true,
		applies:    func(s string) bool { return countDigits(s) >= phoneMinDigits },
		find:       findPhones,
	}
}

func findPhones(text string) []candidate {
	var out []candidate
	for i := 0; i < len(text); {
		c := text[i]
		if !(c == '+' || c == '(' || isDigitByte(c)) || (i > 0 && (isWordByte(text[i-1]) || text[i-1] == '.' || text[i-1] == '-' || text[i-1] == '+')) {
			i++
			continue
		}
		start, end := i, scanPhone(text, i)
		if end <= start {
			i++
			continue
		}
		i = end
		if cand, ok := phoneCandidate(text, start, end); ok {
			out = append(out, cand)
		}
	}
	return out
}

// scanPhone returns the end of the phone-shaped run starting at i (0 when
// there is none): it ends after its last digit or extension.
func scanPhone(text string, i int) int {
	lastDigit := -1
	prevSep := false
	j := i
	if text[j] == '+' {
		j++
	}
	for ; j < len(text); j++ {
		c := text[j]
		switch {
		case isDigitByte(c):
			lastDigit = j
			prevSep = false
		case c == '(' || c == ')':
			prevSep = false
		case c == ' ' || c == '.' || c == '-' || c == '/':
			if prevSep {
				return lastDigit + 1
			}
			prevSep = true
		default:
			return extendExtension(text, lastDigit+1)
		}
	}
	return extendExtension(text, lastDigit+1)
}

// extendExtension extends a phone ending at end over an "x123" or
// "ext. 123" extension.
func extendExtension(text string, end int) int {
	if end <= 0 {
		return end
	}
	rest := text[end:]
	var k int
	switch {
	case strings.HasPrefix(rest, "x"):
		k = 1
	case strings.HasPrefix(rest, " x"):
		k = 2
	case strings.HasPrefix(rest, " ext. "), strings.HasPrefix(rest, " ext "):
		k = len(" ext ")
		if rest[4] == '.' {
			k++
		}
	default:
		return end
	}
	n := 0
	for k+n < len(rest) && isDigitByte(rest[k+n]) && n < 5 {
		n++
	}
	if n == 0 || (k+n < len(rest) && isWordByte(rest[k+n])) {
		return end
	}
	return end + k + n
}

// phoneCandidate scores text[start:end] as a phone number.
func phoneCandidate(text string, start, end int) (candidate, bool) {
	s := text[start:end]
	if end < len(text) && isWordByte(text[end]) {
		return candidate{}, false
	}
	number := s
	if k := strings.LastIndexByte(s, 'x'); k > 0 {
		number = strings.TrimRight(s[:k], " ext.") // drop the extension
	}
	// Long runs: drop leading space-separated groups ("Portugal 30971 21
	// 253 109 8211") until the number is short enough.
	if countDigits(number) > phoneMaxDigits {
		// Keep the longest tail of whole groups with at most
		// phoneMaxDigits digits (one backward pass).
		cut, digits := -1, 0
		for k := len(number) - 1; k >= 0; k-- {
			if isDigitByte(number[k]) {
				digits++
			} else if number[k] == ' ' && digits <= phoneMaxDigits {
				cut = k
			}
			if digits > phoneMaxDigits {
				break
			}
		}
		if cut < 0 {
			return candidate{}, false
		}
		start += cut + 1
		number = number[cut+1:]
	}
	// An opening parenthesis never closed ("(1953-1964", "(17751783") is
	// prose around digits, not an area code.
	if strings.HasPrefix(number, "(") && !strings.Contains(number, ")") {
		start++
		number = number[1:]
	}
	if n := countDigits(number); n < phoneMinDigits || datePrefix.MatchString(number) {
		return candidate{}, false
	}
	score := 0.4
	if phoneValid(number) {
		score = 0.5
		if strings.ContainsAny(number, " .-/()+") && fullNumber(number) {
			score = 0.75
		}
	}
	return candidate{start: start, end: end, score: score}, true
}

// fullNumber reports whether number is written in full: international,
// with a trunk prefix '0', an area code in parentheses, or as a valid
// 10-digit North American number.
func fullNumber(number string) bool {
	switch number[0] {
	case '+', '0', '(':
		return true
	}
	d := digitsOf(number)
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	if len(d) != 10 {
		return false
	}
	v, err := strconv.ParseUint(d, 10, 64)
	if err != nil {
		return false
	}
	cc := int32(1)
	return phonenumbers.IsValidNumberForRegion(&phonenumbers.PhoneNumber{CountryCode: &cc, NationalNumber: &v}, "US")
}

// phoneRegion is a region numbers without '+' are tried in, with its
// country calling code, national trunk prefix and national number lengths.
type phoneRegion struct {
	code  string
	cc    int32
	trunk string
	// lengths has bit n set when a valid national number of the region
	// can have n digits; 0 when the metadata gives no lengths.
	lengths uint64
	// general is the pattern every valid national number of the region
	// matches in full (nil when the metadata has none).
	general *regexp.Regexp
}

// mayBeValid reports whether national can be a valid national number of
// r: it has a possible length and matches the region's general pattern.
// libphonenumber rejects a number failing either before it tries the
// number types, so this cheap check keeps every verdict while sparing
// most candidates IsValidNumberForRegion, which builds and looks up its
// pattern strings on every call.
func (r phoneRegion) mayBeValid(national string) bool {
	n := len(national)
	if r.lengths != 0 && (n >= 64 || r.lengths&(1<<n) == 0) {
		return false
	}
	return r.general == nil || r.general.MatchString(national)
}

// phoneRegionInfo is phoneRegions with their codes, built once.
var phoneRegionInfo = func() []phoneRegion {
	general := generalDescs(phoneRegions)
	out := make([]phoneRegion, len(phoneRegions))
	for i, r := range phoneRegions {
		out[i] = phoneRegion{code: r, cc: int32(phonenumbers.GetCountryCodeForRegion(r)), trunk: phonenumbers.GetNddPrefixForRegion(r, true)}
		if g, ok := general[r]; ok {
			out[i].lengths, out[i].general = g.lengths, g.pattern
		}
	}
	return out
}()

// generalDesc is what every valid national number of a region satisfies:
// one of its lengths (a bit set, 0 for any) and its pattern in full.
type generalDesc struct {
	lengths uint64
	pattern *regexp.Regexp
}

// generalDescs reads the general description of regions from
// libphonenumber's metadata. A region it omits, or whose description does
// not fit or compile, gets no pre-check.
func generalDescs(regions []string) map[string]generalDesc {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return nil
	}
	out := map[string]generalDesc{}
	for _, m := range coll.GetMetadata() {
		if !slices.Contains(regions, m.GetId()) {
			continue
		}
		desc := m.GetGeneralDesc()
		var g generalDesc
		for _, n := range desc.GetPossibleLength() {
			if n < 0 || n >= 64 {
				g.lengths = 0
				break
			}
			g.lengths |= 1 << n
		}
		if p := desc.GetNationalNumberPattern(); p != "" {
			if re, err := regexp.Compile("^(?:" + p + ")$"); err == nil {
				g.pattern = re
			}
		}
		out[m.GetId()] = g
	}
	return out
}

// phoneValid reports whether libphonenumber accepts number as a valid
// number: as written when international ("+..." or "00..."), else in one
// of phoneRegions (after removing that region's trunk prefix). National
// numbers are not run through phonenumbers.Parse, whose regular
// expressions cost far more than the validity check itself.
func phoneValid(number string) bool {
	if strings.HasPrefix(number, "00") {
		number = "+" + number[2:]
	}
	if strings.HasPrefix(number, "+") {
		n, err := phonenumbers.Parse(number, "ZZ")
		return err == nil && phonenumbers.IsValidNumber(n)
	}
	d := digitsOf(number)
	for _, r := range phoneRegionInfo {
		national := d
		if r.trunk != "" && strings.HasPrefix(d, r.trunk) {
			national = d[len(r.trunk):]
		}
		if national == "" || national[0] == '0' || len(national) > 17 || !r.mayBeValid(national) {
			continue
		}
		v, err := strconv.ParseUint(national, 10, 64)
		if err != nil {
			continue
		}
		cc := r.cc
		if phonenumbers.IsValidNumberForRegion(&phonenumbers.PhoneNumber{CountryCode: &cc, NationalNumber: &v}, r.code) {
			return true
		}
	}
	return false
}
