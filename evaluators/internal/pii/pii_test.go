package pii

import (
	"math"
	"strings"
	"testing"
)

// scoreOf returns the score of the entity of type typ covering the first
// occurrence of span in text (0 when there is none).
func scoreOf(t *testing.T, text, typ, span string) float64 {
	t.Helper()
	at := strings.Index(text, span)
	if at < 0 {
		t.Fatalf("%q not in %q", span, text)
	}
	best := 0.0
	for _, e := range Analyze(text) {
		if e.Type == typ && e.Start < at+len(span) && at < e.End {
			best = max(best, e.Score)
		}
	}
	return best
}

type scoreCase struct {
	name, text, span string
	want             float64
}

func runScoreCases(t *testing.T, typ string, cases []scoreCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := scoreOf(t, c.text, typ, c.span); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("%s score of %q in %q = %v, want %v", typ, c.span, c.text, got, c.want)
			}
		})
	}
}

func TestEmail(t *testing.T) {
	runScoreCases(t, Email, []scoreCase{
		{"valid", "Write to jane.doe@example.com today.", "jane.doe@example.com", 1},
		{"country suffix", "Mail UshurmaD@rhyta.co.uk please", "UshurmaD@rhyta.co.uk", 1},
		{"unknown suffix dropped", "Write to jane@server.notatld now", "jane@server.notatld", 0},
		{"no domain", "Ping @channel now", "@channel", 0},
	})
}

func TestCreditCard(t *testing.T) {
	runScoreCases(t, CreditCard, []scoreCase{
		{"visa spaced", "Charge 4111 1111 1111 1111 now", "4111 1111 1111 1111", 1},
		{"amex bare", "card 378282246310005 please", "378282246310005", 1},
		{"luhn failure", "Charge 4111 1111 1111 1112 now", "4111 1111 1111 1112", 0},
		{"mixed separators", "Charge 4111-1111 1111 1111 now", "4111-1111 1111 1111", 0},
		{"all same digit", "id 0000000000000000", "0000000000000000", 0},
		{"12 digits no context", "ref 501864667909 done", "501864667909", 0.5},
		{"12 digits with context", "my card 501864667909 is lost", "501864667909", 0.85},
	})
}

func TestIBAN(t *testing.T) {
	runScoreCases(t, IBAN, []scoreCase{
		{"grouped", "Pay to GB82 WEST 1234 5698 7654 32 today", "GB82 WEST 1234 5698 7654 32", 1},
		{"lower case", "my iban is gb82west12345698765432", "gb82west12345698765432", 1},
		{"wrong checksum", "Pay to GB82 WEST 1234 5698 7654 33 today", "GB82 WEST 1234 5698 7654 33", 0},
		{"wrong length", "Pay to GB82WEST123456987654 today", "GB82WEST123456987654", 0},
		{"unknown country", "code QQ82WEST12345698765432 x", "QQ82WEST12345698765432", 0},
	})
}

func TestSSN(t *testing.T) {
	runScoreCases(t, USSSN, []scoreCase{
		{"with context", "Here's my SSN: 460-89-9847", "460-89-9847", 0.85},
		{"without context", "Reference 460-89-9847 attached", "460-89-9847", 0.5},
		{"area 000", "SSN 000-89-9847", "000-89-9847", 0},
		{"area 666", "SSN 666-89-9847", "666-89-9847", 0},
		{"area 9xx is an ITIN", "SSN 912-89-9847", "912-89-9847", 0},
		{"group 00", "SSN 460-00-9847", "460-00-9847", 0},
		{"serial 0000", "SSN 460-89-0000", "460-89-0000", 0},
		{"published sample", "SSN 123-45-6789", "123-45-6789", 0},
		{"mixed separators", "SSN 460-89 9847", "460-89 9847", 0},
		{"bare digits with context", "social security number 460899847", "460899847", 0.4},
	})
}

func TestITIN(t *testing.T) {
	runScoreCases(t, USITIN, []scoreCase{
		{"with context", "My ITIN is 912-70-1234", "912-70-1234", 0.85},
		{"invalid group", "My ITIN is 912-40-1234", "912-40-1234", 0},
	})
}

func TestPassportAndLicense(t *testing.T) {
	runScoreCases(t, USPassport, []scoreCase{
		{"next generation with context", "passport number A12345678", "A12345678", 0.75},
		{"next generation alone", "code A12345678", "A12345678", 0.4},
	})
	runScoreCases(t, USDriver, []scoreCase{
		{"digits with context", "My driver's license number is 5130634", "5130634", 0.75},
		{"hyphenated with context", "my driver's license number is 2270-66-1551", "2270-66-1551", 0.75},
		{"digits alone", "Order 5130634 shipped", "5130634", 0.4},
	})
}

func TestIPAddress(t *testing.T) {
	runScoreCases(t, IPAddress, []scoreCase{
		{"v4 with context", "blocked ip 165.165.185.178 today", "165.165.185.178", 0.95},
		{"v4 alone", "see 165.165.185.178 today", "165.165.185.178", 0.6},
		{"octet out of range", "ip 999.1.1.1 now", "999.1.1.1", 0},
		{"leading zero", "ip 01.84.17.61 now", "01.84.17.61", 0},
		{"five parts", "version 1.2.3.4.5 now", "1.2.3.4.5", 0},
		{"v6 with context", "ipv6 2001:db8::8a2e:370:7334 up", "2001:db8::8a2e:370:7334", 0.95},
		{"time is not v6", "at 12:34:56 sharp", "12:34:56", 0},
	})
}

func TestMACAddress(t *testing.T) {
	runScoreCases(t, MACAddress, []scoreCase{
		{"colons with context", "MAC 00:1A:2B:3C:4D:5E here", "00:1A:2B:3C:4D:5E", 0.95},
		{"hyphens alone", "id 00-1A-2B-3C-4D-5E here", "00-1A-2B-3C-4D-5E", 0.6},
		{"cisco", "mac 001a.2b3c.4d5e here", "001a.2b3c.4d5e", 0.95},
		{"mixed separators", "id 00:1A-2B:3C:4D:5E here", "00:1A-2B:3C:4D:5E", 0},
	})
}

func TestURL(t *testing.T) {
	runScoreCases(t, URL, []scoreCase{
		{"scheme", "see https://www.example.com/path?q=1 now", "https://www.example.com/path?q=1", 0.6},
		{"with context", "My website is http://www.ScrapbookInsider.com.pt/", "http://www.ScrapbookInsider.com.pt/", 0.95},
		{"www only", "go to www.example.org today", "www.example.org", 0.5},
		{"unknown suffix", "see http://intranet.local/x now", "http://intranet.local/x", 0},
	})
}

func TestCrypto(t *testing.T) {
	runScoreCases(t, Crypto, []scoreCase{
		{"base58check", "send to 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa now", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", 1},
		{"bad checksum", "send to 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb now", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb", 0},
		{"bech32", "send to BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4 now", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", 1},
		{"bech32 bad checksum", "send to BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T5 now", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T5", 0},
	})
}

func TestDateOfBirth(t *testing.T) {
	runScoreCases(t, DateOfBirth, []scoreCase{
		{"born with month name", "She was born on 12 March 1990 in Leeds", "12 March 1990", 0.75},
		{"dob iso", "DOB: 1990-03-12", "1990-03-12", 0.75},
		{"birth far before", "date of birth. It's 6/24/1991", "6/24/1991", 0.75},
		{"no birth word", "The meeting is on 1990-03-12", "1990-03-12", 0},
		{"impossible month", "born 1990-13-12", "1990-13-12", 0},
	})
}

func TestPhone(t *testing.T) {
	runScoreCases(t, Phone, []scoreCase{
		{"north american formatted", "I was sent 541-714-1388 yesterday", "541-714-1388", 0.75},
		{"north american with context", "Call me at 541-714-1388", "541-714-1388", 1},
		{"international", "Reach +44 20 7946 0958 anytime", "+44 20 7946 0958", 1},
		{"international no context", "See +44 20 7946 0958 below", "+44 20 7946 0958", 0.75},
		{"french trunk prefix", "see 01 84 17 61 18 today", "01 84 17 61 18", 0.75},
		{"extension", "Desk: (898)666-3621x0135", "(898)666-3621x0135", 1},
		{"short local number with context", "Phone: 358 0594", "358 0594", 0.85},
		{"short local number alone", "at 358 0594 Main", "358 0594", 0.5},
		{"bare digits valid", "ref 4155552671 x", "4155552671", 0.5},
		{"phone-shaped but invalid", "see 000 000 0000 x", "000 000 0000", 0.4},
		{"date is not a phone", "When: 2015-12-22 04:34:22", "2015-12-22 04", 0},
		{"too short", "call 12 34 56", "12 34 56", 0},
	})
}

func TestPerson(t *testing.T) {
	runScoreCases(t, Person, []scoreCase{
		{"known first name and surname", "Yesterday John Whitfield called.", "John Whitfield", 0.85},
		{"known first name alone", "Why is Samantha so impulsive?", "Samantha", 0.7},
		{"name cue", "My name is Rubija", "Rubija", 0.7},
		{"title cue", "please correct it to Dr. Cettina Fanucci?", "Cettina Fanucci", 0.75},
		{"self introduction", "I'm Quarto Angelo, from Križe", "Quarto Angelo", 0.75},
		{"middle initial", "verses from Faina D. Yefremova's tales", "Faina D. Yefremova", 0.4},
		{"given name after a title word", "Producer James Sparks explained", "James Sparks", 0.85},
		{"unknown word", "We moved here from Kenosha", "Kenosha", 0.35},
		{"sentence start word", "The weather was fine", "The", 0},
		{"all capitals", "Visit LAPPEENRANTA soon", "LAPPEENRANTA", 0},
	})
}

func TestContextWindow(t *testing.T) {
	cases := []struct {
		name, text, target string
		words              []string
		want               bool
	}{
		{"adjacent", "phone 123", "123", []string{"phone"}, true},
		{"five words back", "phone one two three four 123", "123", []string{"phone"}, true},
		{"six words back", "phone one two three four five 123", "123", []string{"phone"}, false},
		{"prefix of a longer word", "phones: 123", "123", []string{"phone"}, true},
		{"short word must match whole", "ipsum 1.2.3.4", "1.2.3.4", []string{"ip"}, false},
		{"case-insensitive", "SSN: 123", "123", []string{"ssn"}, true},
		{"apostrophe kept", "driver's licence 123", "123", []string{"driver's"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hasContext(c.text, strings.Index(c.text, c.target), c.words); got != c.want {
				t.Errorf("hasContext(%q) = %v, want %v", c.text, got, c.want)
			}
		})
	}
}

func TestHasPIIThreshold(t *testing.T) {
	text := "I was sent 541-714-1388 yesterday" // a phone scored 0.75
	cases := []struct {
		threshold float64
		want      bool
	}{{0.5, true}, {0.75, true}, {0.76, false}, {0.99, false}}
	for _, c := range cases {
		if got := HasPII(text, c.threshold); got != c.want {
			t.Errorf("HasPII(threshold %v) = %v, want %v", c.threshold, got, c.want)
		}
	}
}

func TestAnalyzeOrderAndDedupe(t *testing.T) {
	text := "Mail jane@example.com or call 541-714-1388."
	es := Analyze(text)
	for i := 1; i < len(es); i++ {
		if es[i].Start < es[i-1].Start {
			t.Fatalf("entities not sorted by start: %+v", es)
		}
	}
	seen := map[string]int{}
	for _, e := range es {
		if e.Score >= DefaultThreshold {
			seen[e.Type]++
		}
	}
	if seen[Email] != 1 || seen[Phone] != 1 {
		t.Errorf("got %+v, want one email and one phone above the threshold", es)
	}
}

func TestValidators(t *testing.T) {
	t.Run("luhn", func(t *testing.T) {
		for d, want := range map[string]bool{"79927398713": true, "79927398710": false, "4111111111111111": true} {
			if luhn(d) != want {
				t.Errorf("luhn(%s) = %v, want %v", d, !want, want)
			}
		}
	})
	t.Run("iban", func(t *testing.T) {
		for s, want := range map[string]bool{"DE89370400440532013000": true, "DE89370400440532013001": false, "FR1420041010050500013M02606": true, "NO9386011117947": true} {
			if ibanValid(s) != want {
				t.Errorf("ibanValid(%s) = %v, want %v", s, !want, want)
			}
		}
	})
}

// FuzzAnalyze checks that Analyze never panics and returns spans inside
// the text.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"", "+", "(", "1 ext 2", "555-1234 x", "@", "999.", "Mr. É", "I'm", "a@b.c", "+44 20 7946 0958 ext. 12", "bc1", "1.2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range Analyze(s) {
			if e.Start < 0 || e.End > len(s) || e.Start >= e.End || e.Score <= 0 || e.Score > 1 {
				t.Fatalf("bad entity %+v in %q", e, s)
			}
		}
	})
}
