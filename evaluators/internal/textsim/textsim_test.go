package textsim

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	cases := []struct {
		name string
		text string
		keys []string
	}{
		{"words are stemmed", "Running runners ran", []string{"run", "runner", "ran"}},
		{"stop words keep their form", "The cats are here", []string{"the", "cat", "are", "here"}},
		{"numbers are normalised", "1,500 people in 1990s, 3rd and 2.5", []string{"1500", "peopl", "in", "1990", "3", "and", "2.5"}},
		{"number words become digits", "two of the first ten", []string{"2", "of", "the", "1", "10"}},
		{"contractions stay whole", "I don't know, do n't", []string{"i", "don't", "know", "do", "n't"}},
		{"typographic apostrophe", "isn\u2019t", []string{"isn't"}},
		{"unicode letters", "Café Zürich 東京", []string{"café", "zürich", "東京"}},
		{"punctuation only", "... !!! --", nil},
		{"empty", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var keys []string
			for _, tok := range Tokenize(c.text) {
				keys = append(keys, tok.Key)
			}
			if !slices.Equal(keys, c.keys) {
				t.Errorf("keys of %q = %q, want %q", c.text, keys, c.keys)
			}
		})
	}
}

func TestTokenFlags(t *testing.T) {
	toks := Tokenize("Paris is not in Germany. It isn't 1900 now.")
	want := []struct {
		text                     string
		number, stop, neg, start bool
		entity                   bool
	}{
		{"Paris", false, false, false, true, false},
		{"is", false, true, false, false, false},
		{"not", false, true, true, false, false},
		{"in", false, true, false, false, false},
		{"Germany", false, false, false, false, true},
		{"It", false, true, false, true, false},
		{"isn't", false, true, true, false, false},
		{"1900", true, false, false, false, false},
		{"now", false, true, false, false, false},
	}
	if len(toks) != len(want) {
		t.Fatalf("got %d tokens, want %d", len(toks), len(want))
	}
	for i, w := range want {
		got := toks[i]
		if got.Text != w.text || got.Number != w.number || got.Stop != w.stop || got.Negation != w.neg || got.SentenceStart != w.start || got.Entity() != w.entity {
			t.Errorf("token %d = %+v (entity %v), want %+v", i, got, got.Entity(), w)
		}
		if "Paris is not in Germany. It isn't 1900 now."[got.Start:got.End] != got.Text {
			t.Errorf("token %d offsets [%d,%d) do not give %q", i, got.Start, got.End, got.Text)
		}
	}
	if n := Negations(toks); n != 2 {
		t.Errorf("Negations = %d, want 2", n)
	}
	if got := Numbers(toks); !slices.Equal(got, []string{"1900"}) {
		t.Errorf("Numbers = %q, want [1900]", got)
	}
}

func TestSentences(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"plain", "One here. Two there! Three? ", []string{"One here.", "Two there!", "Three?"}},
		{"missing space", "in the 19th century.First for Women is a magazine.", []string{"in the 19th century.", "First for Women is a magazine."}},
		{"initials and abbreviations", "J. K. Rowling met Dr. Smith in the U.S. yesterday. Then she left.", []string{"J. K. Rowling met Dr. Smith in the U.S. yesterday.", "Then she left."}},
		{"decimal numbers", "It costs 3.50 euros. Cheap.", []string{"It costs 3.50 euros.", "Cheap."}},
		{"closing quote", "He said \"stop.\" She did.", []string{"He said \"stop.\"", "She did."}},
		{"line breaks", "first line\nsecond line", []string{"first line", "second line"}},
		{"no final mark", "no end", []string{"no end"}},
		{"empty", "  ", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Sentences(c.text); !slices.Equal(got, c.want) {
				t.Errorf("Sentences(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestNormalizedEqual(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"Delhi", "delhi.", true},
		{"New  York!", "new york", true},
		{"", "  ", true},
		{"À Délhi", "à délhi", true},
		{"New York", "NewYork", false},
		{"Delhi", "Delhi Gate", false},
		{"Delhi Gate", "Delhi", false},
		{"12", "13", false},
	}
	for _, c := range cases {
		if got := NormalizedEqual(c.a, c.b); got != c.want {
			t.Errorf("NormalizedEqual(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestOverlapMeasures(t *testing.T) {
	a := Tokenize("The cat sits on the mat")
	b := Tokenize("A cat sitting on a mat")
	c := Tokenize("Stock prices fell")
	cases := []struct {
		name   string
		got    float64
		lo, hi float64
	}{
		{"F1 of inflections", F1(a, b), 1, 1},
		{"F1 disjoint", F1(a, c), 0, 0},
		{"Cosine same content", Cosine(a, b), 1, 1},
		{"Cosine disjoint", Cosine(a, c), 0, 0},
		{"Jaccard same content", Jaccard(a, b), 1, 1},
		{"Jaccard half", Jaccard(Tokenize("cat dog"), Tokenize("cat bird dog fish")), 0.5, 0.5},
		{"Order same", OrderSimilarity(a, b), 1, 1},
		{"Order reversed", OrderSimilarity(Tokenize("dog bites man"), Tokenize("man bites dog")), 1.0 / 3, 1.0 / 3},
		{"Trigram identical", CharNgramCosine("hello world", "Hello, world!", 3), 1, 1},
		{"Trigram related", CharNgramCosine("playing", "played", 3), 0.3, 0.8},
		{"Trigram empty", CharNgramCosine("", "abc", 3), 0, 0},
		{"Coverage partial", func() float64 { s, _ := Coverage(Tokenize("zyxqa wvutb"), NewKeySet(Tokenize("a zyxqa"))); return s }(), 0.5, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got < c.lo-1e-9 || c.got > c.hi+1e-9 {
				t.Errorf("= %v, want in [%g, %g]", c.got, c.lo, c.hi)
			}
		})
	}
}

func TestIDF(t *testing.T) {
	common, rare, unseen := IDF("women"), IDF("actor"), IDF("zyxqwv")
	if !(common < rare && rare < unseen) {
		t.Errorf("IDF women %v, actor %v, unseen %v: want increasing", common, rare, unseen)
	}
	if unseen != 1 {
		t.Errorf("IDF of an unseen key = %v, want 1", unseen)
	}
	if common <= 0 || common > 0.3 {
		t.Errorf("IDF of a very common key = %v, want in (0, 0.3]", common)
	}
}

func TestSimilarity(t *testing.T) {
	cases := []struct {
		name   string
		a, b   string
		lo, hi float64
	}{
		{"identical", "A man is playing a guitar.", "A man is playing a guitar.", 1, 1},
		{"paraphrase", "A man is playing a guitar.", "The man plays the guitar.", 0.7, 0.95},
		{"unrelated", "A man is playing a guitar.", "Stock markets fell sharply today.", 0, 0.2},
		{"negation lowers", "The cat is on the mat.", "The cat is not on the mat.", 0.5, 0.85},
		{"both empty", "", "", 1, 1},
		{"one empty", "", "a", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Similarity(c.a, c.b)
			if got < c.lo || got > c.hi || math.IsNaN(got) {
				t.Errorf("Similarity(%q, %q) = %v, want in [%g, %g]", c.a, c.b, got, c.lo, c.hi)
			}
			if back := Similarity(c.b, c.a); math.Abs(back-got) > 1e-12 {
				t.Errorf("not symmetric: %v vs %v", got, back)
			}
		})
	}
}

func TestClaimSupport(t *testing.T) {
	const ctx = "The Oberoi Group is a hotel company with its head office in Delhi. It runs 30 hotels, but no airline."
	cases := []struct {
		name              string
		text              string
		claims, supported int
	}{
		{"supported", "The Oberoi Group has its head office in Delhi.", 1, 1},
		{"wrong number", "The Oberoi Group runs 31 hotels.", 1, 0},
		{"negated", "The Oberoi Group does not have its head office in Delhi.", 1, 0},
		{"invented", "The company was founded by Tesla in Mumbai.", 1, 0},
		{"mixed", "It runs 30 hotels. It builds rockets on Mars.", 2, 1},
		{"no content", "Yes, it is so.", 0, 0},
		{"unrelated negation in the context", "It runs 30 hotels.", 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ClaimSupport(c.text, ctx)
			if s.Claims != c.claims || s.Supported != c.supported {
				t.Errorf("ClaimSupport = %+v, want %d claims, %d supported", s, c.claims, c.supported)
			}
			if s.Score < 0 || s.Score > 1 {
				t.Errorf("Score = %v, want 0..1", s.Score)
			}
		})
	}
	if got := ClaimSupport("", ctx).SupportedShare(); got != 1 {
		t.Errorf("SupportedShare of no claim = %v, want 1", got)
	}
}

func TestExpectedAnswer(t *testing.T) {
	cases := []struct {
		q    string
		want AnswerType
	}{
		{"How many moons does Mars have?", AnswerNumber},
		{"When was it built?", AnswerDate},
		{"In what year did it open?", AnswerDate},
		{"Who wrote Hamlet?", AnswerName},
		{"Where is the Louvre?", AnswerName},
		{"What city hosts the Louvre?", AnswerName},
		{"Why is the sky blue?", AnswerAny},
	}
	for _, c := range cases {
		if got := ExpectedAnswer(Tokenize(c.q)); got != c.want {
			t.Errorf("ExpectedAnswer(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestRelevance(t *testing.T) {
	q := "When was the Eiffel Tower built?"
	answer := Relevance(q, "The Eiffel Tower was built in 1889.")
	noDate := Relevance(q, "The Eiffel Tower is made of iron.")
	offTopic := Relevance(q, "Bananas grew in 1889.")
	if !(answer > noDate && noDate > offTopic) {
		t.Errorf("want answer %v > on-topic without date %v > off-topic %v", answer, noDate, offTopic)
	}
	if got := Relevance(q, ""); got != 0 {
		t.Errorf("Relevance of empty answer = %v, want 0", got)
	}
}

func TestPhraseLists(t *testing.T) {
	toks := Tokenize("I think it's Paris, but I'm not sure. Maybe.")
	ms := Hedges().Find(toks)
	var got []string
	for _, m := range ms {
		var words []string
		for _, tok := range toks[m.First : m.Last+1] {
			words = append(words, tok.Lower)
		}
		got = append(got, strings.Join(words, " "))
	}
	if want := []string{"i think", "i'm not sure", "maybe"}; !slices.Equal(got, want) {
		t.Errorf("hedges found = %q, want %q (longest match first)", got, want)
	}
	for name, l := range map[string]*PhraseList{"polite": Polite(), "rude": Rude(), "limits": Limits()} {
		if len(l.byFirst) == 0 {
			t.Errorf("%s lexicon is empty", name)
		}
	}
	if w := Rude().Weight(Tokenize("Thank you, happy to help")); w != 0 {
		t.Errorf("rude weight of a polite text = %v, want 0", w)
	}
}

func TestParsePhrasesErrors(t *testing.T) {
	cases := []struct {
		name, text, msg string
	}{
		{"no tab", "1.0 maybe", "x.txt line 1: want weight<TAB>phrase"},
		{"bad weight", "# c\nhigh\tmaybe", "x.txt line 2: weight: strconv.ParseFloat"},
		{"empty phrase", "1.0\t...", "x.txt line 1: empty phrase"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parsePhrases("x.txt", c.text)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error = %v, want one containing %q", err, c.msg)
			}
		})
	}
}

var benchText = strings.Repeat("The Oberoi Group is a hotel company with its head office in Delhi. "+
	"It was founded in 1934 and runs more than 30 hotels and two river cruisers. ", 8)[:1024]

func BenchmarkTokenize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Tokenize(benchText)
	}
}

func BenchmarkSimilarity(b *testing.B) {
	other := benchText[200:] + benchText[:200]
	b.ReportAllocs()
	for b.Loop() {
		Similarity(benchText, other)
	}
}

func BenchmarkClaimSupport(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ClaimSupport(benchText[:300], benchText)
	}
}

func TestConcurrentUse(t *testing.T) {
	done := make(chan float64)
	for i := range 8 {
		go func() {
			s := Similarity(benchText, benchText[i*10:]) + ClaimSupport(benchText[:200], benchText).Score + Relevance("Where is the head office?", benchText)
			done <- s
		}()
	}
	for range 8 {
		if s := <-done; math.IsNaN(s) {
			t.Error("NaN score under concurrent use")
		}
	}
}

func TestOrderSimilarityLongTexts(t *testing.T) {
	long := Tokenize(strings.Repeat("alpha beta gamma delta ", 1500))
	if got := OrderSimilarity(long, long); got != 1 {
		t.Errorf("OrderSimilarity of a long text with itself = %v, want 1", got)
	}
}

func TestTokenizeNonASCIIDigits(t *testing.T) {
	// Digits of other scripts are numbers and the scan always advances
	// (an Arabic-Indic digit once looped forever).
	for _, s := range []string{"٦", "٦٧ apples", "१२३", "１２.５", "𝟘", "a٦b", "٦,"} {
		toks := Tokenize(s)
		if len(toks) == 0 || len(toks) > len(s) {
			t.Errorf("Tokenize(%q) = %d tokens", s, len(toks))
		}
	}
}

func TestNumberValues(t *testing.T) {
	for _, c := range []struct {
		text string
		want []float64
	}{
		{"About 380,000 people", []float64{380000}},
		{"roughly 380 thousand", []float64{380000}},
		{"3.8 million and one hundred", []float64{3.8e6, 100}},
		{"two moons, 12 hotels", []float64{2, 12}},
		{"a cycle of <num> years", nil},
	} {
		got := NumberValues(Tokenize(c.text))
		if len(got) != len(c.want) {
			t.Errorf("NumberValues(%q) = %v, want %v", c.text, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("NumberValues(%q) = %v, want %v", c.text, got, c.want)
			}
		}
	}
}

func TestContradiction(t *testing.T) {
	for _, c := range []struct {
		q, a, ref string
		want      bool
	}{
		{"When was it completed?", "It was completed in 1898.", "The tower was completed in 1889.", true},
		{"When was it completed?", "It was finished in 1889.", "The tower was completed in 1889.", false},
		{"What is the capital of Australia?", "Melbourne is the capital of Australia.", "The capital of Australia is Canberra.", true},
		{"What is the capital of Australia?", "Canberra is Australia's capital.", "The capital of Australia is Canberra.", false},
		{"Where were the first Olympic Games?", "In Athens, Greece.", "The first Olympic Games were held in Athens.", false},
		{"Is it open?", "The museum is not open on Mondays.", "The museum is open on Mondays.", true},
		{"When does it open?", "It opens at 9:00.", "It opens at 9 am.", false},
		{"How many?", "There are 3 moons.", "Mars has moons.", false},
	} {
		if got := Contradiction(Tokenize(c.a), Tokenize(c.ref), Tokenize(c.q)); got != c.want {
			t.Errorf("Contradiction(%q, %q) = %v, want %v", c.a, c.ref, got, c.want)
		}
	}
}

func TestEmbeddingCosine(t *testing.T) {
	cos := func(a, b string) float64 {
		c, ok := EmbeddingCosine(Tokenize(a), Tokenize(b))
		if !ok {
			t.Fatalf("EmbeddingCosine(%q, %q): no vectors", a, b)
		}
		return c
	}
	para := cos("The cat is sleeping on the sofa.", "A kitten naps on the couch.")
	other := cos("The cat is sleeping on the sofa.", "Interest rates rose again this quarter.")
	if para <= other+0.2 {
		t.Errorf("paraphrase cosine %.3f not above unrelated %.3f by 0.2", para, other)
	}
	if c := cos("Heavy rain flooded the valley.", "Heavy rain flooded the valley."); c < 0.999 {
		t.Errorf("identical texts: cosine %.4f, want 1", c)
	}
	if _, ok := EmbeddingCosine(Tokenize("the of and"), Tokenize("cat")); ok {
		t.Error("stop words only: want ok = false")
	}
}

func TestAnswerRelevance(t *testing.T) {
	const q = "When was the Eiffel Tower built?"
	answer := AnswerRelevance(q, "The Eiffel Tower was built in 1889.")
	masked := AnswerRelevance(q, "The Eiffel Tower was built in <num> .")
	noDate := AnswerRelevance(q, "The Eiffel Tower is made of iron.")
	offTopic := AnswerRelevance(q, "Bananas grew in 1889.")
	if answer < 0.5 || masked < 0.5 {
		t.Errorf("answer %.3f, masked-number answer %.3f: want >= 0.5", answer, masked)
	}
	if noDate >= 0.5 || offTopic >= 0.5 {
		t.Errorf("on topic without a date %.3f, off topic %.3f: want < 0.5", noDate, offTopic)
	}
	// A synonym of a question word counts through its vector.
	syn := AnswerRelevance("How much did the company purchase the building for?", "The firm bought the building for $4 million.")
	none := AnswerRelevance("How much did the company purchase the building for?", "The firm painted the building in May.")
	if syn <= none {
		t.Errorf("synonym answer %.3f not above non-answer %.3f", syn, none)
	}
	if got := AnswerRelevance(q, ""); got != 0 {
		t.Errorf("empty answer: %.3f, want 0", got)
	}
}
