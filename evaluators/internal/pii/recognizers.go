package pii

import (
	"net/netip"
	"regexp"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// pattern is a regular expression with the base score of its matches.
type pattern struct {
	re    *regexp.Regexp
	score float64
	// group, when > 0, is the submatch that is the entity.
	group int
	// runs, when set, narrows the search to the runs of bytes a match can
	// hold (see byteRuns); the matches are the same.
	runs *byteRuns
}

// byteRuns describes where the matches of a pattern can be: every match
// lies within a maximal run of bytes of within and holds a byte of needs.
// Running the pattern on those runs alone, each with one byte of context
// on either side (so that \b sees the neighbours it sees in the whole
// text), finds the matches of the whole text in a fraction of the time:
// prose has few such runs. A byte outside within can never be part of a
// match, so the context bytes never are.
type byteRuns struct {
	within, needs [256]bool
}

// newByteRuns returns the runs of bytes of within holding a byte of needs.
func newByteRuns(within, needs string) *byteRuns {
	r := &byteRuns{}
	for i := 0; i < len(within); i++ {
		r.within[within[i]] = true
	}
	for i := 0; i < len(needs); i++ {
		r.needs[needs[i]] = true
	}
	return r
}

// each calls fn with the bounds of every run holding a needed byte,
// widened by one byte of context on either side, from left to right.
func (r *byteRuns) each(text string, fn func(lo, hi int)) {
	for i := 0; i < len(text); {
		if !r.within[text[i]] {
			i++
			continue
		}
		start, needed := i, false
		for ; i < len(text) && r.within[text[i]]; i++ {
			needed = needed || r.needs[text[i]]
		}
		if needed {
			fn(max(start-1, 0), min(i+1, len(text)))
		}
	}
}

// Byte sets of byteRuns.
const (
	digitBytes = "0123456789"
	// emailBytes are the bytes emailPattern matches.
	emailBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_{|}~-.@"
)

// verdict is a validator's judgement of a match.
type verdict int

const (
	keep    verdict = iota // leave the pattern score
	valid                  // a checksum passed: score 1.0
	invalid                // drop the match
)

// patternFinder returns a find function running patterns and judging each
// match with validate (nil: keep every match). Matches of later patterns
// overlapping an earlier match are skipped.
func patternFinder(validate func(string) verdict, patterns ...pattern) func(string) []candidate {
	return func(text string) []candidate {
		var out []candidate
		for _, p := range patterns {
			find := func(lo, hi int) {
				for _, m := range p.re.FindAllStringSubmatchIndex(text[lo:hi], -1) {
					start, end := m[0], m[1]
					if p.group > 0 {
						if m[2*p.group] < 0 {
							continue
						}
						start, end = m[2*p.group], m[2*p.group+1]
					}
					start, end = start+lo, end+lo
					if overlapsAny(out, start, end) {
						continue
					}
					score := p.score
					if validate != nil {
						switch validate(text[start:end]) {
						case valid:
							score = maxScore
						case invalid:
							continue
						}
					}
					out = append(out, candidate{start: start, end: end, score: score})
				}
			}
			if p.runs != nil {
				p.runs.each(text, find)
			} else {
				find(0, len(text))
			}
		}
		return out
	}
}

func overlapsAny(cs []candidate, start, end int) bool {
	for _, c := range cs {
		if start < c.end && c.start < end {
			return true
		}
	}
	return false
}

// EMAIL_ADDRESS: Presidio scores the pattern 0.5 and validates the domain's
// top-level domain (tldextract); we check it against the public suffix list.
var emailPattern = regexp.MustCompile(`\b[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b`)

func emailRecognizer() recognizer {
	return recognizer{
		entity:  Email,
		context: []string{"email", "e-mail", "mail", "contact"},
		applies: func(s string) bool { return strings.IndexByte(s, '@') >= 0 },
		find:    patternFinder(validateEmail, pattern{re: emailPattern, score: 0.5, runs: newByteRuns(emailBytes, "@")}),
	}
}

func validateEmail(s string) verdict {
	at := strings.LastIndexByte(s, '@')
	if knownDomain(s[at+1:]) {
		return valid
	}
	return invalid
}

// knownDomain reports whether host ends in an ICANN public suffix and has a
// label before it.
func knownDomain(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	suffix, icann := publicsuffix.PublicSuffix(host)
	return icann && len(suffix) < len(host)
}

// CREDIT_CARD: 12 to 19 digits, optionally in groups split by one space or
// hyphen. Presidio's weak pattern (0.3) with Luhn validation; a 12-digit
// number passing Luhn scores 0.5 (one random number in ten passes Luhn, and
// 12 digits are common in other ids), 13 to 19 digits 1.0.
var cardPattern = regexp.MustCompile(`\b\d(?:[ -]?\d){11,18}\b`)

func creditCardRecognizer() recognizer {
	return recognizer{
		entity:     CreditCard,
		context:    []string{"credit", "card", "cc", "cards", "visa", "mastercard", "amex", "discover", "jcb", "diners", "maestro", "instapayment", "debit"},
		needsDigit: true,
		applies:    func(s string) bool { return hasSeparatedDigits(s, 12) },
		find: func(text string) []candidate {
			var out []candidate
			for _, m := range cardPattern.FindAllStringIndex(text, -1) {
				s := text[m[0]:m[1]]
				if !consistentSeparators(s) {
					continue
				}
				d := digitsOf(s)
				if d[0] < '1' || d[0] > '6' || allSame(d) || !luhn(d) {
					continue
				}
				score := maxScore
				if len(d) == 12 {
					score = 0.5
				}
				out = append(out, candidate{start: m[0], end: m[1], score: score})
			}
			return out
		},
	}
}

// consistentSeparators reports whether s uses at most one kind of separator
// between its digit groups.
func consistentSeparators(s string) bool {
	var sep byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			continue
		}
		if sep != 0 && c != sep {
			return false
		}
		sep = c
	}
	return true
}

func allSame(d string) bool { return strings.Count(d, d[:1]) == len(d) }

// IBAN_CODE: country code, two check digits, then the BBAN in optional
// groups of four. Presidio scores 0.5 and validates mod-97 and the
// country's length: a valid IBAN scores 1.0, any other match is dropped.
var ibanPattern = regexp.MustCompile(`(?i)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b`)

func ibanRecognizer() recognizer {
	return recognizer{
		entity:     IBAN,
		context:    []string{"iban", "bank", "transaction", "account", "transfer"},
		needsDigit: true,
		applies:    hasIBANStart,
		find:       patternFinder(validateIBAN, pattern{re: ibanPattern, score: 0.5}),
	}
}

func validateIBAN(s string) verdict {
	if ibanValid(s) {
		return valid
	}
	return invalid
}

// US_SSN: Presidio's patterns — nnn-nn-nnnn with one separator kind
// (medium, 0.5) and nine bare digits (very weak, 0.05) — and its
// invalidation rules, plus the SSA's rule that no SSN starts with 9 (those
// are ITINs).
var (
	ssnDelimited = regexp.MustCompile(`\b\d{3}[- .]\d{2}[- .]\d{4}\b`)
	nineDigits   = regexp.MustCompile(`\b\d{9}\b`)
)

func ssnRecognizer() recognizer {
	return recognizer{
		entity:     USSSN,
		context:    []string{"social", "security", "ssn", "ssns", "ssn#", "ss#", "ssid"},
		needsDigit: true,
		applies:    func(s string) bool { return hasDigitRun(s, 9) || hasDelimitedSSNShape(s) },
		find: patternFinder(validateSSN,
			pattern{re: ssnDelimited, score: 0.5, runs: newByteRuns(digitBytes+"- .", digitBytes)},
			pattern{re: nineDigits, score: 0.05, runs: newByteRuns(digitBytes, digitBytes)}),
	}
}

// sampleSSNs are numbers published as examples (advertising, documentation).
var sampleSSNs = map[string]bool{"078051120": true, "123456789": true, "219099999": true, "457555462": true}

func validateSSN(s string) verdict {
	if !consistentSeparators(s) {
		return invalid
	}
	d := digitsOf(s)
	if allSame(d) || sampleSSNs[d] || d[:3] == "000" || d[:3] == "666" || d[0] == '9' || d[3:5] == "00" || d[5:] == "0000" {
		return invalid
	}
	return keep
}

// US_ITIN: 9xx-[50-65,70-88,90-92,94-99]-xxxx, as Presidio: delimited 0.5,
// bare 0.3.
var (
	itinDelimited = regexp.MustCompile(`\b9\d{2}[- ](?:5\d|6[0-5]|7\d|8[0-8]|9[0-24-9])[- ]\d{4}\b`)
	itinBare      = regexp.MustCompile(`\b9\d{2}(?:5\d|6[0-5]|7\d|8[0-8]|9[0-24-9])\d{4}\b`)
)

func itinRecognizer() recognizer {
	return recognizer{
		entity:     USITIN,
		context:    []string{"individual", "taxpayer", "itin", "tax", "payer", "taxid", "tin"},
		needsDigit: true,
		applies:    func(s string) bool { return strings.IndexByte(s, '9') >= 0 && countDigits(s) >= 9 },
		find: patternFinder(func(s string) verdict {
			if !consistentSeparators(s) {
				return invalid
			}
			return keep
		}, pattern{re: itinDelimited, score: 0.5}, pattern{re: itinBare, score: 0.3}),
	}
}

// US_PASSPORT: a letter and eight digits (next-generation passports) 0.4,
// nine digits 0.35. Both need a context word to reach 0.7.
var passportNextGen = regexp.MustCompile(`\b[A-Z]\d{8}\b`)

func passportRecognizer() recognizer {
	return recognizer{
		entity:     USPassport,
		context:    []string{"passport", "passport#", "passports", "travel", "document"},
		needsDigit: true,
		applies:    func(s string) bool { return hasDigitRun(s, 8) },
		find: patternFinder(nil,
			pattern{re: passportNextGen, score: 0.4},
			pattern{re: nineDigits, score: 0.35}),
	}
}

// US_DRIVER_LICENSE: the formats vary by state, so any letter-led id or
// 6–14 digit number (optionally split by hyphens) is a candidate at 0.4 and
// reaches 0.75 only after a context word.
var (
	licenseAlnum  = regexp.MustCompile(`\b[A-Z]{1,2}\d{4,14}\b|\b[A-Z]\d{3}-\d{3,4}-\d{3,4}\b`)
	licenseDigits = regexp.MustCompile(`\b\d{3,4}-\d{2,3}-\d{3,4}\b|\b\d{6,14}\b`)
)

func driverLicenseRecognizer() recognizer {
	return recognizer{
		entity:     USDriver,
		context:    []string{"driver", "driver's", "drivers", "license", "licence", "permit", "lic", "lic#", "dl", "dls", "cdl", "cdls", "driving"},
		needsDigit: true,
		applies: func(s string) bool {
			return hasDigitRun(s, 6) || hasLetterDigits(s) || (hasDigitRun(s, 3) && strings.IndexByte(s, '-') >= 0)
		},
		find: patternFinder(nil,
			pattern{re: licenseAlnum, score: 0.4},
			pattern{re: licenseDigits, score: 0.4}),
	}
}

// IP_ADDRESS: dotted-quad IPv4 and colon-hex IPv6, parsed with net/netip
// (invalid addresses dropped). Presidio scores both 0.6, so an address
// needs a context word to reach 0.7.
var (
	ipv4Pattern = regexp.MustCompile(`\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)
	ipv6Pattern = regexp.MustCompile(`(?i)(?:\b[0-9a-f]{1,4}|:)(?::[0-9a-f]{0,4}){2,7}(?:\b|::)(?:%[0-9a-z]+)?|(?:\b[0-9a-f]{1,4}|:)(?::[0-9a-f]{0,4}){2,6}:\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b`)
)

func ipRecognizer() recognizer {
	return recognizer{
		entity:  IPAddress,
		context: []string{"ip", "ips", "ipv4", "ipv6", "address", "addr", "host", "server", "client", "gateway"},
		applies: func(s string) bool {
			return hasDottedDigits(s) || strings.Count(s, ":") >= 2
		},
		find: func(text string) []candidate {
			var out []candidate
			for _, m := range ipv4Pattern.FindAllStringIndex(text, -1) {
				// "1.2.3.4.5" is a version or a phone number, not an address.
				if (m[0] > 1 && text[m[0]-1] == '.' && isDigitByte(text[m[0]-2])) || (m[1]+1 < len(text) && text[m[1]] == '.' && isDigitByte(text[m[1]+1])) {
					continue
				}
				if _, err := netip.ParseAddr(text[m[0]:m[1]]); err == nil {
					out = append(out, candidate{start: m[0], end: m[1], score: 0.6})
				}
			}
			if strings.Count(text, ":") < 2 {
				return out
			}
			for _, m := range ipv6Pattern.FindAllStringIndex(text, -1) {
				if a, err := netip.ParseAddr(text[m[0]:m[1]]); err == nil && a.Is6() && !overlapsAny(out, m[0], m[1]) {
					out = append(out, candidate{start: m[0], end: m[1], score: 0.6})
				}
			}
			return out
		},
	}
}

func isDigitByte(b byte) bool { return b >= '0' && b <= '9' }

// MAC_ADDRESS: six hex pairs split by ':' or '-' (one kind), or three
// dot-separated quads (Cisco), 0.6.
var macPattern = regexp.MustCompile(`(?i)\b[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}\b|\b[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}\b`)

func macRecognizer() recognizer {
	return recognizer{
		entity:  MACAddress,
		context: []string{"mac", "ethernet", "hardware", "wifi", "wi-fi", "bssid", "device", "address"},
		applies: func(s string) bool {
			return strings.Count(s, ":") >= 5 || strings.Count(s, "-") >= 5 || hasHexQuadDot(s)
		},
		find: patternFinder(func(s string) verdict {
			if strings.IndexByte(s, '.') < 0 && !consistentSeparators(strings.Map(hexToZero, s)) {
				return invalid
			}
			return keep
		}, pattern{re: macPattern, score: 0.6}),
	}
}

// hexToZero maps hex digits to '0' so consistentSeparators sees only the
// separators.
func hexToZero(r rune) rune {
	if (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F') {
		return '0'
	}
	return r
}

// URL: a scheme or "www." then a host with a known public suffix, as
// Presidio's UrlRecognizer (0.6 with a scheme, 0.5 for www. without).
// Besides Presidio's url/website/link, words of sharing a personal page or
// file ("I've shared files with you https://...", "posted a photo
// https://...") are context.
var (
	urlScheme = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'()\[\]{}]+`)
	urlWWW    = regexp.MustCompile(`(?i)\bwww\.[^\s<>"'()\[\]{}]+`)
)

func urlRecognizer() recognizer {
	return recognizer{
		entity: URL,
		context: []string{"url", "website", "site", "link", "homepage", "web", "page", "profile",
			"share", "sharing", "posted", "post", "upload", "photo", "picture", "video", "file", "files", "blog", "visit",
			"follow", "portfolio", "download"},
		applies: func(s string) bool {
			return strings.Contains(s, "://") || strings.Contains(s, "www.") || strings.Contains(s, "WWW.")
		},
		find: patternFinder(validateURL,
			pattern{re: urlScheme, score: 0.6},
			pattern{re: urlWWW, score: 0.5}),
	}
}

func validateURL(s string) verdict {
	s = strings.TrimRight(s, ".,;:!?")
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	if knownDomain(s) {
		return keep
	}
	return invalid
}

// CRYPTO: bitcoin addresses, base58check (P2PKH/P2SH) or bech32/bech32m
// (segwit); Presidio scores the pattern 0.5 and a valid checksum 1.0. Only
// checksummed addresses are kept.
var bitcoinPattern = regexp.MustCompile(`\b(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|(?i:bc1)[02-9ac-hj-np-zAC-HJ-NP-Z]{11,71})\b`)

func cryptoRecognizer() recognizer {
	return recognizer{
		entity:     Crypto,
		context:    []string{"wallet", "btc", "bitcoin", "crypto", "address"},
		needsDigit: true,
		applies:    func(s string) bool { return hasAlnumRun(s, 14) },
		find: patternFinder(func(s string) verdict {
			if base58CheckValid(s) || bech32Valid(s) {
				return valid
			}
			return invalid
		}, pattern{re: bitcoinPattern, score: 0.5}),
	}
}

// DATE_OF_BIRTH: a calendar date (ISO, day/month/year either way, or with
// a month name) scores 0.4; a birth word before it ("born", "DOB",
// "birthday") raises it to 0.75. A text with no birth word anywhere is not
// searched: its dates are not birth dates.
var datePatterns = []pattern{
	{re: regexp.MustCompile(`\b(?:19|20)\d{2}[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])\b`), score: 0.4},
	{re: regexp.MustCompile(`\b(?:0?[1-9]|[12]\d|3[01])[-/.](?:0?[1-9]|[12]\d|3[01])[-/.](?:19|20)?\d{2}\b`), score: 0.4},
	{re: regexp.MustCompile(`(?i)\b(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?\s+(?:19|20)\d{2}\b`), score: 0.4},
	{re: regexp.MustCompile(`(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?,?\s+(?:19|20)\d{2}\b`), score: 0.4},
}

func dateOfBirthRecognizer() recognizer {
	return recognizer{
		entity:     DateOfBirth,
		context:    []string{"born", "birth", "birthday", "birthdate", "dob", "bday"},
		needsDigit: true,
		applies:    func(s string) bool { return hasDigitRun(s, 2) && hasBirthWord(s) },
		find:       patternFinder(nil, datePatterns...),
	}
}

// hasBirthWord reports whether s holds "born", "birth", "dob" or "bday" in
// any case.
func hasBirthWord(s string) bool {
	for _, w := range []string{"born", "birth", "dob", "bday"} {
		if containsFoldASCII(s, w) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether s contains the lower-case ASCII word w,
// ignoring ASCII case.
func containsFoldASCII(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && s[i+j]|0x20 == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// hasDelimitedSSNShape reports whether s holds three digits, a separator
// and two digits ("123-45").
func hasDelimitedSSNShape(s string) bool {
	for i := 3; i+2 < len(s); i++ {
		if (s[i] == '-' || s[i] == ' ' || s[i] == '.') && isDigitByte(s[i-1]) && isDigitByte(s[i-2]) && isDigitByte(s[i-3]) && isDigitByte(s[i+1]) && isDigitByte(s[i+2]) {
			return true
		}
	}
	return false
}

// hasLetterDigits reports whether s holds a capital letter followed by
// four digits ("A1234").
func hasLetterDigits(s string) bool {
	for i := 0; i+4 < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && isDigitByte(s[i+1]) && isDigitByte(s[i+2]) && isDigitByte(s[i+3]) && isDigitByte(s[i+4]) {
			return true
		}
	}
	return false
}

// hasHexQuadDot reports whether s holds four hex digits, '.', four hex
// digits (a Cisco-style MAC address).
func hasHexQuadDot(s string) bool {
	for i := 4; i+4 < len(s); i++ {
		if s[i] == '.' && isHex(s[i-4:i]) && isHex(s[i+1:i+5]) {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !isDigitByte(s[i]) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hasSeparatedDigits reports whether s holds n digits in a row, single
// spaces or hyphens allowed between them.
func hasSeparatedDigits(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigitByte(c):
			run++
			if run >= n {
				return true
			}
		case (c == ' ' || c == '-') && i > 0 && isDigitByte(s[i-1]):
		default:
			run = 0
		}
	}
	return false
}

// hasIBANStart reports whether s holds two ASCII letters then two digits
// at the start of a word (any case).
func hasIBANStart(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		if (i == 0 || !isWordByte(s[i-1])) && isASCIILetter(s[i]) && isASCIILetter(s[i+1]) && isDigitByte(s[i+2]) && isDigitByte(s[i+3]) {
			return true
		}
	}
	return false
}

func isASCIILetter(b byte) bool { b |= 0x20; return b >= 'a' && b <= 'z' }

// hasDottedDigits reports whether s holds digit '.' digit '.' digit, the
// start of a dotted-quad address.
func hasDottedDigits(s string) bool {
	for i := 1; i+3 < len(s); i++ {
		if s[i] == '.' && isDigitByte(s[i-1]) && isDigitByte(s[i+1]) {
			j := i + 1
			for j < len(s) && isDigitByte(s[j]) {
				j++
			}
			if j+1 < len(s) && s[j] == '.' && isDigitByte(s[j+1]) {
				return true
			}
		}
	}
	return false
}
