// Package chattext writes the prompts and completions of cmd/otlpload:
// deterministic, varied plain English from a fixed vocabulary and sentence
// frames. Benchmarks use it to evaluate the same texts as the load test.
package chattext

import (
	"math/rand/v2"
	"strings"
)

// words and the sentence frames below make varied, plain English text; a
// few frames carry an e-mail address or a phone number, as real prompts
// sometimes do, so that the PII detector has something to find.
var words = strings.Fields(`
account answer application approach area argument article assistant balance
bank benefit budget building business campaign capital career change chapter
child choice city climate code committee community company computer concept
condition contract control country course customer data database decision
delivery department design detail development device difference direction
discussion disease document economy education effect energy engine
environment equipment evening evidence example experience expert factor
family feature feedback figure film finance flight forecast format freedom
friend function future garden government group growth guidance health
history holiday hospital hotel house idea image impact income industry
information insurance interest internet interview invoice issue journey
kitchen knowledge language law leader lesson letter library license light
market meeting memory message method minute model moment money month
morning movie music nature network news number office opinion order
organization owner paper parent partner payment people performance period
person picture plan platform player policy population position power
practice price problem process product professor program project property
quality question reason recipe record region report request research
resource response result review river role rule safety sample schedule
school science season security sense service session setting shop skill
society software solution source speech staff standard station statement
story strategy student study subject success summary supply support system
table task teacher team technology term test theory thing thought ticket
time topic training travel treatment trip truth understanding unit update
user value version video view village visitor water weather website week
window winter word work worker world writer year`)

// The contact details two of the sentence frames plant in the texts.
const (
	PlantedEmail = "jane.doe@example.com"
	PlantedPhone = "+1 415 555 0132"
)

// Planted reports whether text holds a planted contact detail, whole or
// cut short where the text ends ("… office on +1 415 555").
func Planted(text string) bool {
	return strings.Contains(text, PlantedEmail[:strings.IndexByte(PlantedEmail, '@')+1]) || strings.Contains(text, PlantedPhone[:6])
}

var frames = []string{
	"Could you explain how the %s affects the %s of our %s?",
	"Please write a short %s about the %s and the %s.",
	"The %s was reviewed by the %s before the %s started.",
	"We need a clear %s for the %s, because the %s keeps changing.",
	"Summarise the %s in three points and mention the %s and the %s.",
	"Our %s depends on the %s, so the %s should be checked first.",
	"In my experience the %s improves when the %s supports the %s.",
	"Contact me at " + PlantedEmail + " about the %s, the %s and the %s.",
	"Call the %s office on " + PlantedPhone + " if the %s or the %s fails.",
	"Thanks, the %s looks good, although the %s could use a better %s.",
}

// Gen writes deterministic, varied English text from its own random
// source. It is not safe for concurrent use.
type Gen struct {
	rng *rand.Rand
	b   strings.Builder
}

// New returns a generator; the same seed gives the same texts.
func New(seed uint64) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Rand is the generator's random source, for callers that draw their own
// choices from the same deterministic sequence.
func (g *Gen) Rand() *rand.Rand { return g.rng }

func (g *Gen) word() string { return words[g.rng.IntN(len(words))] }

// Text returns sentences totalling between minBytes and maxBytes bytes
// (maxBytes ≥ minBytes; the last sentence is cut at a word boundary).
func (g *Gen) Text(minBytes, maxBytes int) string {
	target := minBytes
	if maxBytes > minBytes {
		target += g.rng.IntN(maxBytes - minBytes + 1)
	}
	g.b.Reset()
	for g.b.Len() < target {
		if g.b.Len() > 0 {
			g.b.WriteByte(' ')
		}
		f := frames[g.rng.IntN(len(frames))]
		parts := strings.SplitN(f, "%s", 4)
		for i, p := range parts {
			g.b.WriteString(p)
			if i < len(parts)-1 {
				g.b.WriteString(g.word())
			}
		}
	}
	s := g.b.String()
	if len(s) > target {
		s = s[:target]
		if i := strings.LastIndexByte(s, ' '); i > 0 && len(s)-i < 20 {
			s = s[:i]
		}
	}
	return s
}
