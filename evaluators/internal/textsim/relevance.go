package textsim

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
