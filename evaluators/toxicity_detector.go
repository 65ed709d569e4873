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
	explain:     explainToxicity,
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

// toxicityRepairer undoes obfuscated spellings of slurs, group names and
// hate words ("musilms", "wmen", "wo men") before the rules run.
var toxicityRepairer = sync.OnceValue(func() *textclass.Repairer {
	return toxicity.NewRepairer(profanity.SlurWords())
})

// repairBuffers pools the buffers of repaired texts.
var repairBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledRepair bounds the capacity of a pooled repair buffer.
const maxPooledRepair = 64 << 10

// toxicityProbability returns the toxicity probability of text:
//   - ruleToxicity when the text, folded (leetspeak, spacing, repeats) and
//     repaired (textclass.Repairer), holds a toxic pattern of the toxicity
//     package, or a slur that is not reclaimed in-group use;
//   - else the classifier probability of the text, or of its repaired
//     form when the repair changed it, whichever is higher, moved to the
//     operating point (toxicityModelOperatingPoint);
//   - re-scored with the reclaimed slurs and swear words masked when they
//     are in-group use or aimed at nobody (toxicity.Reclaimed,
//     toxicity.Untargeted).
func toxicityProbability(text string) (float64, error) {
	t := textclass.NewText(textclass.CollapseRepeats(text))
	defer t.Release()
	return toxicityProbabilityOf(t)
}

// toxicityProbabilityOf is toxicityProbability of t.String(), sharing t's
// normal forms with the other evaluators of the same text.
func toxicityProbabilityOf(t *textclass.Text) (float64, error) {
	p, _, err := toxicityScoreOf(t)
	return p, err
}

// toxicityRuleCategory names the rule that decides text's toxicity ("" when
// the classifier does): a toxicity category, or "slur".
func toxicityRuleCategory(text string) string {
	t := textclass.NewText(textclass.CollapseRepeats(text))
	defer t.Release()
	_, rule, _ := toxicityScoreOf(t)
	return rule
}

// toxicityScoreOf is toxicityProbabilityOf with the rule that decided it
// ("" when the classifier did).
func toxicityScoreOf(t *textclass.Text) (float64, string, error) {
	text := t.String()
	m, err := toxicityModel()
	if err != nil {
		return 0, "", fmt.Errorf("toxicity-detector: %w", err)
	}
	d, err := profanity.Default()
	if err != nil {
		return 0, "", fmt.Errorf("toxicity-detector: %w", err)
	}
	// The rules and the slur lexicon share one folded and repaired copy
	// of the text; the folded and the model's forms come from t.
	folded := t.Folded()
	bp := repairBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledRepair {
			repairBuffers.Put(bp)
		}
	}()
	repaired := toxicityRepairer().AppendRepaired((*bp)[:0], folded)
	*bp = repaired
	category, hit, flags := toxicity.AnalyzeFolded(repaired)
	if hit {
		return ruleToxicity, string(category), nil
	}
	reclaimed := flags.MayReclaim && toxicity.Reclaimed(repaired)
	if !reclaimed && d.HasSlurFolded(text, repaired) {
		return ruleToxicity, "slur", nil
	}
	p := m.ProbabilityOf(t)
	if string(repaired) != string(folded) {
		p = max(p, m.Probability(string(repaired)))
	}
	if reclaimed || (flags.MaySwear && p > maskedRescoreFrom && toxicity.Untargeted(repaired)) {
		p = m.Probability(string(toxicity.Mask(nil, repaired)))
	}
	p = toxicityAtOperatingPoint(p)
	return p, "", nil
}

// toxicityModelOperatingPoint is the calibrated model probability that
// toxicityProbability maps to 0.5. The model's calibration is
// class-balanced on Davidson tweets, where ordinary non-tweet sentences
// score near 0.5; chosen on cross-source figures and the tuning half of
// the functional suite only (macro-F1 at model cut 0.5 / 0.75: EDOS 0.601
// / 0.615, tuning half 0.902 / 0.925; Davidson's own held-out rows, for
// reference, 0.872 / 0.853), the cut 0.75 divides the model's odds by 3.
const toxicityModelOperatingPoint = 0.75

// toxicityAtOperatingPoint divides the odds of p by the odds of
// toxicityModelOperatingPoint: p' = p / (p + k(1−p)).
func toxicityAtOperatingPoint(p float64) float64 {
	const k = toxicityModelOperatingPoint / (1 - toxicityModelOperatingPoint)
	return p / (p + k*(1-p))
}

// maskedRescoreFrom is the probability above which swearing aimed at
// nobody is re-scored without the swear words (below it, masking cannot
// change a verdict at any sensible threshold).
const maskedRescoreFrom = 0.05

// toxicityExceeds reports whether toxicityProbability(text) > threshold.
func toxicityExceeds(text string, threshold float64) (bool, error) {
	p, err := toxicityProbability(text)
	if err != nil {
		return false, err
	}
	return p > threshold, nil
}

func runToxicity(ctx context.Context, req Request) (Result, error) {
	t, own := textclass.LookupText(ctx, textclass.CollapsedFrom(ctx, req.Text("text")))
	if own {
		defer t.Release()
	}
	p, err := toxicityProbabilityOf(t)
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "toxicity model unavailable", Err: err}
	}
	return Result{"is_safe": safety(p > req.Float("threshold"))}, nil
}
