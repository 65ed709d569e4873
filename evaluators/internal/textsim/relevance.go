package textsim

import (
	"math"

	"github.com/evalcol/evalcol/evaluators/internal/wordvec"
)

// AnswerType is the kind of answer a question asks for.
type AnswerType int

// The answer types of ExpectedAnswer.
const (
	// AnswerAny is a question that takes any content ("what", "why", "how").
	AnswerAny AnswerType = iota
	// AnswerNumber asks for a quantity: "how many", "how much", "how long".
	AnswerNumber
	// AnswerDate asks for a time: "when", "what year".
	AnswerDate
	// AnswerName asks for a person, place or organisation: "who", "where".
	AnswerName
)

// Weights of the Relevance blend, chosen a priori.
const (
	relevanceOverlapWeight = 0.6
	relevanceTypeWeight    = 0.4
)

var months = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true,
}

var quantityWords = map[string]bool{
	"many": true, "much": true, "long": true, "old": true, "far": true, "tall": true, "big": true,
	"large": true, "high": true, "fast": true, "deep": true, "wide": true, "heavy": true, "often": true,
}

var timeNouns = map[string]bool{"year": true, "date": true, "day": true, "month": true, "century": true, "decade": true, "time": true}

var nameNouns = map[string]bool{
	"city": true, "country": true, "state": true, "person": true, "company": true, "name": true, "team": true,
	"president": true, "author": true, "man": true, "woman": true, "continent": true, "river": true,
	"capital": true, "province": true, "county": true, "organization": true, "group": true, "island": true,
}

// ExpectedAnswer returns the answer type asked for by the question whose
// tokens are q, from its question word and the word after it.
func ExpectedAnswer(q []Token) AnswerType {
	for i, t := range q {
		next := ""
		if i+1 < len(q) {
			next = q[i+1].Lower
		}
		switch t.Lower {
		case "how":
			if quantityWords[next] {
				return AnswerNumber
			}
		case "when":
			return AnswerDate
		case "who", "whom", "whose", "where":
			return AnswerName
		case "what", "which":
			switch {
			case timeNouns[next]:
				return AnswerDate
			case next == "percentage" || next == "percent" || next == "number" || next == "amount":
				return AnswerNumber
			case nameNouns[next]:
				return AnswerName
			}
		}
	}
	return AnswerAny
}

// HasAnswerType reports whether the answer tokens a hold, outside the
// question keys q, a token of the type t: a number for AnswerNumber, a
// number or month for AnswerDate, a capitalised name for AnswerName, any
// content word for AnswerAny.
func HasAnswerType(a []Token, q KeySet, t AnswerType) bool {
	for _, tok := range a {
		if !tok.Content() || q.Has(tok.Key) || q.Has(tok.Lower) {
			continue
		}
		switch t {
		case AnswerNumber:
			if tok.Number || lexicon().numberWords[tok.Lower] != "" {
				return true
			}
		case AnswerDate:
			if tok.Number || months[tok.Lower] {
				return true
			}
		case AnswerName:
			if tok.Capital && !tok.SentenceStart {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// Relevance scores how well answer addresses question, 0..1, in the spirit
// of Ragas answer relevancy (does the answer speak to what was asked) with
// lexical evidence: 0.6 × the weighted share of the question's content
// words (stemmed, stop words out) that the answer takes up + 0.4 when the
// answer, outside the question's own words, holds what the question word
// asks for (a number for "how many", a date for "when", a name for "who"
// or "where", any new content word otherwise) and shares at least one word
// with the question: a name or a number alone, on another topic, is no
// answer.
func Relevance(question, answer string) float64 {
	q, a := Tokenize(question), Tokenize(answer)
	if len(a) == 0 {
		return 0
	}
	qSet := NewKeySet(q)
	overlap, total := Coverage(q, NewKeySet(a))
	if total == 0 {
		// A question of stop words only ("What is it?"): judge on type.
		overlap = 0.5
	}
	s := relevanceOverlapWeight * overlap
	if overlap > 0 && HasAnswerType(a, qSet, ExpectedAnswer(q)) {
		s += relevanceTypeWeight
	}
	return clamp01(s)
}

// Coefficients of AnswerRelevance: a logistic regression (class-balanced,
// ridge 1) fit on the tuning questions of relevancy/trecqa-dev.jsonl
// (public domain; questions with FNV-1a("relq:"+question) even), chosen
// over simpler feature sets by balanced accuracy on those questions and
// reported on the other, held-out questions (evaluators/QUALITY.md).
const (
	relSoftCoverageCoef = 3.55
	relCoverageCoef     = 2.36
	relTypeCoef         = 2.46
	relEmbeddingCoef    = 1.64
	relBias             = -7.15
	// relSoftFloor is the least embedding cosine for which a question
	// word counts as partly found in the answer.
	relSoftFloor = 0.7
)

// AnswerRelevance is the probability, 0..1, that answer addresses
// question (relevant from 0.5), in the spirit of Ragas answer relevancy
// with lexical and word-vector evidence: a logistic blend of
//
//   - the weighted share of the question's content words (stemmed, stop
//     words out, IDF-weighted, names and numbers 1.5) found in the answer
//     (Coverage);
//   - the same share where a question word missing from the answer counts
//     as found by the cosine of its GloVe vector with the closest answer
//     word, when that cosine is at least 0.7 ("purchase" / "buy");
//   - whether the answer holds, beyond the question's words, the kind of
//     answer asked for (HasAnswerType), counted only when the answer shares
//     a word with the question;
//   - the cosine of their sentence vectors (EmbeddingCosine).
//
// An empty answer scores 0.
func AnswerRelevance(question, answer string) float64 {
	return AnswerRelevanceParts(question, answer).Probability()
}

// RelevanceParts are the parts AnswerRelevance blends.
type RelevanceParts struct {
	Coverage, SoftCoverage, AnswerType, Embedding float64
	// EmptyAnswer: the answer has no token (it scores 0).
	EmptyAnswer bool
}

// AnswerRelevanceParts computes the parts of AnswerRelevance.
func AnswerRelevanceParts(question, answer string) RelevanceParts {
	q, a := Tokenize(question), Tokenize(answer)
	if len(a) == 0 {
		return RelevanceParts{EmptyAnswer: true}
	}
	aSet := NewKeySet(a)
	cov, total := Coverage(q, aSet)
	soft := softCoverage(q, a, aSet)
	if total == 0 {
		// A question of stop words only ("What is it?").
		cov, soft = 0.5, 0.5
	}
	typ := 0.0
	if cov > 0 && HasAnswerType(a, NewKeySet(q), ExpectedAnswer(q)) {
		typ = 1
	}
	e, _ := EmbeddingCosine(q, a)
	return RelevanceParts{Coverage: cov, SoftCoverage: soft, AnswerType: typ, Embedding: e}
}

// Probability blends the parts as AnswerRelevance does.
func (p RelevanceParts) Probability() float64 {
	if p.EmptyAnswer {
		return 0
	}
	z := relBias + relSoftCoverageCoef*p.SoftCoverage + relCoverageCoef*p.Coverage + relTypeCoef*p.AnswerType + relEmbeddingCoef*p.Embedding
	return 1 / (1 + math.Exp(-z))
}

// maxSoftPairs bounds the word pairs softCoverage compares.
const maxSoftPairs = 20_000

// softCoverage is Coverage of q by a where a content word of q missing
// from a counts as found by its best GloVe cosine with a content word of
// a, when that is at least relSoftFloor. Past maxSoftPairs word pairs the
// remaining words count as missing.
func softCoverage(q, a []Token, aSet KeySet) float64 {
	tab := wordvec.Default()
	var ids []int
	var hit, total float64
	pairs := 0
	for _, t := range q {
		w := Weight(t)
		if w == 0 {
			continue
		}
		total += w
		if aSet.Has(t.Key) || aSet.Has(t.Lower) {
			hit += w
			continue
		}
		qi := tab.ID(t.Lower)
		if qi < 0 {
			continue
		}
		if ids == nil {
			ids = make([]int, 0, len(a))
			for _, at := range a {
				if at.Content() {
					if id := tab.ID(at.Lower); id >= 0 {
						ids = append(ids, id)
					}
				}
			}
		}
		if pairs += len(ids); pairs > maxSoftPairs {
			continue
		}
		best := float32(0)
		for _, id := range ids {
			best = max(best, tab.Cosine(qi, id))
		}
		if float64(best) >= relSoftFloor {
			hit += w * float64(best)
		}
	}
	if total == 0 {
		return 0
	}
	return hit / total
}
