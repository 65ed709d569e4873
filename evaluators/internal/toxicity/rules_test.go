package toxicity

import (
	"os"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

func TestDetectCategories(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Category // "" when nothing is found
	}{
		{"second person insult", "You are a worthless idiot.", Insult},
		{"vocative insult", "Shut up, you brainless moron.", Insult},
		{"third person insult", "Your neighbour is a worthless idiot.", Insult},
		{"weak noun with adjective", "He's a spineless coward.", Insult},
		{"adjective insult", "She is so stupid.", Insult},
		{"insult like you", "Idiots like you ruin everything.", Insult},
		{"death wish third person", "I hope he dies.", DeathWish},
		{"death wish with words between", "I really hope your mother gets cancer.", DeathWish},
		{"should be shot", "People like you should be shot.", DeathWish},
		{"threat", "I'm going to find you and break your legs.", Threat},
		{"threat third person", "I am going to stab him tomorrow.", Threat},
		{"know where you live", "I know where you live.", Threat},
		{"kill yourself", "Just go kill yourself.", SelfHarm},
		{"leet kys", "k y s", SelfHarm},
		{"drink bleach", "Go drink some bleach.", SelfHarm},
		{"dehumanisation", "Immigrants are vermin.", Dehumanisation},
		{"dehumanisation pronoun", "They are nothing but animals.", Dehumanisation},
		{"identity hate", "All Muslims are terrorists.", IdentityHate},
		{"hate a group", "I hate gay people.", IdentityHate},
		{"harassment", "Nobody likes you and everyone laughs at you.", Harassment},
		{"doxxing", "I'll post your address online.", Harassment},
		{"obscene abuse", "Go fuck yourself.", ObsceneAbuse},
		{"polite", "Thank you for the lovely dinner.", ""},
		{"hope for the good", "I hope he gets the job.", ""},
		{"kill a process", "How do I kill a process on Linux?", ""},
		{"factual death", "The patient died of heart failure.", ""},
		{"shot down", "The army shot down the drone.", ""},
		{"animals as animals", "Dogs are animals that were domesticated from wolves.", ""},
		{"criticism of an idea", "This argument is stupid.", ""},
		{"positive group statement", "Immigrants are a valuable part of our economy.", ""},
		{"negated insult", "You are not an idiot.", ""},
		{"negation before", "I don't think he is a loser at all.", ""},
		{"negated death wish", "I hope he doesn't die.", ""},
		{"negated threat", "I will never hurt you.", ""},
		{"talked about", "Calling people idiots is wrong.", ""},
		{"meta cue", "It's never okay to say kill yourself to someone.", ""},
		{"quoted in a longer text", `The comment "you are a worthless idiot" was removed.`, ""},
		{"quotation alone", `"You are a worthless idiot"`, Insult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Detect(tt.text)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("Detect(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
			}
		})
	}
}

func TestLiterals(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain words", "idiot|moron", "idiot|moron"},
		{"nested group", "piece of (?:shit|crap)|jerk", "piece of|jerk"},
		{"optional letter", "excuse for an? \\w+", "excuse for a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := literals(tt.in); got != tt.want {
				t.Errorf("literals(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestLiteralsPanicsWithoutPrefix(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "no literal prefix") {
			t.Fatalf("recover() = %v, want a no literal prefix panic", r)
		}
	}()
	literals(`(?:a|b) people`)
}

func TestAnchorIndex(t *testing.T) {
	var x anchorIndex
	insults := x.add([]string{"idiot", "moron"})
	threats := x.add([]string{"kill", "stab"})
	tests := []struct {
		name           string
		text           string
		insult, threat bool
	}{
		{"none", "a kind word", false, false},
		{"first set", "what an idiot", true, false},
		{"both sets", "moron, i will stab", true, true},
		{"anchor at the end", "skill", false, true},
		{"cut anchor", "kil", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var found [maxAnchorSets]bool
			x.present(tt.text, &found)
			if found[insults] != tt.insult || found[threats] != tt.threat {
				t.Errorf("present(%q) = insult %v threat %v, want %v %v", tt.text, found[insults], found[threats], tt.insult, tt.threat)
			}
		})
	}
}

func TestAnchorIndexRejectsShortAnchor(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), `anchor "fu" shorter than 3 bytes`) {
			t.Fatalf("recover() = %v, want a short-anchor panic", r)
		}
	}()
	var x anchorIndex
	x.add([]string{"fu"})
}

// TestChallengeDev guards the rules on the dev half of the challenge set
// (the half they were tuned on): most toxic rows are found by the rules
// alone, and almost no benign row is.
func TestChallengeDev(t *testing.T) {
	f, err := os.Open("testdata/challenge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadChallenge(f)
	if err != nil {
		t.Fatal(err)
	}
	var toxic, found, benign, flagged int
	for _, r := range rows {
		if InChallengeTest(r.ID) {
			continue
		}
		_, ok := Detect(r.Text)
		if r.Label {
			toxic++
			if ok {
				found++
			}
		} else {
			benign++
			if ok {
				flagged++
				t.Logf("benign row flagged: %s %q", r.ID, r.Text)
			}
		}
	}
	if recall := float64(found) / float64(toxic); recall < 0.9 {
		t.Errorf("rule recall on dev toxic rows = %.3f (%d/%d), want >= 0.9", recall, found, toxic)
	}
	if fpr := float64(flagged) / float64(benign); fpr > 0.03 {
		t.Errorf("rule false-positive rate on dev benign rows = %.3f (%d/%d), want <= 0.03", fpr, flagged, benign)
	}
}

func TestChallengeSet(t *testing.T) {
	f, err := os.Open("testdata/challenge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadChallenge(f)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	var toxic, benign, test int
	for _, r := range rows {
		if ids[r.ID] {
			t.Errorf("duplicate id %s", r.ID)
		}
		ids[r.ID] = true
		if r.Label {
			toxic++
		} else {
			benign++
		}
		if InChallengeTest(r.ID) {
			test++
		}
	}
	if toxic < 150 || benign < 150 {
		t.Errorf("challenge set has %d toxic and %d benign rows, want >= 150 each", toxic, benign)
	}
	if share := float64(test) / float64(len(rows)); share < 0.4 || share > 0.6 {
		t.Errorf("test half holds %.2f of the rows, want about 0.5", share)
	}
}

func TestReadChallengeErrors(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"bad json", "{\n", "challenge line 1:"},
		{"missing category", `{"id":"a","text":"hi","label":false}`, "challenge line 1: id, text and category are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadChallenge(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ReadChallenge error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func BenchmarkDetect1KB(b *testing.B) {
	benchmarks := []struct{ name, text string }{
		{"ordinary", strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 18)[:1024]},
		{"anchor-heavy", strings.Repeat("I hope those people find the process they killed, you know. ", 18)[:1024]},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Detect(bm.text)
			}
		})
	}
}

// TestNeedWordsIsANecessaryCondition checks every alt with needWords: on
// the challenge texts and on sentences mixing the modal anchors with
// pronouns, group words and look-alikes ("the", "hey", "youth"), the alt
// decides the same with and without the word prefilter.
func TestNeedWordsIsANecessaryCondition(t *testing.T) {
	f, err := os.Open("testdata/challenge.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := ReadChallenge(f)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range rows {
		texts = append(texts, r.Text)
	}
	subjects := []string{"you", "u", "he", "she", "they", "them all", "people like him", "kids like you", "those people",
		"these idiots", "all of them", "the", "hey", "youth", "theyre", "everyone", "a man", "the_you"}
	modals := []string{"should", "deserve to", "ought to", "need to", "must"}
	verbs := []string{"be shot", "die", "rot", "be reviewed", "all be executed", "drop dead", "wait"}
	for _, s := range subjects {
		for _, m := range modals {
			for _, v := range verbs {
				texts = append(texts, s+" "+m+" "+v+".", "I think "+s+" "+m+" "+v+", honestly!")
			}
		}
	}
	checked, hits := 0, 0
	for i := range rules {
		for j := range rules[i].alts {
			al := rules[i].alts[j]
			if al.needWords == nil {
				continue
			}
			plain := al
			plain.needWords = nil
			for _, text := range texts {
				b := textclass.AppendFold(nil, text)
				if len(b) == 0 {
					continue
				}
				folded := string(b)
				sentences, _ := splitSentences(folded, nil)
				got, want := al.used(folded, sentences, rules[i].negatable, false), plain.used(folded, sentences, rules[i].negatable, false)
				if got != want {
					t.Errorf("%s alt %d on %q: %v with the word prefilter, %v without", rules[i].category, j, text, got, want)
				}
				checked++
				if want {
					hits++
				}
			}
		}
	}
	if checked == 0 || hits == 0 {
		t.Fatalf("%d checks, %d matches: the test exercises nothing", checked, hits)
	}
}
