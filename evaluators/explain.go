package evaluators

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Explanation says why an evaluator answered as it did: a one-line
// summary, the findings that decided it (entities, secrets, rules, words,
// regex matches) and, for scores, the parts they were computed from. It
// sits beside the spec's output fields, never among them, so that clients
// that compare outputs exactly see the same objects.
type Explanation struct {
	// Summary is one line a person reads first ("PII found: EMAIL_ADDRESS").
	Summary string `json:"summary"`
	// Findings are what the evaluator found, in text order.
	Findings []Finding `json:"findings,omitempty"`
	// Parts are the named components of a score (e.g. "token_overlap").
	Parts map[string]float64 `json:"parts,omitempty"`
}

// Finding is one thing an evaluator found in an input text.
type Finding struct {
	// Kind is what was found: a Presidio entity type (EMAIL_ADDRESS), a
	// secret rule (gitleaks:aws-access-token), a lexicon category, "match".
	Kind string `json:"kind"`
	// Input names the input field that Start and End index ("text").
	Input string `json:"input,omitempty"`
	// Start and End are byte offsets in that input's UTF-8 text,
	// end-exclusive; both -1 when the finder gives no position.
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is the matched text, or a masked form of it where showing it
	// would leak what the evaluator guards against (secrets: Masked).
	Text   string `json:"text,omitempty"`
	Masked bool   `json:"masked,omitempty"`
	// Score is the finding's own score in 0..1 when it has one.
	Score float64 `json:"score,omitempty"`
	// Source is the recognizer, rule or detector that found it.
	Source string `json:"source,omitempty"`
}

// maxFindings bounds the findings of one explanation, so that an
// explanation of a long text stays small in storage and on a page.
const maxFindings = 20

// Explain returns the explanation of res, the successful result of req,
// or nil when the evaluator has nothing to add (it explains failures and
// scores, and keeps passing detectors cheap: they return nil). A panic in
// an explainer is recovered into nil: the result stands without its
// explanation.
func (d *Definition) Explain(ctx context.Context, req Request, res Result) (e *Explanation) {
	if res == nil {
		return nil
	}
	if d.explain == nil {
		// An evaluator that words its reason in its output (the agent
		// evaluators) explains itself with it.
		if r, ok := res["reason"].(string); ok && r != "" && d.hasReason() {
			return &Explanation{Summary: r}
		}
		return nil
	}
	defer func() {
		if recover() != nil {
			e = nil
		}
	}()
	e = d.explain(ctx, req, res)
	if e != nil && len(e.Findings) > maxFindings {
		e.Summary += fmt.Sprintf(" (first %d of %d findings)", maxFindings, len(e.Findings))
		e.Findings = e.Findings[:maxFindings]
	}
	return e
}

// explainBudgetKey is the context key of WithExplainBudget.
type explainBudgetKey struct{}

// WithExplainBudget returns ctx bounding the extra scorings an explanation
// may make (a classifier's occlusion makes up to maxOcclusions = 120 by
// default): callers on a hot path, such as the evaluator processor, ask
// for a cheaper explanation (the rule and the clauses that suffice alone
// first, then words while the budget lasts).
func WithExplainBudget(ctx context.Context, scorings int) context.Context {
	return context.WithValue(ctx, explainBudgetKey{}, scorings)
}

// explainBudget is the scorings budget of ctx.
func explainBudget(ctx context.Context) int {
	if n, ok := ctx.Value(explainBudgetKey{}).(int); ok && n > 0 {
		return min(n, maxOcclusions)
	}
	return maxOcclusions
}

// scorer scores texts for an explanation within a budget of scorings.
type scorer struct {
	score func(string) float64
	left  int
}

// try scores s; ok is false once the budget is spent.
func (sc *scorer) try(s string) (p float64, ok bool) {
	if sc.left <= 0 {
		return 0, false
	}
	sc.left--
	return sc.score(s), true
}

// Explains reports whether the evaluator gives explanations.
func (d *Definition) Explains() bool { return d.explain != nil || d.hasReason() }

// hasReason reports whether d's output has a reason field.
func (d *Definition) hasReason() bool {
	for _, f := range d.Outputs {
		if f.Name == "reason" && f.Type == TypeString {
			return true
		}
	}
	return false
}

// kindsSummary renders "<prefix>: KIND_A ×2, KIND_B" from findings, kinds
// in the order first found.
func kindsSummary(prefix string, fs []Finding) string {
	var order []string
	count := map[string]int{}
	for _, f := range fs {
		if count[f.Kind] == 0 {
			order = append(order, f.Kind)
		}
		count[f.Kind]++
	}
	var b strings.Builder
	b.WriteString(prefix)
	for i, k := range order {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(k)
		if n := count[k]; n > 1 {
			fmt.Fprintf(&b, " ×%d", n)
		}
	}
	return b.String()
}

// maskSecret shows at most the first four and last two characters of a
// secret of 12 or more characters and stars for the rest, and only stars
// for a shorter one: enough to recognise a key one holds, never enough to
// use it.
func maskSecret(s string) string {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return ""
	}
	stars := func(k int) string { return strings.Repeat("*", min(k, 16)) }
	if n < 12 {
		return stars(n)
	}
	r := []rune(s)
	return string(r[:4]) + stars(n-6) + string(r[n-2:])
}

// clip returns s[start:end] cut to at most 120 bytes at a rune boundary,
// for the Text of a finding in a long match.
func clip(s string, start, end int) string {
	if start < 0 || end > len(s) || start >= end {
		return ""
	}
	t := s[start:end]
	if len(t) <= 120 {
		return t
	}
	n := 120
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n] + "…"
}
