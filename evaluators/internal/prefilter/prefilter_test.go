package prefilter

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcorpus"
)

func TestConditions(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`hello`, `{hello}`},
		{`(?i)Hello`, `{hello}`},
		{`\bignor(?:e|ing)\s+(?:previous|prior)\s+instructions?\b`, `and({\bignore,\bignoring} {\binstruction\b,\binstructions\b} {\bprevious,\bprior})`}, // \s+ before a word: a boundary
		{`(?i)(?:set\s+aside|ignore|drop)\s+rules`, `and(or(and({\baside} {set}) {drop,ignore}) {\brules})`},
		{`abc|d.*`, `true`}, // the second alternative requires nothing useful
		{`a.c`, `true`},     // pieces shorter than minUseful
		{`[0-9]{4}-secret`, `{-secret}`},
		{`(?i)(?:key|token)s?`, `{key,token}`},
		{`(?i)übergeh\w*`, `{Übergeh,übergeh}`}, // ü also matches Ü, which ASCII lower-casing keeps
		{`[éè]bergeh`, `{èbergeh,ébergeh}`},
		{`(?i)[ü]bergeh`, `{Übergeh,übergeh}`}, // parsed as a folded literal
		{`(?i)\bnew\b`, `{\bnew\b}`},
		{`abc\x00def`, `and({abc} {def})`}, // a NUL would read as a boundary mark
		{`(?:ab)+cde`, `{cde}`},            // "ab" alone is too short to be worth requiring
		{`x*`, `true`},
		{`(?:foo)?bar`, `{bar}`},
		{`(?:foo){2,3}bar`, `and({bar} {foo})`},
		{`do\s+anything\s+now|dan\s+mode|(?:developer|god)\s+mode\s+enabled`, `or(and({\banything} {\bnow}) and({\benabled} {\bmode} {developer,god}) and({\bmode} {dan}))`},
		{`(?:\w+\s+){0,2}?end`, `{end}`},         // may follow a word byte
		{`\s+(?:\w+\s+){0,2}?end`, `{\bend}`},    // follows white space in every case
		{`[.!?]\s*(?:foo|-bar)`, `{-bar,\bfoo}`}, // no boundary before a non-word byte
		{`x\s*end`, `{end}`},                     // \s* may be empty after a word byte
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			f, err := Compile(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.String(); got != c.want {
				t.Errorf("condition = %s, want %s", got, c.want)
			}
		})
	}
}

// TestLargeConditionsAreWeakened: an alternation of many conjunctions is
// reduced to one leaf of their best strings.
func TestLargeConditionsAreWeakened(t *testing.T) {
	var alts []string
	for i := range 60 {
		alts = append(alts, fmt.Sprintf("alpha%02d\\s+beta%02dx", i, i))
	}
	f, err := Compile(strings.Join(alts, "|"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.String(); strings.Contains(got, "and(") || !strings.Contains(got, "07") {
		t.Errorf("condition = %.200s, want one leaf", got)
	}
}

func TestCompileRejectsBadExpression(t *testing.T) {
	if _, err := Compile(`a(b`); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Fatalf("err = %v, want a parse error", err)
	}
}

func TestNilAndEmptyFilterLetEverythingThrough(t *testing.T) {
	var f *Filter
	if !f.MayMatch([]byte("x")) {
		t.Error("nil filter rejected a text")
	}
	g, err := Compile(`.*`)
	if err != nil {
		t.Fatal(err)
	}
	if !g.MayMatch(nil) {
		t.Error("empty filter rejected a text")
	}
}

// TestWordBoundaries: a required string marked with \b is only found
// where the boundary holds.
func TestWordBoundaries(t *testing.T) {
	f, err := Compile(`(?i)\bdan\s+mode\b`)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{
		"guidance model":     false,
		"the dan model":      false, // "mode" not followed by a boundary
		"abundant mode":      false,
		"Dan mode":           true,
		"dan-mode, DAN MODE": true,
		"(dan) mode.":        true,
		"_dan mode":          false, // '_' is a word byte
	} {
		if got := f.MayMatch(LowerASCII(nil, text)); got != want {
			t.Errorf("%q: MayMatch = %v, want %v", text, got, want)
		}
	}
}

// TestFoldVariantsLetThrough: (?i) matches 'k' as U+212A and 's' as
// U+017F, which ASCII lower-casing does not map; such texts pass.
func TestFoldVariantsLetThrough(t *testing.T) {
	re := regexp.MustCompile(`(?i)secret key`)
	f := New(re)
	for _, text := range []string{"the \u017fecret key", "the secret \u212aey"} {
		if !re.MatchString(text) {
			t.Fatalf("%q: the expression should match", text)
		}
		lower := LowerASCII(nil, text)
		if !f.MayMatch(lower) {
			t.Errorf("%q: filtered out a match", text)
		}
	}
	if f.MayMatch(LowerASCII(nil, "the secret door")) {
		t.Error("a text without the key word passed")
	}
}

// gen writes random expressions and, beside each, strings that tend to
// match it.
type gen struct{ rng *rand.Rand }

// nodes returns two to four expressions and their samplers.
func (g gen) nodes(depth int) (exprs []string, samplers []func() string) {
	for range 2 + g.rng.IntN(3) {
		e, s := g.node(depth)
		exprs, samplers = append(exprs, e), append(samplers, s)
	}
	return exprs, samplers
}

// node returns an expression and a sampler of strings it may match.
func (g gen) node(depth int) (string, func() string) {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		return g.atom()
	}
	switch g.rng.IntN(6) {
	case 0, 1: // concatenation
		exprs, samplers := g.nodes(depth - 1)
		return strings.Join(exprs, ""), func() string {
			var b strings.Builder
			for _, s := range samplers {
				b.WriteString(s())
			}
			return b.String()
		}
	case 2: // alternation
		exprs, samplers := g.nodes(depth - 1)
		return "(?:" + strings.Join(exprs, "|") + ")", func() string { return samplers[g.rng.IntN(len(samplers))]() }
	case 3: // repetition
		e, s := g.node(depth - 1)
		ops := []struct {
			op       string
			min, max int
		}{{"?", 0, 1}, {"*", 0, 3}, {"+", 1, 3}, {"{2}", 2, 2}, {"{1,3}", 1, 3}, {"{0,2}", 0, 2}, {"{2,}", 2, 4}, {"+?", 1, 2}}
		o := ops[g.rng.IntN(len(ops))]
		return "(?:" + e + ")" + o.op, func() string {
			var b strings.Builder
			for range o.min + g.rng.IntN(o.max-o.min+1) {
				b.WriteString(s())
			}
			return b.String()
		}
	case 4: // case-insensitive group
		e, s := g.node(depth - 1)
		return "(?i:" + e + ")", func() string { return g.recase(s()) }
	default: // capture
		e, s := g.node(depth - 1)
		return "(" + e + ")", s
	}
}

var words = []string{"ab", "_", "kit", "sos", "key", "Über", "ü", "пример", "и", "x", "Secret", "tok", "忽略", "ſ", "ǅ"}

func (g gen) atom() (string, func() string) {
	switch g.rng.IntN(9) {
	case 0, 1, 2, 3:
		w := words[g.rng.IntN(len(words))]
		return regexp.QuoteMeta(w), func() string { return w }
	case 4:
		cls := []string{"[a-c]", "[kK]", "[sS]", "[xyz]", "[üÜ]", "[^x]", "[0-9]", "[\\s-]"}
		c := cls[g.rng.IntN(len(cls))]
		re := regexp.MustCompile("^" + c + "$")
		return c, func() string {
			for range 100 {
				r := string(rune(32 + g.rng.IntN(0x250)))
				if re.MatchString(r) {
					return r
				}
			}
			return ""
		}
	case 5:
		switch g.rng.IntN(3) {
		case 0:
			return `\w+`, func() string { return []string{"a", "b_", "9z"}[g.rng.IntN(3)] }
		case 1:
			return `[^a-z]*`, func() string { return []string{"", " ", "-.", "A"}[g.rng.IntN(4)] }
		}
		return `\s+`, func() string { return strings.Repeat(" ", 1+g.rng.IntN(2)) }
	case 6:
		return `.`, func() string { return string(rune(32 + g.rng.IntN(0x250))) }
	case 7:
		return `\b`, func() string { return "" }
	default:
		return `\pL`, func() string { return string(rune('a' + g.rng.IntN(26))) }
	}
}

// recase flips the case of some letters and swaps in the non-ASCII folds
// of k and s.
func (g gen) recase(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case (r == 'k' || r == 'K') && g.rng.IntN(4) == 0:
			r = '\u212a'
		case (r == 's' || r == 'S') && g.rng.IntN(4) == 0:
			r = '\u017f'
		case g.rng.IntN(2) == 0:
			if u := []rune(strings.ToUpper(string(r))); len(u) == 1 {
				r = u[0]
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestNeverFiltersAMatch: on random expressions and texts built to match
// them, every text the expression matches passes the filter.
func TestNeverFiltersAMatch(t *testing.T) {
	g := gen{rng: rand.New(rand.NewPCG(7, 11))}
	var matched, filtered, total int
	for range 3000 {
		expr, sample := g.node(4)
		if g.rng.IntN(2) == 0 {
			expr = "(?i)" + expr
		}
		re := regexp.MustCompile(expr)
		f := New(re)
		for range 20 {
			text := sample()
			if strings.HasPrefix(expr, "(?i)") {
				text = g.recase(text)
			}
			if g.rng.IntN(2) == 0 {
				text = "pre " + text + " post"
			}
			if g.rng.IntN(4) == 0 {
				// A damaged copy, so that some texts do not match.
				rs := []rune(text)
				if len(rs) > 0 {
					rs[g.rng.IntN(len(rs))] = '#'
				}
				text = string(rs)
			}
			total++
			lower := LowerASCII(nil, text)
			may := f.MayMatch(lower)
			if re.MatchString(text) {
				matched++
				if !may {
					t.Fatalf("%q matches %q, but the filter %s rejected it", expr, text, f)
				}
			} else if !may {
				filtered++
			}
		}
	}
	t.Logf("%d texts: %d matched, %d rejected by the filter", total, matched, filtered)
	if matched < total/3 || filtered < (total-matched)/10 {
		t.Errorf("%d texts: %d matched, %d filtered: the generator no longer exercises the filter", total, matched, filtered)
	}
}

// TestOnePassLeavesMatchSearches: a leaf of many needles checked in one
// pass agrees with one search per needle, on thousands of varied texts.
func TestOnePassLeavesMatchSearches(t *testing.T) {
	exprs := []string{
		`(?i)\b(?:ignore|disregard|forget|skip|drop|abandon|override)\s+(?:previous|prior|above|earlier|all|any|your)\b`,
		`(?:kill|murder|shoot|stab|hang|hurt|beat|burn|end)(?:s|ing)?\b`,
		`\s+(?:the|a|an|this|that|these|those)\s+(?:task|rules|prompt|model|policy|filter)`,
		`(?:api[_-]?key|secret|token|password|passwd|pwd)\s*[:=]`,
	}
	var leaves []*cond
	var walk func(c *cond)
	walk = func(c *cond) {
		if c == nil {
			return
		}
		if c.byFirst != nil {
			leaves = append(leaves, c)
		}
		for _, s := range c.subs {
			walk(s)
		}
	}
	for _, e := range exprs {
		f, err := Compile(e)
		if err != nil {
			t.Fatal(err)
		}
		walk(f.root)
	}
	if len(leaves) < 4 {
		t.Fatalf("%d one-pass leaves: the expressions no longer make any", len(leaves))
	}
	held := 0
	for _, text := range testcorpus.Texts() {
		lower := LowerASCII(nil, text)
		for _, c := range leaves {
			want := false
			for i, n := range c.needles {
				if len(c.bounds[i]) == 0 {
					want = want || bytes.Contains(lower, n)
				} else {
					want = want || containsBounded(lower, n, c.bounds[i])
				}
			}
			if got := c.holdsOnePass(lower); got != want {
				t.Fatalf("leaf %s on %q: one pass %v, per needle %v", c, lower, got, want)
			}
			if want {
				held++
			}
		}
	}
	if held < 500 {
		t.Errorf("only %d leaves held", held)
	}
}
