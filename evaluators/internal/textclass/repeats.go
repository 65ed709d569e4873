package textclass

import "unsafe"

// A model's score is bias + Σw/√n over the n features of a text: a text
// made of one sentence repeated k times has k times the sum and k times
// the features, so its score moves √k times as far from the bias as the
// sentence's own. Sixty copies of a polite sentence whose features lean a
// little towards a class ("Thank you for your order, it will ship soon.")
// score like a strong example of it. The classifying evaluators score
// CollapseRepeats of their text: a text is scored as what it says, not as
// how often it says it. (Models themselves score what they are given, so
// that a window's score and the whole text's stay comparable.)

// CollapseRepeats is collapseRepeats of a raw text (words separated by
// any ASCII white space; a collapsed text has them joined by one space),
// for classifiers that score windows of the text rather than the whole
// (MaxWindowProbability).
func CollapseRepeats(s string) string {
	if len(s) == 0 {
		return s
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // only read
	out := collapseRepeats(b)
	if len(out) == len(b) { // a collapse always drops a word
		return s
	}
	return string(out)
}

// maxRepeatBlock is the longest block of words (a sentence or two) whose
// consecutive repeats are collapsed.
const maxRepeatBlock = 40

// collapseRepeats returns the normalised text b (words separated by single
// spaces) with every run of a block of words repeated back to back reduced
// to one copy: blocks of two words or more repeated twice or more ("thank
// you for your order. thank you for your order."), and single words
// repeated three times or more ("no no no"; "very very" stays); words
// compare without the punctuation around them, and the last copy of a
// block is kept. A text
// without such a run is b itself; otherwise the result is a new slice.
// It allocates only for a text of more than 256 words.
func collapseRepeats(b []byte) []byte {
	var dst []byte
	var (
		stack     [256]uint64
		spanStack [256][2]int
	)
	words := wordSpans(spanStack[:0], b)
	if len(words) < 3 {
		return b
	}
	h := stack[:0]
	if len(words) > len(stack) {
		h = make([]uint64, 0, len(words))
	}
	for _, w := range words {
		h = append(h, fnv1a(fnvOffset, trimPunct(b[w[0]:w[1]])))
	}
	if !hasRepeat(h) {
		return b
	}
	first := true
	for i := 0; i < len(h); {
		best, bestReps := 0, 1
		for p := 1; p <= maxRepeatBlock && i+2*p <= len(h); p++ {
			reps := 1
			for i+(reps+1)*p <= len(h) && slicesEqual(h[i:i+p], h[i+reps*p:i+(reps+1)*p]) {
				reps++
			}
			if (p == 1 && reps >= 3 || p > 1 && reps >= 2) && reps*p > bestReps*best {
				best, bestReps = p, reps
			}
		}
		from, n := i, 1
		if best > 0 {
			from, n = i+(bestReps-1)*best, best // the last copy keeps the run's closing punctuation
		}
		for k := from; k < from+n; k++ {
			if !first {
				dst = append(dst, ' ')
			}
			first = false
			dst = append(dst, b[words[k][0]:words[k][1]]...)
		}
		if best > 0 {
			i += best * bestReps
		} else {
			i++
		}
	}
	return dst
}

// hasRepeat reports whether the word hashes h hold a block collapseRepeats
// collapses: for some period p, a run of p matching positions
// (h[j] == h[j+p]) is a block of p words repeated twice (two matching
// positions for p = 1: a word three times).
func hasRepeat(h []uint64) bool {
	for p := 1; p <= maxRepeatBlock && 2*p <= len(h); p++ {
		need := max(p, 2)
		run := 0
		for j := 0; j+p < len(h); j++ {
			if h[j] != h[j+p] {
				run = 0
				continue
			}
			if run++; run >= need {
				return true
			}
		}
	}
	return false
}

// trimPunct is word w without the punctuation around it: "no," and "no"
// are the same word for a repeat.
func trimPunct(w []byte) []byte {
	for len(w) > 0 && isPunctByte(w[0]) {
		w = w[1:]
	}
	for len(w) > 0 && isPunctByte(w[len(w)-1]) {
		w = w[:len(w)-1]
	}
	return w
}

func isPunctByte(c byte) bool {
	switch c {
	case '.', ',', ';', ':', '!', '?', '"', '\'', '(', ')', '-':
		return true
	}
	return false
}

func slicesEqual(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// wordSpans appends to out the [start, end) offsets of the words of b,
// separated by ASCII spaces, tabs and line breaks.
func wordSpans(out [][2]int, b []byte) [][2]int {
	start := -1
	for i, c := range b {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(b)})
	}
	return out
}
