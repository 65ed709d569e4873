package evaluators

import (
	"context"
	"fmt"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/profanity"
	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/evaluators/internal/textclass/models"
	"github.com/evalcol/evalcol/evaluators/internal/toxicity"
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
	guard:       guardSafety("is_safe", SafeLabel),
}

// toxicityModel is the classifier trained on Davidson et al. (see
// evaluators/internal/train), loaded once.
var toxicityModel = sync.OnceValues(func() (*textclass.Model, error) { return models.Load("toxicity") })

// ruleToxicity is the probability given to a text holding a slur or a
// toxic pattern of the toxicity package (an insult aimed at a person, a
// threat, a death wish, dehumanisation, identity hate, harassment),
// whatever the classifier says.
const ruleToxicity = 0.99

// toxicityProbability returns the toxicity probability of text: the
// calibrated classifier probability, raised to ruleToxicity when the text
// holds a toxic pattern or a slur.
func toxicityProbability(text string) (float64, error) {
	m, err := toxicityModel()
	if err != nil {
		return 0, fmt.Errorf("toxicity-detector: %w", err)
	}
	p := m.Probability(text)
	if p >= ruleToxicity {
		return p, nil
	}
	hit, err := toxicRuleHit(text)
	if err != nil {
		return 0, err
	}
	if hit {
		return ruleToxicity, nil
	}
	return p, nil
}

// toxicityExceeds reports whether toxicityProbability(text) > threshold.
// It runs the rules only when they can change the answer: not when the
// classifier probability already exceeds threshold, nor when threshold is
// at least ruleToxicity.
func toxicityExceeds(text string, threshold float64) (bool, error) {
	m, err := toxicityModel()
	if err != nil {
		return false, fmt.Errorf("toxicity-detector: %w", err)
	}
	if p := m.Probability(text); p > threshold || threshold >= ruleToxicity {
		return p > threshold, nil
	}
	// Here p <= threshold < ruleToxicity: a rule hit lifts the
	// probability above threshold, its absence leaves it at p.
	return toxicRuleHit(text)
}

// toxicRuleHit reports whether text holds a toxic pattern of the toxicity
// package or a slur.
func toxicRuleHit(text string) (bool, error) {
	// Both detectors read the folded text: fold it once.
	folded := textclass.AppendFold(make([]byte, 0, len(text)+len(text)/8), text)
	if _, ok := toxicity.DetectFolded(folded); ok {
		return true, nil
	}
	d, err := profanity.Default()
	if err != nil {
		return false, fmt.Errorf("toxicity-detector: %w", err)
	}
	return d.HasSlurFolded(text, folded), nil
}

func runToxicity(_ context.Context, req Request) (Result, error) {
	toxic, err := toxicityExceeds(req.Text("text"), req.Float("threshold"))
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "toxicity model unavailable", Err: err}
	}
	return Result{"is_safe": safety(toxic)}, nil
}
