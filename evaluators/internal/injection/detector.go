package injection

import (
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// Score is the verdict on one text.
type Score struct {
	// Probability combines the rule and model evidence in 0..1:
	// 1 − (1 − Rule.Score)(1 − Model), a noisy-OR, so either a strong rule
	// or a confident model flags the text, and both together push it
	// towards 1.
	Probability float64
	// Model is the model's highest window probability, moved to the
	// detector's operating point (see ModelOperatingPoint).
	Model float64
	// Rule is the strongest rule that matched (zero when none did).
	Rule Finding
}

// Detector scores texts for prompt injection with the rules and a trained
// text model. It is safe for concurrent use.
type Detector struct {
	model *textclass.Model
}

// NewDetector returns a detector that uses model for the statistical part.
func NewDetector(model *textclass.Model) *Detector { return &Detector{model: model} }

// Score returns the rule finding, the model probability and their
// combination for text.
func (d *Detector) Score(text string) Score {
	return d.ScoreText(textclass.NewText(text))
}

// ScoreText is Score of t.String(), sharing t's normal forms with the
// other evaluators of the same text (see textclass.TextFrom).
func (d *Detector) ScoreText(t *textclass.Text) Score {
	rule := MatchRulesText(t)
	m := d.ModelProbability(t.String())
	// max guards against rounding below either part.
	p := max(1-(1-rule.Score)*(1-m), rule.Score, m)
	return Score{Probability: p, Model: m, Rule: rule}
}

// ModelOperatingPoint is the calibrated model probability that Score maps
// to 0.5: Score divides the model's odds by 0.9/0.1 = 9. It was chosen on
// the cross-source figures (the model trained on one training set, the
// detector scored on the other, and NotInject's false-positive rate),
// because a model's confidence carries over badly to prompts of another
// source: at 0.5, 0.6, 0.75, 0.85, 0.9 and 0.95, F1 deepset → jailbreak
// 0.680, 0.728, 0.799, 0.851, 0.857, 0.866 and jailbreak → deepset
// 0.775, 0.773, 0.762, 0.755, 0.755, 0.747 (NotInject FPR of the two
// models at 0.9: 0.015 and 0.041, at 0.75: 0.068 and 0.059); 0.9 has the
// best mean but for 0.95, whose worse direction is lower. In-source
// cross-validation alone had put it at 0.75 (flat from 0.6 to 0.85).
const ModelOperatingPoint = 0.9

// atOperatingPoint divides the odds of p by the odds of
// ModelOperatingPoint: p' = p / (p + k(1−p)), k = op/(1−op).
func atOperatingPoint(p float64) float64 {
	const k = ModelOperatingPoint / (1 - ModelOperatingPoint)
	return p / (p + k*(1-p))
}

// ModelProbability is the highest model probability over the windows of
// text (see Windows), with zero-width and tag characters removed first,
// moved to the operating point (see ModelOperatingPoint). Overlapping
// windows share the work of scoring (textclass.MaxWindowProbability).
// Scoring windows rather than the whole text keeps an injection appended
// to a long benign prompt visible, and keeps text length from deciding.
func (d *Detector) ModelProbability(text string) float64 {
	if hasHidden(text) {
		text = stripHidden(text)
	}
	text = textclass.CollapseRepeats(text) // a benign sentence 60 times is still benign
	var arr [16][2]int
	bounds := arr[:0]
	windowBounds(text, func(lo, hi int) { bounds = append(bounds, [2]int{lo, hi}) })
	return atOperatingPoint(d.model.MaxWindowProbability(text, bounds))
}

// stripHidden removes zero-width and tag characters.
func stripHidden(s string) string {
	return strings.Map(func(r rune) rune {
		if isZeroWidth(r) || isTag(r) {
			return -1
		}
		return r
	}, s)
}

// Window geometry, in words (runs of non-space bytes): a text of up to
// WindowWords words is one window; a longer one is covered by windows of
// WindowWords words that start every WindowStride words.
const (
	WindowWords  = 48
	WindowStride = 24
)

// Windows calls fn with each window of text, substrings of text in order.
// A text of up to WindowWords words is a single window. It does not
// allocate.
func Windows(text string, fn func(window string)) {
	windowBounds(text, func(lo, hi int) { fn(text[lo:hi]) })
}

// windowBounds is Windows with each window as its byte offsets.
func windowBounds(text string, fn func(lo, hi int)) {
	// starts[k] is the byte offset of the k-th word, kept for the current
	// window only: a ring of WindowWords+1 offsets.
	var starts [WindowWords + 1]int
	words := 0
	inWord := false
	lastEnd := 0
	for i := 0; i < len(text); i++ {
		space := isSpace(text[i])
		switch {
		case !space && !inWord:
			inWord = true
			if words >= WindowWords && (words-WindowWords)%WindowStride == 0 {
				// Window of the WindowWords words before this one.
				fn(starts[(words-WindowWords)%len(starts)], lastEnd)
			}
			starts[words%len(starts)] = i
			words++
		case space && inWord:
			inWord = false
			lastEnd = i
		}
	}
	if inWord {
		lastEnd = len(text)
	}
	switch {
	case words == 0:
		fn(0, len(text))
	case words <= WindowWords:
		fn(starts[0], lastEnd)
	default:
		// The window of the last WindowWords words.
		fn(starts[(words-WindowWords)%len(starts)], lastEnd)
	}
}

func isSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
