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
	if _, ok := toxicity.Detect(text); ok {
		return ruleToxicity, nil
	}
	d, err := profanity.Default()
	if err != nil {
		return 0, fmt.Errorf("toxicity-detector: %w", err)
	}
	if d.HasSlur(text) {
		return ruleToxicity, nil
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
