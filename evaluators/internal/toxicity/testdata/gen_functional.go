//go:build ignore

// gen_functional writes the toxicity functional test suite to
// ../../quality/testdata/functional/toxicity-detector/<phenomenon>.jsonl: hand-written sentence templates, one phenomenon each, filled with
// target groups, words or obfuscations. Run from this directory:
//
//	go run gen_functional.go
//
// Every template and filler was written for evalcol from the phenomenon
// descriptions of issue 18; none is copied or paraphrased from a published
// test suite. Templates alternate between the tuning half (odd numbers)
// and the held-out half (even numbers), fixed before any measurement.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

type group struct{ plural, singular string }

var groups = []group{
	{"women", "woman"}, {"trans people", "trans person"}, {"gay men", "gay man"},
	{"Black people", "Black person"}, {"disabled people", "disabled person"},
	{"Muslims", "Muslim"}, {"immigrants", "immigrant"}, {"Jews", "Jew"}, {"refugees", "refugee"},
}

// pick returns n groups starting at offset k (wrapping), so templates use
// different groups.
func pick(k, n int) []group {
	out := make([]group, n)
	for i := range out {
		out[i] = groups[(k+i)%len(groups)]
	}
	return out
}

type row struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	Label      bool   `json:"label"`
	Phenomenon string `json:"phenomenon"`
	Template   string `json:"template"`
	Half       string `json:"half"`
}

var rows []row

func add(phen string, label bool, tmpl int, texts []string) {
	half := "tuning"
	if tmpl%2 == 0 {
		half = "heldout"
	}
	tid := fmt.Sprintf("%s/t%02d", phen, tmpl)
	for i, t := range texts {
		rows = append(rows, row{ID: fmt.Sprintf("%s-%02d", tid, i+1), Text: t, Label: label, Phenomenon: phen, Template: tid, Half: half})
	}
}

// groupTemplates fills each template with 4 groups ({G} plural, {S}
// singular), starting at a different group per template.
func groupTemplates(phen string, label bool, templates []string) {
	for i, t := range templates {
		var texts []string
		for _, g := range pick(i*2, 4) {
			s := strings.ReplaceAll(strings.ReplaceAll(t, "{G}", g.plural), "{S}", g.singular)
			texts = append(texts, capitalise(s))
		}
		add(phen, label, i+1, texts)
	}
}

func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Obfuscations of one word.
func swap(w string) string { // swap the two letters after the middle
	i := len(w) / 2
	if i+1 >= len(w) {
		i = len(w) - 2
	}
	b := []byte(w)
	b[i], b[i+1] = b[i+1], b[i]
	return string(b)
}

func del(w string) string { // delete the first vowel after the first letter
	for i := 1; i < len(w)-1; i++ {
		if strings.IndexByte("aeiou", w[i]) >= 0 {
			return w[:i] + w[i+1:]
		}
	}
	return w[:len(w)/2] + w[len(w)/2+1:]
}

func space(w string, k int) string { // inner space, or every letter spaced
	if k%2 == 1 {
		return strings.Join(strings.Split(w, ""), " ")
	}
	return w[:len(w)/2] + " " + w[len(w)/2:]
}

func leet(w string, k int) string {
	r := strings.NewReplacer("a", "4", "e", "3", "i", "1", "o", "0")
	if k%2 == 1 {
		r = strings.NewReplacer("a", "@", "i", "1", "o", "0", "s", "$")
	}
	return r.Replace(w)
}

// obfuscationFrames are hateful sentences with one word {X} to obfuscate
// and its fillers.
var obfuscationFrames = []struct {
	frame string
	words []string
}{
	{"I hate {X} so much.", []string{"women", "muslims", "immigrants", "jews", "gays"}},
	{"Trans people are {X} and everyone knows it.", []string{"disgusting", "worthless", "vermin", "parasites", "scum"}},
	{"All {X} should be killed.", []string{"refugees", "muslims", "women", "immigrants", "gays"}},
	{"You are nothing but a dirty {X}.", []string{"faggot", "retard", "whore", "tranny", "nigger"}},
	{"Death to all {X}.", []string{"jews", "muslims", "immigrants", "refugees", "blacks"}},
	{"{X} like you deserve to suffer.", []string{"Faggots", "Retards", "Dykes", "Niggers", "Trannies"}},
	{"Disabled people are {X} and a burden on us all.", []string{"useless", "subhuman", "pathetic", "defective", "worthless"}},
	{"Shut your mouth, you stupid {X}.", []string{"bitch", "cunt", "retard", "faggot", "slut"}},
}

func obfuscation(phen string, f func(w string, k int) string) {
	for i, fr := range obfuscationFrames {
		var texts []string
		for k, w := range fr.words {
			texts = append(texts, strings.Replace(fr.frame, "{X}", f(w, k), 1))
		}
		add(phen, true, i+1, texts)
	}
}

func main() {
	// Toxic.
	obfuscation("obf_swap", func(w string, _ int) string { return swap(w) })
	obfuscation("obf_delete", func(w string, _ int) string { return del(w) })
	obfuscation("obf_space", space)
	obfuscation("obf_leet", leet)
	groupTemplates("group_threat", true, []string{
		"We will make sure every last one of the {G} in this town pays with blood.",
		"Any {S} who shows up at our school tomorrow is leaving in a body bag.",
		"The day is coming when we round up the {G} and deal with them for good.",
		"Get your rifles ready, it's open season on {G}.",
		"I'm going to hunt down {G} one by one until none are left.",
		"{G} should be lined up against a wall and shot.",
		"If I see a group of {G} tonight, I'm bringing my knife.",
		"It's time to wipe the {G} off the face of this country.",
		"Mark my words, the {G} around here will bleed for this.",
		"Somebody needs to torch the homes of {G} while they sleep.",
	})
	groupTemplates("dehumanisation", true, []string{
		"{G} are a disease eating this country from the inside.",
		"Honestly, {G} are closer to apes than to humans.",
		"{G} breed like rats and spread filth wherever they go.",
		"You can't reason with {G}, they're beasts wearing clothes.",
		"Every street full of {G} turns into a nest of cockroaches.",
		"{G} aren't people, they're a swarm.",
		"Treat {G} like the vermin they are.",
		"{G} are parasites feeding off decent folk.",
		"A {S} has about as much humanity as a sewer rat.",
	})
	groupTemplates("implicit_derogation", true, []string{
		"{G} have never contributed anything worth mentioning to civilisation.",
		"It's no coincidence crime went up when the {G} moved in.",
		"You can always tell where {G} have been, everything is dirty and broken.",
		"Hiring {G} is the quickest way to ruin a company.",
		"{G} are a drain on every place they live.",
		"Keep a hand on your wallet, there are {G} around.",
		"Of course the project failed, they put a {S} in charge.",
		"A neighbourhood stays nice only until the first {G} arrive.",
		"Letting {G} raise children should be illegal.",
	})
	groupTemplates("hate_question", true, []string{
		"Why are {G} so disgusting?",
		"Why do {G} always have to ruin everything?",
		"Isn't it obvious that {G} are a plague on society?",
		"How can anyone stand being near {G}, aren't they revolting?",
		"Wouldn't the world be better off without {G}?",
		"Why do we even let {G} vote?",
		"Are {G} too stupid to follow basic rules, or do they just not care?",
		"When will people finally admit that {G} are worthless?",
		"Who decided {G} deserve the same rights as normal people?",
	})
	groupTemplates("hate_opinion", true, []string{
		"I think {G} are the lowest form of life.",
		"In my opinion {G} are vile and should be kept away from children.",
		"Honestly, I believe {G} are inferior to the rest of us.",
		"If you ask me, {G} deserve nothing but contempt.",
		"I feel like {G} are a stain on this country.",
		"Personally I'm convinced {G} are all liars and cheats.",
		"My view is simple: {G} are disgusting.",
		"I've always thought {G} were a mistake of nature.",
		"To me, a {S} will never be anything but trash.",
	})
	// Not toxic.
	reclaimed := []struct{ identity, slur string }{
		{"queer woman", "queer"}, {"lesbian", "dyke"}, {"Black man", "nigga"}, {"disabled woman", "crip"}, {"gay man", "fag"},
	}
	for i, t := range []string{
		"As a {I}, I call myself a {W} and I'm proud of it.",
		"Proud {W} here, happy pride month everyone!",
		"My fellow {W}s and I are throwing a party this weekend.",
		"I'm a {I} and I've reclaimed the word {W}; when I say it about myself it's empowering.",
		"Us {W}s have to stick together, no matter what.",
		"Yeah I'm a {W}, and my friends love me for it.",
		"Being a {W} in a small town taught me to be brave.",
		"Shout out to all the {W}s at the community centre tonight, love you all.",
	} {
		var texts []string
		for _, r := range reclaimed {
			if r.slur == "nigga" && strings.Contains(t, "{W}s") {
				t2 := strings.ReplaceAll(t, "{W}s", "{W}z")
				texts = append(texts, capitalise(strings.NewReplacer("{I}", r.identity, "{W}", r.slur).Replace(t2)))
				continue
			}
			texts = append(texts, capitalise(strings.NewReplacer("{I}", r.identity, "{W}", r.slur).Replace(t)))
		}
		add("reclaimed_slur", false, i+1, texts)
	}
	things := []string{"printer", "laptop", "car", "oven"}
	for i, t := range []string{
		"Fucking hell, the {T} broke down again.",
		"Holy shit, I finally fixed the {T}!",
		"This damn {T} has been acting up all week.",
		"What the fuck is wrong with this {T} today?",
		"Shit, I forgot to switch off the {T} before leaving.",
		"I'm so fucking happy, the new {T} arrived early.",
		"Bloody hell, the {T} is making that noise again.",
		"Damn, this {T} is fast as fuck.",
		"Oh crap, the {T} ran out of battery mid-task.",
	} {
		var texts []string
		for _, th := range things {
			texts = append(texts, strings.ReplaceAll(t, "{T}", th))
		}
		add("profanity_nobody", false, i+1, texts)
	}
	groupTemplates("counter_speech", false, []string{
		`Saying "{G} are disgusting" is plain bigotry, and I won't stand for it.`,
		`Someone sprayed "{G} out" on the bus stop and I reported it straight away.`,
		`Statements like "{G} are vermin" are dehumanising and have no place here.`,
		`I'm tired of people claiming {G} are criminals. It's a lie.`,
		`No, {G} are not a plague. Stop spreading hate.`,
		`My uncle said "all {G} are lazy" at dinner and I told him how wrong he was.`,
		`Calling {G} animals is vile, and I will always call it out.`,
		`The post said {G} should be deported, and thousands of us replied that hate has no home here.`,
		`If you hear someone say "I hate {G}", speak up and support the people being targeted.`,
	})
	groupTemplates("group_neutral", false, []string{
		"{G} make up a growing share of the city's population.",
		"The conference invited {G} to speak about their experiences at work.",
		"Many {G} in the region celebrate the holiday with family dinners.",
		"The survey asked {G} about their access to healthcare.",
		"Our team includes {G}, and we value every perspective.",
		"{G} have the same rights as everyone else under the law.",
		"A new report looks at employment rates among {G}.",
		"My neighbour is a {S} and grows the best tomatoes on the street.",
		"The museum opened an exhibition on the history of {G} in Europe.",
	})

	// One file per phenomenon, in the quality command's functional
	// suite folder.
	dir := filepath.Join("..", "..", "quality", "testdata", "functional", "toxicity-detector")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	byPhenomenon := map[string][]row{}
	var order []string
	for _, r := range rows {
		if byPhenomenon[r.Phenomenon] == nil {
			order = append(order, r.Phenomenon)
		}
		byPhenomenon[r.Phenomenon] = append(byPhenomenon[r.Phenomenon], r)
	}
	for _, phen := range order {
		f, err := os.Create(filepath.Join(dir, phen+".jsonl"))
		if err != nil {
			log.Fatal(err)
		}
		enc := json.NewEncoder(f)
		enc.SetEscapeHTML(false)
		for _, r := range byPhenomenon[phen] {
			if err := enc.Encode(r); err != nil {
				log.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %d rows\n", len(rows))
}
