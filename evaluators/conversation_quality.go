package evaluators

import (
	"context"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalcol/evalcol/evaluators/internal/agent"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var conversationQuality = Definition{
	Slug:        "conversation-quality",
	Category:    CategoryQuality,
	Description: "Rates a conversation on tone, clarity, flow, responsiveness and transparency.",
	Inputs: []Field{
		{Name: "prompts", Type: TypeString, Required: true, JSONArray: true, Label: "Prompts", Description: "The user turns: a JSON array (of strings or of {role, content} objects) serialized into a string."},
		{Name: "completions", Type: TypeString, Required: true, JSONArray: true, Label: "Completions", Description: "The assistant turns: a JSON array (of strings or of {role, content} objects) serialized into a string."},
	},
	Outputs: []Field{scoreOutput("conversation_quality_score", "Conversation quality score", "0 (poor) to 1 (excellent).")},
	Side:    SideBoth,
	Score:   "conversation_quality_score",
	PassDoc: "conversation_quality_score >= 0.5",
	run:     runConversationQuality,
	pass:    passWhenAtLeastHalf("conversation_quality_score"),
}

// runConversationQuality rates the assistant's side of a conversation on
// five lexical dimensions, each 0..1, and combines them into 0..1 (the
// spirit of DeepEval's conversational metrics, without an LLM judge):
//
//   - tone: 0.75, plus 0.125 per courteous phrase (textsim.Polite: please,
//     thank you, happy to help, ...; at most 2 counted), minus 0.4 per rude
//     or dismissive phrase (textsim.Rude: stupid, whatever, google it, ...),
//     minus 0.3 when most words shout in capitals;
//   - clarity: 1 for sentences of up to 25 words on average, falling
//     linearly to 0 at 55 words (0.4 for one- or two-word replies), times
//     the square root of the share of distinct content words (repetition
//     is unclear), times a readability factor that falls from 1 at an
//     average word length of 7 letters to 0.5 at 12 (jargon and run-on
//     compounds read badly);
//   - responsiveness: textsim.Relevance of each completion to its prompt
//     (the question's words taken up, the kind of answer asked for given),
//     divided by 0.7 and capped at 1;
//   - transparency: 1 when the completion admits a limit (textsim.Limits:
//     "I don't know", "I can't verify", "could you clarify", ...),
//     otherwise 0.4 + 0.6 × responsiveness: an answer that neither answers
//     nor admits it cannot is opaque;
//   - flow: the share of prompts answered, times the share of completions
//     that do not repeat an earlier completion (similarity ≥ 0.9).
//
// The mean of the five is then scaled by 0.5 + 0.5 × engagement, the mean
// over completions of 1 when it admits a limit and its responsiveness
// otherwise: a polite, clear reply that ignores the question is still a
// poor conversation.
//
// Completion i answers prompt i (the last prompt when there are more
// completions). Inputs are JSON arrays serialized into strings, of strings
// or of {role, content} objects; "system" turns are skipped. No completion
// scores 0.
func runConversationQuality(_ context.Context, req Request) (Result, error) {
	prompts, err := parseTurns("prompts", req.Text("prompts"))
	if err != nil {
		return nil, err
	}
	completions, err := parseTurns("completions", req.Text("completions"))
	if err != nil {
		return nil, err
	}
	return Result{"conversation_quality_score": conversationScore(prompts, completions)}, nil
}

// parseTurns decodes the JSON array of input field name (agent.ParseTurns:
// strings or {role, content} objects, system turns left out), as a 400
// naming the field when it is not one.
func parseTurns(name, raw string) ([]string, error) {
	turns, err := agent.ParseTurns(raw)
	if err != nil {
		msg := err.Error()
		sep := " "
		if strings.HasPrefix(msg, "[") {
			sep = "" // input.prompts[1] must be ...
		}
		return nil, InvalidInput("input."+name, "input.%s%s%s", name, sep, msg)
	}
	return turns, nil
}

// Constants of the conversation dimensions (see runConversationQuality).
const (
	toneBase         = 0.75
	tonePolite       = 0.125
	toneRude         = 0.4
	toneShout        = 0.3
	clarityMaxWords  = 25.0
	clarityZeroWords = 55.0
	// Average word lengths (letters) from which readability falls, and at
	// which it reaches its floor of 0.5.
	clarityPlainWordLength = 7.0
	clarityHardWordLength  = 12.0
	responsivenessScale    = 0.7
	repeatSimilarity       = 0.9
	// engagementGate is the share of the score that depends on the
	// assistant engaging with what was asked (answering it or saying why it
	// cannot): a polite, clear reply to another question is still a poor
	// conversation.
	engagementGate = 0.5
)

func conversationScore(prompts, completions []string) float64 {
	if len(completions) == 0 {
		return 0
	}
	var tone, clarity, respond, transparent, engaged float64
	toks := make([][]textsim.Token, len(completions))
	for i, c := range completions {
		toks[i] = textsim.Tokenize(c)
		prompt := ""
		if len(prompts) > 0 {
			prompt = prompts[min(i, len(prompts)-1)]
		}
		r := 1.0
		if prompt != "" {
			r = math.Min(1, textsim.Relevance(prompt, c)/responsivenessScale)
		}
		tone += toneOf(toks[i])
		clarity += clarityOf(c, toks[i])
		respond += r
		if textsim.Limits().Weight(toks[i]) > 0 {
			transparent++
			engaged++
		} else {
			transparent += 0.4 + 0.6*r
			engaged += r
		}
	}
	n := float64(len(completions))
	flow := flowOf(len(prompts), completions, toks)
	mean := (tone/n + clarity/n + respond/n + transparent/n + flow) / 5
	return mean * (1 - engagementGate + engagementGate*engaged/n)
}

func toneOf(toks []textsim.Token) float64 {
	t := toneBase + tonePolite*math.Min(2, textsim.Polite().Weight(toks)) - toneRude*textsim.Rude().Weight(toks)
	shouting, words := 0, 0
	for _, tok := range toks {
		if tok.Number || len(tok.Text) < 3 {
			continue
		}
		words++
		if strings.ToUpper(tok.Text) == tok.Text && strings.IndexFunc(tok.Text, unicode.IsLetter) >= 0 {
			shouting++
		}
	}
	if words >= 3 && 2*shouting > words {
		t -= toneShout
	}
	return clampConversation(t)
}

func clarityOf(text string, toks []textsim.Token) float64 {
	if len(toks) == 0 {
		return 0
	}
	sents := max(1, len(textsim.Sentences(text)))
	perSentence := float64(len(toks)) / float64(sents)
	var c float64
	switch {
	case len(toks) <= 2:
		c = 0.4
	case perSentence <= clarityMaxWords:
		c = 1
	default:
		c = math.Max(0, 1-(perSentence-clarityMaxWords)/(clarityZeroWords-clarityMaxWords))
	}
	seen := map[string]bool{}
	content := 0
	for _, t := range toks {
		if t.Content() {
			content++
			seen[t.Key] = true
		}
	}
	if content > 0 {
		c *= math.Sqrt(float64(len(seen)) / float64(content))
	}
	letters := 0
	for _, t := range toks {
		letters += utf8.RuneCountInString(t.Text)
	}
	if avg := float64(letters) / float64(len(toks)); avg > clarityPlainWordLength {
		c *= math.Max(0.5, 1-(avg-clarityPlainWordLength)/(2*(clarityHardWordLength-clarityPlainWordLength)))
	}
	return c
}

func flowOf(prompts int, completions []string, toks [][]textsim.Token) float64 {
	answered := 1.0
	if prompts > len(completions) {
		answered = float64(len(completions)) / float64(prompts)
	}
	repeats := 0
	for i := 1; i < len(completions); i++ {
		for j := 0; j < i; j++ {
			if textsim.TokenSimilarity(completions[i], completions[j], toks[i], toks[j]) >= repeatSimilarity {
				repeats++
				break
			}
		}
	}
	return answered * (1 - float64(repeats)/float64(len(completions)))
}

func clampConversation(x float64) float64 { return math.Max(0, math.Min(1, x)) }
