// Package tone detects the emotional tone of a text with a hand-written
// lexicon of emotion words (Ekman's six basic emotions, as emotion
// classifiers such as the one Traceloop's tone-detection labels with
// use them, plus neutral), matched on Snowball stems, with intensifiers,
// negation and punctuation cues. It is a lexical estimate: it finds the
// emotions a text names or shouts, not those it only implies.
package tone

import (
	"strings"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// The tones, in the order ties are broken.
const (
	Neutral  = "neutral"
	Joy      = "joy"
	Sadness  = "sadness"
	Anger    = "anger"
	Fear     = "fear"
	Surprise = "surprise"
	Disgust  = "disgust"
)

// Tones lists every tone, neutral first.
var Tones = []string{Neutral, Joy, Sadness, Anger, Fear, Surprise, Disgust}

// seeds are the emotion words; each is matched on its Snowball stem, so
// one form stands for its inflections ("delight" finds "delighted").
var seeds = map[string]string{
	Joy: "happy happiness glad joy joyful delight delighted pleased love loved lovely wonderful great awesome amazing fantastic " +
		"excellent excited exciting thrilled cheerful enjoy enjoyed fun grateful thankful thanks celebrate yay hooray " +
		"proud satisfied relieved smile laugh blessed perfect brilliant superb terrific fabulous",
	Sadness: "sad sadness unhappy sorrow sorry grief grieve depressed depressing depression miserable lonely heartbroken " +
		"cry crying tears disappointed disappointing upset regret unfortunately hopeless gloomy mourn loss lost " +
		"hurt pain painful miss missed devastated",
	Anger: "angry anger furious mad rage outraged annoyed annoying irritated irritating frustrated frustrating hate hated " +
		"livid infuriating unacceptable ridiculous pathetic fed damn hostile resent outrageous sick idiot stupid moron dumb",
	Fear: "afraid fear scared frightened terrified terrifying anxious anxiety worried worry nervous panic panicked dread " +
		"alarmed alarming horror horrified threat threatened danger dangerous unsafe uneasy concerned",
	Surprise: "surprise surprised surprising astonished astonishing amazed shocked shocking unexpected unexpectedly wow " +
		"whoa incredible unbelievable startled stunned speechless",
	Disgust: "disgust disgusted disgusting gross revolting repulsive nasty vile yuck sickening nauseating filthy " +
		"creepy horrible awful appalling",
}

// intensifiers raise the next emotion word.
var intensifiers = map[string]bool{"very": true, "so": true, "really": true, "extremely": true, "absolutely": true,
	"totally": true, "incredibly": true, "truly": true, "deeply": true, "super": true, "completely": true, "utterly": true}

var lexicon = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, t := range Tones[1:] {
		for _, w := range strings.Fields(seeds[t]) {
			for _, tok := range textsim.Tokenize(w) {
				if _, dup := m[tok.Key]; !dup {
					m[tok.Key] = t
				}
			}
		}
	}
	return m
})

// Detect returns the text's tone and the confidence in it, 0..1. Each
// emotion word found weighs 1 (1.5 after an intensifier, 0 within three
// words after a negation: "not happy" is no joy); rude phrases
// (textsim.Rude) add 1 to anger; "!" adds 0.3 to the leading emotion,
// "?!" or "!?" adds 0.5 to surprise, and most words in capitals add 1.5 to
// anger (shouting). Neutral weighs 1 + 0.05 per content word, so one emotion word in
// a long factual text stays neutral. The tone is the heaviest; the
// confidence is its share of the total weight.
func Detect(text string) (string, float64) {
	lx := lexicon()
	toks := textsim.Tokenize(text)
	w := map[string]float64{}
	negatedUntil, intens := -1, false
	content, caps, words := 0, 0, 0
	for i, t := range toks {
		if t.Content() {
			content++
		}
		if !t.Number && len(t.Text) >= 3 {
			words++
			if strings.ToUpper(t.Text) == t.Text && strings.ToLower(t.Text) != t.Text {
				caps++
			}
		}
		if t.Negation {
			negatedUntil = i + 3
			continue
		}
		if intensifiers[t.Lower] {
			intens = true
			continue
		}
		if e, ok := lx[t.Key]; ok && i > negatedUntil {
			add := 1.0
			if intens {
				add = 1.5
			}
			w[e] += add
		}
		intens = false
	}
	w[Anger] += textsim.Rude().Weight(toks)
	if strings.Contains(text, "?!") || strings.Contains(text, "!?") {
		w[Surprise] += 0.5
	}
	if words >= 3 && 2*caps > words {
		w[Anger] += 1.5
	}
	if n := strings.Count(text, "!"); n > 0 {
		if lead := heaviest(w, Tones[1:]); w[lead] > 0 {
			w[lead] += 0.3 * float64(min(n, 3))
		}
	}
	w[Neutral] = 1 + 0.05*float64(content)
	var total float64
	for _, t := range Tones {
		total += w[t]
	}
	best := heaviest(w, Tones)
	return best, w[best] / total
}

func heaviest(w map[string]float64, tones []string) string {
	best := tones[0]
	for _, t := range tones[1:] {
		if w[t] > w[best] {
			best = t
		}
	}
	return best
}
