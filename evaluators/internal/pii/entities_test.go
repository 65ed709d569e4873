package pii

import (
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/chattext"
	"github.com/evalcol/evalcol/internal/testcorpus"
)

func TestEntities(t *testing.T) {
	cases := []struct {
		typ  string
		text string
		span string // "" = no entity of typ at or above the default threshold
	}{
		// LOCATION: gazetteer, case, cues, town shapes.
		{Location, "We spent a holiday in Portugal.", "Portugal"},
		{Location, "she moved to leipzig last year", "leipzig"},
		{Location, "i left estonia in a hurry", "estonia"},
		{Location, "South Africa was super fun to visit!", "South Africa"},
		{Location, "We moved here from Kenosha", "Kenosha"},
		{Location, "We moved here from Gondregnies", "Gondregnies"},
		{Location, "The conference in Saint-Étienne was long.", "Saint-Étienne"},
		{Location, "Greetings from Port Ashdown!", "Port Ashdown"},
		{Location, "The bus to Millerton leaves soon.", "Millerton"},
		{Location, "I live in Reading.", "Reading"},
		{Location, "Further Reading is at the end.", ""},
		{Location, "I love reading books in the park.", ""},
		{Location, "Let's meet at the park after lunch.", ""},
		// ORGANIZATION.
		{Organization, "I work for Baxter-Holt as an analyst.", "Baxter-Holt"},
		{Organization, "She is employed by Quintrell Dynamics Ltd.", "Quintrell Dynamics Ltd"},
		{Organization, "my husband works for delacroix consulting", "delacroix consulting"},
		{Organization, "Climate Corporation is the brainchild of three founders.", "Climate Corporation"},
		{Organization, "Allstate Insurance Group invested heavily.", "Allstate Insurance Group"},
		{Organization, "Employer: Krodaben", "Krodaben"},
		{Organization, "I work for myself these days.", ""},
		{Organization, "Our Support Team will answer.", ""},
		// NRP.
		{NRP, "My neighbours are Portuguese and very friendly.", "Portuguese"},
		{NRP, "the new manager is dutch", "dutch"},
		{NRP, "i am catholic and go to mass", "catholic"},
		{NRP, "The saudis and the ecuadoreans met.", "saudis"},
		{NRP, "Polish the silver before dinner.", ""},
		// DATE_TIME.
		{DateTime, "It's like that since 12/1/1981", "12/1/1981"},
		{DateTime, "The payment was made on 2023-11-04 at 14:32.", "2023-11-04 at 14:32"},
		{DateTime, "My appointment is on 12 March 2024.", "12 March 2024"},
		{DateTime, "We arrived on Friday evening.", "Friday"},
		{DateTime, "Please call me after 6 pm.", "6 pm"},
		{DateTime, "The account was opened in 1998.", "1998"},
		{DateTime, "We met in the summer of 2009.", "2009"},
		{DateTime, "the train leaves at half past eight", "half past eight"},
		{DateTime, "We signed the lease in october", "october"},
		{DateTime, "You may go now.", ""},
		{DateTime, "We sold 2000 tickets.", ""},
		{DateTime, "March forward, soldiers.", ""},
		// AGE.
		{Age, "The patient is a 67-year-old man.", "67-year-old"},
		{Age, "I turned 41 today!", "41"},
		{Age, "She is aged 73 and lives alone.", "73"},
		{Age, "I am twenty-six years old.", "twenty-six years old"},
		{Age, "The applicant, 52, has no record.", "52"},
		{Age, "The suspect is in his late forties.", "his late forties"},
		{Age, "Turn 2 pages back.", ""},
		// TITLE.
		{Title, "I work as a sewer pipe cleaner.", "sewer pipe cleaner"},
		{Title, "My job title is Leasing consultant.", "Leasing consultant"},
		{Title, "Position applied for: insurance underwriter.", "insurance underwriter"},
		{Title, "She is a good friend.", ""},
		{Title, "Please give this to Dr. Marsh.", "Dr."},
		{Title, "mrs okafor called", "mrs"},
		{Title, "Mr. and Mrs. Patel are moving.", "Mrs."},
		{Title, "turn left at main dr and park", ""},
		// ZIP_CODE.
		{ZipCode, "My zip code is 53650.", "53650"},
		{ZipCode, "The postcode is 7412 SL.", "7412 SL"},
		{ZipCode, "Our post code is SW1A 1AA.", "SW1A 1AA"},
		{ZipCode, "Postal code: 53-320.", "53-320"},
		{ZipCode, "The zip file has 3 parts.", ""},
		// STREET_ADDRESS layouts.
		{StreetAddress, "psc 1234 box 5678 apo ae 09876", "apo ae 09876"},
		{StreetAddress, "Unit 2005 Box 7741, DPO AP 96522", "DPO AP 96522"},
		{StreetAddress, "Send it to 12 Rue de Lyon Ave. please", "12 Rue de Lyon"},
		// PERSON and PROPER_NOUN in any case.
		{Person, "dear dr. laurentiu, thank you", "laurentiu"},
		{Person, "thanks to naraen s. oyelaran for the reply", "naraen s. oyelaran"},
		{Person, "i'm zoravia, i have a question", "zoravia"},
		{Person, "happy birthday, giedre!", "giedre"},
		{ProperNoun, "The true gender of Vehbija has been under debate.", "Vehbija"},
		{ProperNoun, "Shovda is very reliable.", "Shovda"},
		{ProperNoun, "Please update the PowerPoint slides.", ""},
		{ProperNoun, "Open config/Settings.yaml first.", ""},
	}
	for _, c := range cases {
		t.Run(c.typ+"/"+c.text, func(t *testing.T) {
			var got []string
			for _, e := range Analyze(c.text) {
				if e.Type == c.typ && e.Score >= DefaultThreshold {
					got = append(got, c.text[e.Start:e.End])
				}
			}
			switch {
			case c.span == "" && len(got) > 0:
				t.Errorf("%s in %q: got %q, want none", c.typ, c.text, got)
			case c.span != "" && !containsSpan(got, c.span):
				t.Errorf("%s in %q: got %q, want %q", c.typ, c.text, got, c.span)
			}
		})
	}
}

func containsSpan(got []string, want string) bool {
	for _, g := range got {
		if strings.Contains(g, want) || strings.Contains(want, g) && len(g) >= len(want)/2 {
			return true
		}
	}
	return false
}

// TestHasPIIMatchesAnalyze: HasPII stops at the first entity, in its own
// order, and must agree with Analyze on every text and threshold: the
// hand-picked texts, the load test's texts and thousands of varied ones
// (testcorpus).
func TestHasPIIMatchesAnalyze(t *testing.T) {
	texts := []string{prose1KB, mixed1KB, names1KB, addresses1KB, clean1KB,
		"What are my options?", "she moved to leipzig last year", "Order 1234567 shipped.",
		"Take the lift to Suite 501 upstairs.", "My name is Rubija", "3... 2... 1... liftoff!"}
	g := chattext.New(5)
	for range 200 {
		texts = append(texts, g.Text(1024, 1024))
	}
	corpus := testcorpus.Texts()
	step := 1
	if testing.Short() {
		step = 10
	}
	for i := 0; i < len(corpus); i += step {
		texts = append(texts, corpus[i])
	}
	for _, text := range texts {
		entities := Analyze(text) // once per text, checked at every threshold
		for _, th := range []float64{0, 0.4, 0.5, DefaultThreshold, 0.8, 0.9, 1} {
			want := false
			for _, e := range entities {
				if e.Score >= th {
					want = true
				}
			}
			if got := HasPII(text, th); got != want {
				t.Errorf("HasPII(%.30q, %v) = %v, Analyze says %v", text, th, got, want)
			}
		}
	}
}

func TestLexicons(t *testing.T) {
	lx := lexicons()
	if n := len(lx.places); n < 100000 {
		t.Errorf("%d place keys, want the GeoNames towns (100,000+)", n)
	}
	for key, want := range map[string]uint8{"portugal": placeCountry, "leipzig": placeBigCity, "saskatchewan": placeRegion, "saint etienne": placeBigCity} {
		if lx.places[key]&want == 0 {
			t.Errorf("places[%q] = %b, want flag %b", key, lx.places[key], want)
		}
	}
	if lx.places["new"]&placePrefix == 0 {
		t.Error(`"new" is not marked as the start of a place name ("new york")`)
	}
	if lx.words["wisdom"]&wEnglish == 0 || lx.words["leipzig"]&wEnglish != 0 {
		t.Errorf("english flags: wisdom %b, leipzig %b", lx.words["wisdom"], lx.words["leipzig"])
	}
	for _, k := range []string{"portuguese", "saudis", "catholic", "green party"} {
		if lx.nrp[k]&1 == 0 {
			t.Errorf("nrp[%q] missing", k)
		}
	}
	if foldKey("Saint-Étienne") != "saint etienne" || foldKey("København V") != "kobenhavn v" {
		t.Errorf("foldKey: %q %q", foldKey("Saint-Étienne"), foldKey("København V"))
	}
}

func TestTokenize(t *testing.T) {
	var tb tokenBuf
	toks := tokenize("Hi, I'm Ödön. iPhone 1990s", &tb)
	var keys []string
	for _, tk := range toks {
		keys = append(keys, tk.key)
	}
	if got := strings.Join(keys, "|"); got != "hi|i|m|odon|iphone|1990|s" {
		t.Fatalf("keys = %s", got)
	}
	if !toks[0].title || !toks[0].sentStart || toks[1].sentStart || !toks[3].title || !toks[4].inner || toks[4].title || !toks[5].num || !toks[4].sentStart {
		t.Errorf("flags = %+v", toks)
	}
}
