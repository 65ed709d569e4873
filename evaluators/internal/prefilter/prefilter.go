// Package prefilter derives from a regular expression a necessary
// condition on the literal text of its matches: a few sets of strings such
// that every match contains at least one string of each set. A text that
// lacks every string of one set cannot match, so the expression need not
// run on it; checking costs a few substring searches, where running the
// expression costs a walk of its program over every position of the text.
//
// The condition is read from the parsed expression (regexp/syntax), the
// way RE2's FilteredRE2 and codesearch's trigram queries are: literals and
// small character classes give exact string sets, concatenation multiplies
// them (until the product grows too large, when it is cut into required
// pieces), alternation unites them, and anything else (wildcards, large
// classes, optional parts) requires nothing. Strings are compared in ASCII
// lower case; runes whose case folding is not ASCII-only never become
// required strings, so (?i) expressions are filtered exactly.
package prefilter

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Filter is a necessary condition for a match of one expression. The zero
// Filter (and a nil one) lets every text through.
type Filter struct {
	// root is the condition; nil requires nothing.
	root *cond
	// foldK and foldS: some required string holds 'k' or 's', which
	// (?i) also matches as U+212A KELVIN SIGN or U+017F LONG S; a text
	// holding either rune is let through.
	foldK, foldS bool
}

// cond is a condition on a text: a leaf requires one of its strings as a
// substring; an and node all of its children, an or node one of them.
type cond struct {
	op      condOp
	strs    []string // leaf: ASCII lower case, minimised; boundary marks \b
	needles [][]byte // leaf: strs without boundary marks
	bounds  [][]int  // leaf: offsets in needles[i] where \b must hold
	// byFirst, for a leaf of many needles (sorted by first byte), holds
	// at byFirst[c]..byFirst[c+1] the needles starting with byte c: the
	// leaf is checked in one pass over the text.
	byFirst *[257]uint16
	subs    []*cond // and, or
}

// minByFirst is the number of needles from which a leaf is checked in
// one pass rather than one search per needle.
const minByFirst = 4

// boundary marks an ASCII word boundary (\b) in a required string; the
// analysis never makes it from a literal (a NUL rune in a literal cuts
// it, see literal).
const boundary = "\x00"

type condOp uint8

const (
	opLeaf condOp = iota
	opAnd
	opOr
)

// Limits of the analysis.
const (
	// maxExact bounds an exact string set (the strings a part of the
	// expression can match).
	maxExact = 64
	// maxLeafStrings bounds the strings of one leaf.
	maxLeafStrings = 64
	// maxClass bounds the runes of a character class read exactly.
	maxClass = 4
	// minUseful is the shortest string worth requiring: leaves whose
	// shortest string is shorter let nearly every text through and only
	// cost time.
	minUseful = 3
	// maxLeaves bounds the leaves of a condition; a larger one is
	// weakened (see weaken).
	maxLeaves = 48
)

// New returns the filter of re, which must have been compiled with
// regexp.Compile or regexp.MustCompile (Perl syntax).
func New(re *regexp.Regexp) *Filter {
	f, err := Compile(re.String())
	if err != nil {
		// re compiled, so its source parses.
		panic(fmt.Sprintf("prefilter: %v", err))
	}
	return f
}

// Compile returns the filter of a regular expression in the syntax of
// regexp.Compile.
func Compile(expr string) (*Filter, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("prefilter: parse %q: %w", expr, err)
	}
	in := analyze(unfactor(re))
	c := in.cond
	if in.exact {
		c = leaf(in.strs)
	}
	c = prune(c)
	if leaves(c) > maxLeaves {
		c = prune(weaken(c))
	}
	f := &Filter{root: c}
	f.prepare(c)
	return f, nil
}

// prepare orders and-children (leaves by selectivity first, then the
// rest), converts leaf strings to bytes and sets the fold flags.
func (f *Filter) prepare(c *cond) {
	if c == nil {
		return
	}
	if c.op == opLeaf {
		for _, s := range c.strs {
			var needle []byte
			var bounds []int
			for _, piece := range strings.SplitAfter(s, boundary) {
				piece, marked := strings.CutSuffix(piece, boundary)
				needle = append(needle, piece...)
				if marked {
					bounds = append(bounds, len(needle))
				}
			}
			c.needles = append(c.needles, needle)
			c.bounds = append(c.bounds, bounds)
			f.foldK = f.foldK || bytes.IndexByte(needle, 'k') >= 0
			f.foldS = f.foldS || bytes.IndexByte(needle, 's') >= 0
		}
		if len(c.needles) >= minByFirst {
			order := make([]int, len(c.needles))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return int(c.needles[a][0]) - int(c.needles[b][0]) })
			needles, bounds := make([][]byte, len(order)), make([][]int, len(order))
			c.byFirst = new([257]uint16)
			for k, i := range order {
				needles[k], bounds[k] = c.needles[i], c.bounds[i]
				c.byFirst[needles[k][0]+1]++
			}
			for b := 1; b <= 256; b++ {
				c.byFirst[b] += c.byFirst[b-1]
			}
			c.needles, c.bounds = needles, bounds
		}
		return
	}
	for _, s := range c.subs {
		f.prepare(s)
	}
	if c.op == opAnd {
		slices.SortStableFunc(c.subs, func(a, b *cond) int { return rank(b) - rank(a) })
	}
}

// rank orders the children of an and node: selective leaves first.
func rank(c *cond) int {
	if c.op == opLeaf {
		return 1_000_000 + selectivity(c.strs)
	}
	return -leaves(c)
}

// String renders the condition canonically, for tests and documentation:
// a leaf as {a,b}, and nodes as and(...), or nodes as or(...), "true"
// when nothing is required.
func (f *Filter) String() string {
	if f == nil || f.root == nil {
		return "true"
	}
	return f.root.String()
}

func (c *cond) String() string {
	switch c.op {
	case opLeaf:
		strs := make([]string, len(c.strs))
		for i, s := range c.strs {
			strs[i] = strings.ReplaceAll(s, boundary, `\b`)
		}
		slices.Sort(strs)
		return "{" + strings.Join(strs, ",") + "}"
	default:
		parts := make([]string, len(c.subs))
		for i, s := range c.subs {
			parts[i] = s.String()
		}
		slices.Sort(parts)
		name := "and"
		if c.op == opOr {
			name = "or"
		}
		return name + "(" + strings.Join(parts, " ") + ")"
	}
}

var (
	kelvinSign = []byte("\u212a")
	longS      = []byte("\u017f")
)

// MayMatch reports whether a text whose ASCII letters are in lower case
// (other bytes unchanged; see LowerASCII) may hold a match. When it
// returns false, the expression matches no substring of the text.
func (f *Filter) MayMatch(lower []byte) bool {
	if f == nil || f.root == nil {
		return true
	}
	if (f.foldK && bytes.Contains(lower, kelvinSign)) || (f.foldS && bytes.Contains(lower, longS)) {
		return true
	}
	return f.root.holds(lower)
}

func (c *cond) holds(b []byte) bool {
	switch c.op {
	case opLeaf:
		if c.byFirst != nil {
			return c.holdsOnePass(b)
		}
		for i, s := range c.needles {
			if len(c.bounds[i]) == 0 {
				if bytes.Contains(b, s) {
					return true
				}
				continue
			}
			if containsBounded(b, s, c.bounds[i]) {
				return true
			}
		}
		return false
	case opAnd:
		for _, s := range c.subs {
			if !s.holds(b) {
				return false
			}
		}
		return true
	default:
		for _, s := range c.subs {
			if s.holds(b) {
				return true
			}
		}
		return false
	}
}

// LowerASCII appends s to dst with ASCII letters in lower case and every
// other byte unchanged, so offsets in the result are offsets in s.
func LowerASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// holdsOnePass is holds for a leaf with byFirst: at each byte of b, the
// needles that start with it are compared there.
func (c *cond) holdsOnePass(b []byte) bool {
	for at, ch := range b {
		for k := c.byFirst[ch]; k < c.byFirst[int(ch)+1]; k++ {
			n := c.needles[k]
			if !bytes.HasPrefix(b[at:], n) {
				continue
			}
			ok := true
			for _, off := range c.bounds[k] {
				if !isBoundary(b, at+off) {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// containsBounded reports whether b holds needle at an offset where an
// ASCII word boundary lies at each of the needle's offsets bounds.
func containsBounded(b, needle []byte, bounds []int) bool {
	for from := 0; from+len(needle) <= len(b); {
		i := bytes.Index(b[from:], needle)
		if i < 0 {
			return false
		}
		at := from + i
		ok := true
		for _, k := range bounds {
			if !isBoundary(b, at+k) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
		from = at + 1
	}
	return false
}

// isBoundary reports whether \b holds before b[i]: exactly one of b[i-1]
// and b[i] is an ASCII word byte (outside b counts as a non-word byte).
func isBoundary(b []byte, i int) bool {
	before := i > 0 && isWordByte(b[i-1])
	after := i < len(b) && isWordByte(b[i])
	return before != after
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// info is what the analysis knows about the strings a part of an
// expression matches.
type info struct {
	// exact: strs is every string the part can match (possibly "").
	exact bool
	strs  []string
	// cond, when not exact, holds for every match of the part (nil:
	// nothing is known).
	cond *cond
	// nonWordEnd: every non-empty match ends with a byte that is not an
	// ASCII word byte (so a word byte right after it starts a word);
	// mayBeEmpty: some match is empty. Exact parts read both from strs.
	nonWordEnd, mayBeEmpty bool
}

// anything is a part about which nothing is known.
var anything = info{mayBeEmpty: true}

func exactly(strs ...string) info {
	in := info{exact: true, strs: strs, nonWordEnd: true}
	for _, s := range strs {
		s = strings.ReplaceAll(s, boundary, "")
		if s == "" {
			in.mayBeEmpty = true
		} else if isWordByte(s[len(s)-1]) {
			in.nonWordEnd = false
		}
	}
	return in
}

// after reports whether the byte before the position after part x is a
// non-word byte, given whether the byte before x was (prev).
func after(x info, prev bool) bool {
	if x.mayBeEmpty {
		return x.nonWordEnd && prev
	}
	return x.nonWordEnd
}

// markStarts marks a word boundary before every string of strs that
// starts with a word byte: strs follow a non-word byte.
func markStarts(strs []string) []string {
	out := make([]string, len(strs))
	for i, s := range strs {
		if s != "" && isWordByte(s[0]) {
			s = boundary + s
		}
		out[i] = s
	}
	return out
}

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpLiteral:
		return literal(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return charClass(re.Rune)
	case syntax.OpWordBoundary:
		return exactly(boundary)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpNoWordBoundary:
		return exactly("")
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return atLeastOnce(analyze(re.Sub[0]))
	case syntax.OpQuest:
		return optional(analyze(re.Sub[0]))
	case syntax.OpRepeat:
		switch {
		case re.Min >= 1:
			return atLeastOnce(analyze(re.Sub[0]))
		case re.Max == 1:
			return optional(analyze(re.Sub[0]))
		}
		return repeated(analyze(re.Sub[0]))
	case syntax.OpStar:
		return repeated(analyze(re.Sub[0]))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return info{}
	case syntax.OpConcat:
		return concat(re.Sub)
	case syntax.OpAlternate:
		return alternate(re.Sub)
	}
	// OpNoMatch and anything new: nothing is known.
	return anything
}

// unfactor undoes the parser's factoring of common prefixes out of
// alternations ("dan|developer" is parsed as d(?:an|eveloper)): a run of
// literals and small classes before an alternation is copied into each
// alternative, so that the alternatives' strings are whole again
// ("dan", "developer") and not cut into pieces too short to require.
func unfactor(re *syntax.Regexp) *syntax.Regexp {
	out := *re
	out.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		out.Sub[i] = unfactor(s)
	}
	if out.Op != syntax.OpConcat {
		return &out
	}
	subs := out.Sub
	for i, s := range subs {
		if s.Op != syntax.OpAlternate || i == 0 || !isLiteralPart(subs[i-1]) {
			continue
		}
		j := i
		for j > 0 && isLiteralPart(subs[j-1]) {
			j--
		}
		prefix := subs[j:i]
		alts := make([]*syntax.Regexp, len(s.Sub))
		for k, a := range s.Sub {
			parts := slices.Clone(prefix)
			if a.Op == syntax.OpConcat {
				parts = append(parts, a.Sub...)
			} else {
				parts = append(parts, a)
			}
			alts[k] = unfactor(&syntax.Regexp{Op: syntax.OpConcat, Sub: parts})
		}
		rest := slices.Concat(subs[:j], []*syntax.Regexp{{Op: syntax.OpAlternate, Sub: alts}}, subs[i+1:])
		if len(rest) == 1 {
			return rest[0]
		}
		return unfactor(&syntax.Regexp{Op: syntax.OpConcat, Sub: rest})
	}
	return &out
}

// isLiteralPart reports whether re is a literal or a small class.
func isLiteralPart(re *syntax.Regexp) bool {
	return re.Op == syntax.OpLiteral || (re.Op == syntax.OpCharClass && charClass(re.Rune).exact)
}

// condOf is the condition every match of x meets (nil: none).
func condOf(x info) *cond {
	if x.exact {
		return leaf(x.strs)
	}
	return x.cond
}

// literal is a string of runes, case-folded when fold is set: each rune
// matches itself in ASCII lower case, or, folded, any rune of its case
// orbit ('é' or 'É'; 'k' and 's' stay single, Filter checks their
// non-ASCII folds U+212A and U+017F separately). A NUL rune, which would
// read as a boundary mark, cuts the literal.
func literal(runes []rune, fold bool) info {
	parts := make([]info, len(runes))
	for i, r := range runes {
		switch {
		case r == 0:
			parts[i] = anything
		case fold && r >= utf8.RuneSelf:
			orbit := []string{string(r)}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				orbit = append(orbit, string(lowerRune(f)))
			}
			parts[i] = exactly(orbit...)
		default:
			parts[i] = exactly(string(lowerRune(r)))
		}
	}
	return product(parts)
}

func lowerRune(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// charClass is exact when the class is small. The parser has already
// added the case variants of a (?i) class.
func charClass(ranges []rune) info {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClass {
			return info{nonWordEnd: !hasWordRune(ranges)}
		}
	}
	var strs []string
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			s := string(lowerRune(r))
			if !slices.Contains(strs, s) {
				strs = append(strs, s)
			}
		}
	}
	return exactly(strs...)
}

// hasWordRune reports whether a class (pairs of rune ranges) holds an
// ASCII word character.
func hasWordRune(ranges []rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		for _, w := range [][2]rune{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}} {
			if ranges[i] <= w[1] && ranges[i+1] >= w[0] {
				return true
			}
		}
	}
	return false
}

// atLeastOnce is x+ (or x{n,} with n ≥ 1): every match holds a match of x
// and ends as one of x's non-empty matches.
func atLeastOnce(x info) info {
	return info{cond: condOf(x), nonWordEnd: x.nonWordEnd, mayBeEmpty: x.mayBeEmpty}
}

// repeated is x* (or x{0,n} with n > 1): nothing is required, and a
// non-empty match ends as one of x's.
func repeated(x info) info {
	return info{nonWordEnd: x.nonWordEnd, mayBeEmpty: true}
}

// optional is x? (or x{0,1}).
func optional(x info) info {
	if !x.exact {
		return repeated(x)
	}
	if slices.Contains(x.strs, "") {
		return x
	}
	return exactly(append(slices.Clip(x.strs), "")...)
}

// concat is a concatenation of parts.
func concat(subs []*syntax.Regexp) info {
	parts := make([]info, len(subs))
	for i, sub := range subs {
		parts[i] = analyze(sub)
	}
	return product(parts)
}

// product is the concatenation of parts: it multiplies the exact sets of
// consecutive parts while the product stays small, and requires the
// pieces it has to cut. A piece that follows a part ending in a non-word
// byte (white space, punctuation) starts a word where its strings start
// with a word byte: it requires a word boundary there.
func product(parts []info) info {
	var conds []*cond
	cur := []string{""} // product of the exact parts since the last cut
	allExact := true
	prev := false // the byte before the current part is a non-word byte
	for _, x := range parts {
		next := after(x, prev)
		if !x.exact {
			allExact = false
			conds = append(conds, leaf(cur), x.cond)
			cur = []string{""}
			prev = next
			continue
		}
		strs := x.strs
		if len(cur) == 1 && cur[0] == "" && prev {
			strs = markStarts(strs)
		}
		if len(cur)*len(strs) > maxExact {
			allExact = false
			conds = append(conds, leaf(cur))
			cur = strs
			if prev {
				cur = markStarts(x.strs)
			}
			prev = next
			continue
		}
		prod := make([]string, 0, len(cur)*len(strs))
		for _, a := range cur {
			for _, b := range strs {
				if s := join(a, b); !slices.Contains(prod, s) {
					prod = append(prod, s)
				}
			}
		}
		cur = prod
		prev = next
	}
	if allExact {
		return exactly(cur...)
	}
	conds = append(conds, leaf(cur))
	out := info{cond: and(conds...), nonWordEnd: true, mayBeEmpty: true}
	for i := len(parts) - 1; i >= 0; i-- {
		out.nonWordEnd = out.nonWordEnd && parts[i].nonWordEnd
		if !parts[i].mayBeEmpty {
			out.mayBeEmpty = false
			break
		}
	}
	return out
}

// join concatenates two required strings; two boundary marks in a row
// are one.
func join(a, b string) string {
	if strings.HasSuffix(a, boundary) && strings.HasPrefix(b, boundary) {
		b = b[len(boundary):]
	}
	return a + b
}

// alternate unites exact sets; otherwise every match meets the condition
// of one alternative.
func alternate(subs []*syntax.Regexp) info {
	xs := make([]info, len(subs))
	allExact := true
	n := 0
	for i, sub := range subs {
		xs[i] = analyze(sub)
		allExact = allExact && xs[i].exact
		n += len(xs[i].strs)
	}
	if allExact && n <= maxExact {
		var strs []string
		for _, x := range xs {
			for _, s := range x.strs {
				if !slices.Contains(strs, s) {
					strs = append(strs, s)
				}
			}
		}
		return exactly(strs...)
	}
	out := info{nonWordEnd: true}
	cs := make([]*cond, len(xs))
	for i, x := range xs {
		cs[i] = condOf(x)
		out.nonWordEnd = out.nonWordEnd && x.nonWordEnd
		out.mayBeEmpty = out.mayBeEmpty || x.mayBeEmpty
	}
	out.cond = or(cs...)
	return out
}

// leaf requires one of strs; nil (nothing) when strs holds "" or is
// empty (an empty set comes from a part that matches nothing, which this
// analysis does not exploit).
func leaf(strs []string) *cond {
	if len(strs) == 0 || slices.Contains(strs, "") {
		return nil
	}
	return &cond{op: opLeaf, strs: minimize(strs)}
}

// and requires every non-nil c.
func and(cs ...*cond) *cond {
	var subs []*cond
	for _, c := range cs {
		switch {
		case c == nil:
		case c.op == opAnd:
			subs = append(subs, c.subs...)
		default:
			subs = append(subs, c)
		}
	}
	switch len(subs) {
	case 0:
		return nil
	case 1:
		return subs[0]
	}
	return &cond{op: opAnd, subs: subs}
}

// or requires one of cs; nil when one of them is nil. Leaves are united
// into one.
func or(cs ...*cond) *cond {
	var subs []*cond
	var strs []string
	for _, c := range cs {
		switch {
		case c == nil:
			return nil
		case c.op == opOr:
			for _, s := range c.subs {
				if s.op == opLeaf {
					strs = append(strs, s.strs...)
				} else {
					subs = append(subs, s)
				}
			}
		case c.op == opLeaf:
			strs = append(strs, c.strs...)
		default:
			subs = append(subs, c)
		}
	}
	if len(strs) > 0 {
		subs = append(subs, &cond{op: opLeaf, strs: minimize(strs)})
	}
	if len(subs) == 1 {
		return subs[0]
	}
	return &cond{op: opOr, subs: subs}
}

// prune drops leaves too weak to be worth checking (shortest string below
// minUseful, or too many strings): they become "nothing required".
func prune(c *cond) *cond {
	if c == nil {
		return nil
	}
	switch c.op {
	case opLeaf:
		if minLen(c.strs) < minUseful || len(c.strs) > maxLeafStrings {
			return nil
		}
		return c
	case opAnd:
		subs := make([]*cond, len(c.subs))
		for i, s := range c.subs {
			subs[i] = prune(s)
		}
		return and(subs...)
	default:
		subs := make([]*cond, len(c.subs))
		for i, s := range c.subs {
			subs[i] = prune(s)
		}
		return or(subs...)
	}
}

// weaken replaces every or node by one leaf: the union of its children's
// most selective leaves. The result is implied by c and has fewer leaves.
func weaken(c *cond) *cond {
	if c == nil || c.op == opLeaf {
		return c
	}
	if c.op == opAnd {
		subs := make([]*cond, len(c.subs))
		for i, s := range c.subs {
			subs[i] = weaken(s)
		}
		return and(subs...)
	}
	var strs []string
	for _, s := range c.subs {
		b := bestLeaf(s)
		if b == nil {
			return nil
		}
		strs = append(strs, b.strs...)
	}
	return leaf(strs)
}

// bestLeaf is a leaf implied by c, as selective as it can find.
func bestLeaf(c *cond) *cond {
	switch {
	case c == nil || c.op == opLeaf:
		return c
	case c.op == opAnd:
		var best *cond
		for _, s := range c.subs {
			if b := bestLeaf(s); b != nil && (best == nil || selectivity(b.strs) > selectivity(best.strs)) {
				best = b
			}
		}
		return best
	default:
		return weaken(c)
	}
}

func leaves(c *cond) int {
	if c == nil {
		return 0
	}
	if c.op == opLeaf {
		return 1
	}
	n := 0
	for _, s := range c.subs {
		n += leaves(s)
	}
	return n
}

// minimize drops duplicates and every string that contains another string
// of the set (containing the longer implies containing the shorter), in a
// new slice.
func minimize(set []string) []string {
	out := make([]string, 0, len(set))
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && strings.Contains(s, t) && (len(t) < len(s) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// minLen is the length of the shortest string of set, boundary marks
// not counted.
func minLen(set []string) int {
	n := -1
	for _, s := range set {
		l := len(s) - strings.Count(s, boundary)*len(boundary)
		if n < 0 || l < n {
			n = l
		}
	}
	return max(n, 0)
}

// selectivity ranks leaves: longer shortest strings first, then fewer
// strings.
func selectivity(set []string) int {
	return minLen(set)*1000 - len(set)
}
