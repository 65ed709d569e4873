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
		{"name cue", "My name is Rubija", "Rubija", 0.75},
		{"title cue adds to a known surname", "please correct it to Dr. Cettina Fanucci?", "Cettina Fanucci", 1},
		{"self introduction before a run", "I'm Quarto Angelo, from Križe", "Quarto Angelo", 1},
		{"middle initial", "verses from Faina D. Yefremova's tales", "Faina D. Yefremova", 0.75},
		{"middle initial after a non-name word", "a lack of Vitamin D Absorption here", "Vitamin D Absorption", 0.4},
		{"given name after a title word, speech verb", "Producer James Sparks explained", "James Sparks", 1},
		{"unknown word", "We moved here from Kenosha", "Kenosha", 0.35},
		{"sentence start word", "The weather was fine", "The", 0},
		{"all capitals", "Visit LAPPEENRANTA soon", "LAPPEENRANTA", 0},
		// Census surnames and surname shapes.
		{"unknown given name, census surname", "the lead was Zorvan Kowalczyk tonight", "Zorvan Kowalczyk", 0.75},
		{"unknown given name, surname-shaped", "a talk by Dravo Petrashvili today", "Dravo Petrashvili", 0.75},
		{"nordic patronymic", "a song by Yrsa Haldorsdottir today", "Yrsa Haldorsdottir", 0.75},
		{"surname alone stays below threshold", "the Gonzalez report was late", "Gonzalez", 0.45},
		{"diacritics folded for lookup", "we saw Zoltán Sörös there", "Zoltán Sörös", 0.85},
		{"possessive stripped for lookup", "Edith Kowalczyk's garden", "Edith Kowalczyk's", 0.85},
		// Cues.
		{"german honorific", "Bitte an Frau Quellbrunn senden", "Quellbrunn", 0.85},
		{"spanish honorific", "Saludos a la Señora Ortuzar", "Ortuzar", 0.7},
		{"relation right before", "I want to remove my kid Travon from the will", "Travon", 0.7},
		{"possessive relation", "It was between him and Asyel's kid", "Asyel", 0.7},
		{"signed off", "Regards,\nQuorin Talbeck", "Quorin Talbeck", 0.75},
		{"speech verb after two words", "Velma Trask said no", "Velma Trask", 1},
		{"speech verb after one unknown word", "Google said no", "Google", 0.35},
		// Lower-case names.
		{"lower-case given name and surname", "follow up with wanda gonzalez soon", "wanda gonzalez", 0.75},
		{"lower-case given name and surname-shaped", "ivan kravchenko's notes", "ivan kravchenko", 0.75},
		{"lower-case speaker label", "bob: hi\ntracy: who are you?", "tracy", 0.7},
		{"lower-case given name without cue", "we met tracy there", "tracy", 0},
		// Organisations and places.
		{"organisation word after the run", "Russell Investments is an agency", "Russell Investments", 0},
		{"organisation word inside the run", "a loan from Harper Capital today", "Harper", 0},
		{"place prefix", "We flew to San Jose yesterday", "San Jose", 0},
		{"country is not a given name", "I will travel to France next week", "France", 0.35},
		{"nationality breaks a run", "an Irish Setter", "Irish", 0},
	})
}

func TestFoldName(t *testing.T) {
	cases := map[string]string{"Sörös": "soros", "Wisława": "wislawa", "Guðmundsdóttir": "gudmundsdottir", "Straße": "strasse", "Søren": "soren", "JOHN": "john"}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := foldName(in); got != want {
				t.Errorf("foldName(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestSurnameShaped(t *testing.T) {
	cases := []struct {
		key  string
		want bool
	}{
		{"kowalski", true}, {"szczepanska", true}, {"petrov", true}, {"ivanova", true}, {"arvidsson", true},
		{"jovanovic", true}, {"virtanen", true}, {"beridze", true}, {"papadopoulos", true},
		{"alaska", false}, {"nebraska", false}, {"geneva", false}, {"husky", false}, {"ski", false}, {"smith", false},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			if got := surnameShaped(c.key); got != c.want {
				t.Errorf("surnameShaped(%q) = %v, want %v", c.key, got, c.want)
			}
		})
	}
}

func TestNameLists(t *testing.T) {
	given, sur := givenNames(), surnames()
	if len(given) < 5000 || len(sur) < 80000 {
		t.Fatalf("name lists too small: %d given names, %d surnames", len(given), len(sur))
	}
	for _, w := range []string{"mary", "james", "krzysztof", "roxanne"} {
		if !given[w] {
			t.Errorf("given name %q missing", w)
		}
	}
	for _, w := range []string{"will", "rose", "france", "georgia"} {
		if given[w] {
			t.Errorf("%q must not be a given name", w)
		}
	}
	for _, w := range []string{"whitfield", "kowalczyk", "gonzalez"} {
		if !sur[w] {
			t.Errorf("surname %q missing", w)
		}
	}
	for _, w := range []string{"brown", "stone", "kong", "the"} {
		if sur[w] {
			t.Errorf("%q must not be a surname", w)
		}
	}
}

func TestStreetAddress(t *testing.T) {
	runScoreCases(t, StreetAddress, []scoreCase{
		// Number first, English street types.
		{"us street", "They stood near 221 Baker Street all day", "221 Baker Street", 0.75},
		{"abbreviated type", "the shop at 1668 Glyn St closed", "1668 Glyn St", 0.75},
		{"with unit", "It is 12 Timms Drive Suite 215 now", "12 Timms Drive", 0.85},
		{"with state and zip", "It is 500 Oak Lane, Springfield, IL 62704 now", "500 Oak Lane", 0.85},
		{"lower case needs context", "we drove past 3911 fourth avenue today", "3911 fourth avenue", 0.5},
		{"lower case with context", "my address is 3911 fourth avenue", "3911 fourth avenue", 0.85},
		{"year before a street name", "In 2004 Central Park Drive was repaved", "2004 Central Park Drive", 0.5},
		// Suffixed street names.
		{"finnish", "Asun osoitteessa Koskikatu 25 nyt", "Koskikatu 25", 0.75},
		{"danish lower case", "we met at hersnapvej 18 once", "hersnapvej 18", 0.5},
		{"danish with context", "I live at hersnapvej 18", "hersnapvej 18", 0.85},
		{"german word after", "The bus station is on Villacher Strasse 89", "Villacher Strasse 89", 0.75},
		{"hungarian", "The office is at Király u. 15.", "Király u. 15.", 1},
		{"english word with a danish suffix", "The Brigade 3 marched", "Brigade 3", 0.5},
		// Street type first.
		{"french", "Rendez-vous au 137 Avenue Teboulbi demain", "137 Avenue Teboulbi", 0.75},
		{"portuguese", "Fica na Rua do Arenque 1634 em Goiânia", "Rua do Arenque 1634", 0.75},
		{"polish", "Biuro: ul. Miła 53 w centrum", "ul. Miła 53", 0.75},
		// Boxes.
		{"po box", "Write to P.O. Box 287 in town", "P.O. Box 287", 0.75},
		{"german postfach", "Bitte an Postfach 1234 schicken", "Postfach 1234", 0.75},
		{"military", "Meet me at PSC 1437, Box 3833\nAPO AA 66791", "PSC 1437, Box 3833", 1},
		// Numbered street names and units.
		{"numbered name with unit", "It is 9721 Dalmatinova 43 Apt. 678 Velenje", "9721 Dalmatinova 43", 0.85},
		{"numbered name with context", "She lives at 172 Maneezi 75, Saarekyla", "172 Maneezi 75", 0.85},
		{"unit alone", "Take the lift to Suite 501 upstairs", "Suite 501", 0.4},
		{"unit with context", "my new address is Apt. 595", "Apt. 595", 0.75},
		// Not addresses.
		{"date", "He was born on 25 January 1915 in town", "25 January 1915", 0},
		{"range", "He served from 2011 to 2017 in office", "2011 to 2017", 0},
		{"duration", "It is a 2 hour drive from here", "2 hour drive", 0},
		{"count", "We sold 48 million tickets", "48 million", 0},
	})
}

func TestStreetAddressThreshold(t *testing.T) {
	cases := []struct {
		name, text string
		threshold  float64
		want       bool
	}{
		{"street at default threshold", "They stood near 221 Baker Street all day", DefaultThreshold, true},
		{"street above its score", "They stood near 221 Baker Street all day", 0.8, false},
		{"unit alone below default", "Take the lift to Suite 501 upstairs", DefaultThreshold, false},
		{"unit alone at a low threshold", "Take the lift to Suite 501 upstairs", 0.4, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := HasPII(c.text, c.threshold); got != c.want {
				t.Errorf("HasPII(%q, %v) = %v, want %v", c.text, c.threshold, got, c.want)
			}
		})
	}
}

// TestProseHasNoPII: prose without any entity of Presidio's label (no
// person, place, organisation, date, age, group, title or number that is
// one) scores nothing at the default threshold. Texts with places, firms
// and dates are in TestEntities.
func TestProseHasNoPII(t *testing.T) {
	for _, text := range []string{
		clean1KB,
		"Take the 2 hour drive along the old road and stop at the canyon.",
		"A lack of Vitamin D Absorption was found in 12 patients.",
		"Capitalized words like Wisdom and Discipline are often mistaken with names.",
		"Excuse me, Sir bot, but I really don't like this tone",
		"My religion does not allow speaking to bots, they are evil and hacked by the Devil",
		"WHAT ??? I DON'T KNOW WHAT TO PRESS NEXT!!! ? !! ?!",
		"Please update the PowerPoint slides and open the Excel sheet.",
		"We sold 48 million tickets and cut delays to four minutes.",
	} {
		t.Run(text[:20], func(t *testing.T) {
			for _, e := range Analyze(text) {
				if e.Score >= DefaultThreshold {
					t.Errorf("%s %q scored %v in %q", e.Type, text[e.Start:e.End], e.Score, text)
				}
			}
		})
	}
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

// FuzzAnalyze checks that Analyze never panics, returns spans inside the
// text, and agrees with HasPII at the default threshold.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"", "+", "(", "1 ext 2", "555-1234 x", "@", "999.", "Mr. É", "I'm", "a@b.c", "+44 20 7946 0958 ext. 12", "bc1", "1.2.3.4.5",
		"she moved to leipzig", "12/1/1981", "aged 7", "psc 1 box 2 apo ae 12345", "zip 1", "I work for X-Y", "São"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := false
		for _, e := range Analyze(s) {
			if e.Start < 0 || e.End > len(s) || e.Start >= e.End || e.Score <= 0 || e.Score > 1 {
				t.Fatalf("bad entity %+v in %q", e, s)
			}
			want = want || e.Score >= DefaultThreshold
		}
		if got := HasPII(s, DefaultThreshold); got != want {
			t.Fatalf("HasPII(%q) = %v, Analyze says %v", s, got, want)
		}
	})
}
