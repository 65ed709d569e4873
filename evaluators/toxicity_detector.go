package evaluators

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/profanity"
	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/evaluators/internal/textclass/models"
)

var toxicityDetector = Definition{
	Slug:        "toxicity-detector",
	Category:    CategorySecurity,
	Description: "Detects toxic or harmful language: insults, hate, threats, obscenity.",
	Inputs:      []Field{textInput("text", "Text", "The text to check for toxicity.")},
	Config:      []Field{thresholdConfig("toxic")},
	Outputs:     []Field{safetyOutput("is_safe", "Is safe", `"unsafe" when the toxicity probability exceeds the threshold, else "safe".`)},
	Side:        SideOutput,
	Score:       "is_safe",
	PassDoc:     `is_safe == "safe"`,
	run:         runToxicity,
	pass:        passWhenSafe("is_safe"),
}

// toxicityModel is the classifier trained on Davidson et al. (see
// evaluators/internal/train), loaded once.
var toxicityModel = sync.OnceValues(func() (*textclass.Model, error) { return models.Load("toxicity") })

// lexiconToxicity is the probability given to a text holding an explicit
// threat, an insult aimed at the reader or a slur, whatever the classifier
// says.
const lexiconToxicity = 0.99

// threatPattern matches explicit threats of violence in folded text
// (textclass.Fold: lower case, leetspeak and spacing folded).
var threatPattern = regexp.MustCompile(
	`\b(?:i|we)(?:'ll| will|'m going to| am going to|'m gonna| am gonna| gonna| shall| want to| wanna|'re going to| are going to|'re gonna| are gonna)\s+(?:\w+\s+)?(?:kill|murder|shoot|stab|strangle|choke|hang|lynch|rape|hurt|beat|slit|burn|bury|behead|torture)\b(?:\s+\w+){0,5}?\s+(?:you|u|ya|your|ur|him|her|them|yo)\b` +
		`|\b(?:kill|hang|shoot)\s+(?:yourself|urself|yourselves|ur self)\b|\bkys\b` +
		`|\b(?:hope|wish)\s+(?:you|u)\s+(?:die|get raped|get killed|get shot)\b|\byou\s+(?:should|deserve to)\s+(?:die|be killed|be shot|be raped)\b`)

// insultWords are insults that Davidson's tweets (mostly slurs) teach the
// classifier too weakly; insultPattern flags them only when aimed at the
// reader ("you are a worthless idiot", "shut up, moron").
const insultWords = `idiot|moron|imbecile|cretin|dimwit|halfwit|nitwit|dumbass|retard|loser|scum|scumbag|jerk|piece of (?:shit|crap|garbage|trash)|waste of (?:space|air|oxygen)|pig|clown`

var insultPattern = regexp.MustCompile(
	`\byou(?:'re| are| r|r)?\s+(?:(?:such|so|a|an|the|one|fucking|complete|total|little|big|dumb|stupid|worthless|pathetic|ugly|fat|useless|absolute|utter)\s+){0,4}(?:` + insultWords + `)s?\b` +
		`|\b(?:shut up|stfu|get lost|fuck off)\W+(?:you\s+)?(?:\w+\s+){0,2}(?:` + insultWords + `)s?\b` +
		`|\byou(?:'re| are| r|r)\s+(?:so\s+|such\s+a\s+|really\s+)?(?:stupid|worthless|pathetic|useless|disgusting|retarded)\b|\byou\s+suck\b`)

// threatKeywords and insultKeywords hold a substring of every match of
// threatPattern and insultPattern; the patterns run only on texts that
// contain one (a cheap prefilter: the regexp scan is the costly part).
var (
	threatKeywords = []string{"kill", "murder", "shoot", "shot", "stab", "strangle", "choke", "hang", "lynch", "rape", "hurt", "beat", "slit", "burn", "bury", "behead", "torture", "kys", "die"}
	insultKeywords = []string{"idiot", "moron", "imbecile", "cretin", "wit", "dumbass", "retard", "loser", "scum", "jerk", "piece of", "waste of", "pig", "clown", "stupid", "worthless", "pathetic", "useless", "disgusting", "suck"}
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// toxicityProbability returns the toxicity probability of text: the
// calibrated classifier probability, raised to lexiconToxicity when the
// text holds an explicit threat, an insult aimed at the reader or a slur.
func toxicityProbability(text string) (float64, error) {
	m, err := toxicityModel()
	if err != nil {
		return 0, fmt.Errorf("toxicity-detector: %w", err)
	}
	p := m.Probability(text)
	if p >= lexiconToxicity {
		return p, nil
	}
	if folded := textclass.Fold(text); (containsAny(folded, threatKeywords) && threatPattern.MatchString(folded)) ||
		(containsAny(folded, insultKeywords) && insultPattern.MatchString(folded)) {
		return lexiconToxicity, nil
	}
	d, err := profanity.Default()
	if err != nil {
		return 0, fmt.Errorf("toxicity-detector: %w", err)
	}
	if d.HasSlur(text) {
		return lexiconToxicity, nil
	}
	return p, nil
}

func runToxicity(_ context.Context, req Request) (Result, error) {
	p, err := toxicityProbability(req.Text("text"))
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "toxicity model unavailable", Err: err}
	}
	return Result{"is_safe": safety(p > req.Float("threshold"))}, nil
}
