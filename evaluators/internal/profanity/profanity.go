// Package profanity detects profanity. It combines a Go port of the
// profanity-check 1.0.3 classifier (MIT, Copyright (c) 2018 Victor Zhou;
// see data/NOTICE), scored on the text as given and on normalised variants
// of it (accents removed, leetspeak, spacing and repeated letters folded),
// with an exact-token lexicon built from the Surge AI and LDNOOBW word
// lists. Lexicon entries match whole normalised tokens only, so
// Scunthorpe-style words ("assassin", "cocktail", "grape") do not match.
package profanity

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

//go:embed data/profanity-check.bin
var checkWeights []byte

//go:embed data/lexicon.txt
var lexiconText string

//go:embed data/slurs.txt
var slursText string

// Detector scores texts for profanity. It is safe for concurrent use.
type Detector struct {
	check   *checkModel
	lexicon *lexicon
	slurs   *lexicon
}

// Default returns the detector built from the embedded model and lexicon,
// loaded once.
var Default = sync.OnceValues(func() (*Detector, error) {
	m, err := loadCheckModel(checkWeights)
	if err != nil {
		return nil, fmt.Errorf("load embedded profanity model: %w", err)
	}
	return &Detector{check: m, lexicon: newLexicon(lexiconText), slurs: newLexicon(slursText)}, nil
})

// CheckProbability is profanity-check's own probability for text, exactly
// as the Python package computes it (no normalisation, no lexicon).
func (d *Detector) CheckProbability(text string) float64 {
	return d.check.probability(text)
}

// Score returns the profanity score of text in 0..1: 1 when a lexicon
// entry matches a whole normalised token or token sequence (see
// lexicon.matches, matchesMasked, matchesSpaced), else the largest
// profanity-check probability over the text as given, its folded form
// (textclass.Fold) and its folded form with runs of three or more equal
// letters cut to one ("fuuuck" → "fuck", where Fold gives "fuuck").
func (d *Detector) Score(text string) float64 {
	normalised := textclass.Normalize(text)
	bufs := scanBuffers.Get().(*scanBuffer)
	defer bufs.release()
	bufs.folded = textclass.AppendFold(bufs.folded[:0], normalised)
	if d.lexicon.matches(bufs.folded, &bufs.scratch) || d.lexicon.matchesMasked(normalised) || d.lexicon.matchesSpaced(normalised, &bufs.scratch) {
		return 1
	}
	folded := string(bufs.folded)
	p := d.check.probability(text)
	for _, v := range [...]string{folded, textclass.Fold(cutLongRuns(normalised))} {
		if v == text {
			continue
		}
		p = max(p, d.check.probability(v))
	}
	return p
}

// HasSlur reports whether text holds a racial, ethnic or severe
// sexual-orientation/gender slur of the Surge AI list, as a whole
// normalised token (leetspeak, spacing and repeats folded).
//
// It allocates nothing on ASCII text once its buffers are warm: the
// folded text is built in a pooled buffer and scanned in place.
func (d *Detector) HasSlur(text string) bool {
	bufs := scanBuffers.Get().(*scanBuffer)
	defer bufs.release()
	bufs.folded = textclass.AppendFold(bufs.folded[:0], text)
	return d.hasSlur(text, bufs.folded, &bufs.scratch)
}

// HasSlurFolded is HasSlur for callers that have folded text already:
// folded is textclass.AppendFold of text; it is not changed.
func (d *Detector) HasSlurFolded(text string, folded []byte) bool {
	bufs := scanBuffers.Get().(*scanBuffer)
	defer bufs.release()
	return d.hasSlur(text, folded, &bufs.scratch)
}

func (d *Detector) hasSlur(text string, folded []byte, scratch *[]byte) bool {
	if d.slurs.matches(folded, scratch) {
		return true
	}
	if isASCII(text) {
		return d.slurs.matchesMasked(text) // see matchesMasked
	}
	return d.slurs.matchesMasked(textclass.Normalize(text))
}

// scanBuffer holds the reusable buffers of one lexicon scan.
type scanBuffer struct {
	folded  []byte // folded text
	scratch []byte // phrases and collapsed words
}

// maxPooledBuffer bounds the capacity of a buffer kept for reuse, so one
// huge text does not pin its buffer.
const maxPooledBuffer = 64 << 10

// scanBuffers pools scanBuffers across calls and goroutines.
var scanBuffers = sync.Pool{New: func() any { return new(scanBuffer) }}

// release returns b to scanBuffers unless it grew too large.
func (b *scanBuffer) release() {
	if cap(b.folded) > maxPooledBuffer || cap(b.scratch) > maxPooledBuffer {
		return
	}
	scanBuffers.Put(b)
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// HasProfanity reports whether Score(text) > 0.5, profanity-check's own
// decision rule.
func (d *Detector) HasProfanity(text string) bool { return d.Score(text) > 0.5 }

// cutLongRuns cuts every run of three or more equal ASCII letters to one
// letter, leaving double letters ("all", "see") alone.
func cutLongRuns(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if c := s[i]; c >= 'a' && c <= 'z' && j-i >= 3 {
			b.WriteByte(c)
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// appendCollapsedRepeats appends w to dst with every run of equal ASCII
// letters cut to one letter ("fuuck" → "fuck", "shiit" → "shit").
func appendCollapsedRepeats(dst, w []byte) []byte {
	for i, c := range w {
		if i > 0 && c == w[i-1] && c >= 'a' && c <= 'z' {
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// SlurWords returns the one-word entries of the slur lexicon, folded
// (textclass.Fold).
func SlurWords() []string {
	var out []string
	for e := range newLexicon(slursText).entries {
		if !strings.Contains(e, " ") {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}
