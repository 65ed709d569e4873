package evaluators

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/agent"
	"github.com/evalcol/evalcol/evaluators/internal/judge"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

var intentChange = Definition{
	Slug:        "intent-change",
	Category:    CategoryQuality,
	Description: "Detects a change of the user's intent during a conversation: an explicit change (\"actually\", \"instead\", \"never mind\") or a request on an unrelated subject.",
	Inputs: []Field{
		{Name: "prompts", Type: TypeString, Required: true, JSONArray: true, Label: "Prompts", Description: "The user turns: a JSON array (of strings or of {role, content} objects) serialized into a string."},
		{Name: "completions", Type: TypeString, Required: true, JSONArray: true, Label: "Completions", Description: "The assistant turns: a JSON array (of strings or of {role, content} objects) serialized into a string."},
	},
	Outputs: []Field{
		boolOutput("pass", "Pass", "true when the user's intent stayed the same throughout."),
		{Name: "reason", Type: TypeString, Label: "Reason", Description: "The turn where the intent changed and why, or that it did not."},
		{Name: "score", Type: TypeInteger, Label: "Score", Description: "1 when the intent stayed the same, 0 when it changed."},
	},
	Side:    SideInput,
	Score:   "score",
	PassDoc: "pass == true (the intent did not change)",
	run:     runIntentChange,
	pass:    passWhenTrue("pass"),
}

// intentMarker finds a user's explicit change of mind.
var intentMarker = regexp.MustCompile(`(?i)\b(?:actually|instead|never ?mind|nevermind|forget (?:about )?(?:that|it|this|what i said)|scratch that|change of plans?|on second thoughts?|(?:i )?changed my mind|i'?d rather|rather than|no,? wait|cancel (?:that|it|my)|not anymore|different question|unrelated(?: question)?|switch(?:ing)? (?:to|gears|topics?)|new (?:topic|question|request)|something else|let'?s talk about)\b`)

// intentFollowUp finds the openings of a follow-up that keeps the
// intent ("and for Germany?", "what about ...", "thanks, ...").
var intentFollowUp = regexp.MustCompile(`(?i)^\s*(?:and|also|what about|how about|and what|ok(?:ay)?|thanks|thank you|great|yes|no|sure|then|so|but|it|that|this|they|those|these|he|she|why|more|another|can you (?:also|explain|elaborate)|please)\b`)

// intentUnrelated is the most sentence-vector cosine (judge.Cosine) of a
// prompt with every earlier prompt for it to be on an unrelated subject
// (when it also shares no content word with them).
const intentUnrelated = 0.2

// runIntentChange reads the user turns in order; from the second on, the
// intent changed at a turn that
//
//   - says so: "actually", "instead", "never mind", "forget that",
//     "scratch that", "on second thought", "changed my mind", "I'd
//     rather", "no, wait", "cancel that", "something else", "let's talk
//     about" (intentMarker); or
//   - asks about an unrelated subject: it does not open as a follow-up
//     ("and", "what about", "thanks", "it", "that", ...), shares no
//     content word (stem) with any earlier turn, and the cosine of its
//     sentence vector with each earlier turn's is below 0.2.
//
// score is 1 and pass true when the intent never changed, else 0 and
// false, with the turn named in the reason. Completions are not judged
// (they must be a JSON array all the same).
func runIntentChange(_ context.Context, req Request) (Result, error) {
	prompts, err := agent.ParseTurns(req.Text("prompts"))
	if err != nil {
		return nil, invalidf("input.prompts", "input.prompts%s", sep(err))
	}
	if _, err := agent.ParseTurns(req.Text("completions")); err != nil {
		return nil, invalidf("input.completions", "input.completions%s", sep(err))
	}
	var earlier [][]textsim.Token
	for i, p := range prompts {
		toks := textsim.Tokenize(p)
		if i > 0 && strings.TrimSpace(p) != "" {
			if m := intentMarker.FindString(p); m != "" {
				return intentChanged(i, fmt.Sprintf("the user says %q", m)), nil
			}
			if unrelated(toks, earlier) && !intentFollowUp.MatchString(p) {
				return intentChanged(i, "the user asks about an unrelated subject"), nil
			}
		}
		if len(toks) > 0 {
			earlier = append(earlier, toks)
		}
	}
	return Result{"pass": true, "reason": "The user's intent remained the same throughout the conversation.", "score": 1}, nil
}

func intentChanged(turn int, why string) Result {
	return Result{"pass": false, "reason": fmt.Sprintf("The user's intent changed at turn %d: %s.", turn+1, why), "score": 0}
}

// unrelated reports whether toks share no content word with any earlier
// turn and are far from each in sentence-vector space.
func unrelated(toks []textsim.Token, earlier [][]textsim.Token) bool {
	if len(earlier) == 0 {
		return false
	}
	content := false
	for _, t := range toks {
		if t.Content() {
			content = true
			break
		}
	}
	if !content {
		return false
	}
	for _, e := range earlier {
		if cov, _ := textsim.Coverage(toks, textsim.NewKeySet(e)); cov > 0 {
			return false
		}
		if judge.Cosine(toks, e) >= intentUnrelated {
			return false
		}
	}
	return true
}
