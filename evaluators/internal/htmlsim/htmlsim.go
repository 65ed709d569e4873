// Package htmlsim scores how similar two HTML documents are, in 0..1.
//
// Both documents are parsed as a browser would (golang.org/x/net/html) and
// reduced to three multisets of 64-bit token hashes:
//
//   - structure: the pq-grams (p=2, q=3) of the element tree (Augsten,
//     Böhlen, Gamper: "The pq-gram distance between ordered labeled trees",
//     TODS 2010), labelled by tag name. The html, head and body elements
//     the parser always creates are flattened into one virtual root, so that
//     two unrelated fragments share no pq-gram and writing them out or not
//     makes no difference.
//   - attributes: one token per element attribute, tag+name+value, with the
//     value's white space collapsed; class lists give one token per class.
//     Attribute order is irrelevant.
//   - text: the visible text (script, style, noscript and template content
//     and comments skipped) split on white space into words, which are
//     case-sensitive; inline elements such as <b> do not split a word. Each
//     word and each pair of consecutive words is a token, so word order
//     counts a little.
//
// Each component's similarity is the Dice coefficient of its two
// multisets, 2|A∩B| / (|A|+|B|); for pq-grams that is one minus the
// normalised pq-gram distance. The score is the weighted mean (weights
// structure 0.4, attributes 0.2, text 0.4) over the components present in
// at least one document; two documents with none (e.g. two empty strings)
// score 1. All arithmetic is on integer counts until the last division, so
// Compare(a, b) == Compare(b, a) exactly.
package htmlsim

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The weights of the components in the score.
const (
	StructureWeight = 0.4
	AttributeWeight = 0.2
	TextWeight      = 0.4
)

// Similarity is the score of two documents and its components, each in
// 0..1. A component absent from both documents is 1 and left out of Score.
type Similarity struct {
	Score      float64
	Structure  float64
	Attributes float64
	Text       float64
}

// ParseError is a document the HTML parser refuses: the parser accepts any
// malformed markup, but not elements nested deeper than MaxDepth.
type ParseError struct {
	// Document is 1 or 2, the argument of Compare that failed.
	Document int
	Err      error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("document %d: %v", e.Document, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// MaxDepth is the deepest element nesting the HTML parser accepts
// (golang.org/x/net/html refuses deeper documents).
const MaxDepth = 512

// Compare parses both documents and returns their similarity. A document
// the parser refuses is a *ParseError.
func Compare(html1, html2 string) (Similarity, error) {
	a, err := newProfile(html1)
	if err != nil {
		return Similarity{}, &ParseError{Document: 1, Err: err}
	}
	b, err := newProfile(html2)
	if err != nil {
		return Similarity{}, &ParseError{Document: 2, Err: err}
	}
	return compareProfiles(a, b), nil
}

func compareProfiles(a, b *profile) Similarity {
	s := Similarity{
		Structure:  dice(a.pqgrams, b.pqgrams),
		Attributes: dice(a.attributes, b.attributes),
		Text:       dice(a.text, b.text),
	}
	var sum, weights float64
	if a.elements > 0 || b.elements > 0 {
		sum += StructureWeight * s.Structure
		weights += StructureWeight
	}
	if len(a.attributes) > 0 || len(b.attributes) > 0 {
		sum += AttributeWeight * s.Attributes
		weights += AttributeWeight
	}
	if len(a.text) > 0 || len(b.text) > 0 {
		sum += TextWeight * s.Text
		weights += TextWeight
	}
	s.Score = 1
	if weights > 0 {
		s.Score = sum / weights
	}
	return s
}

// dice is the Dice coefficient of two sorted multisets; 1 when both are
// empty.
func dice(a, b []uint64) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			common++
			i++
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// profile is a document reduced to sorted multisets of token hashes.
type profile struct {
	pqgrams    []uint64
	attributes []uint64
	text       []uint64
	elements   int // elements below the virtual root
}

func newProfile(doc string) (*profile, error) {
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	p := &profile{}
	top := topElements(root)
	p.addPQGrams(nullLabel, rootLabel, top)
	for _, n := range top {
		p.addElement(rootLabel, n)
	}
	var t textTokens
	t.walk(root)
	t.endWord()
	p.text = t.tokens
	slices.Sort(p.pqgrams)
	slices.Sort(p.attributes)
	slices.Sort(p.text)
	return p, nil
}

// topElements returns the children of the virtual root: the elements inside
// html, with head and body replaced by their children. The attributes of
// html, head and body are not counted.
func topElements(doc *html.Node) []*html.Node {
	var top []*html.Node
	for n := range doc.ChildNodes() {
		if n.Type != html.ElementNode {
			continue
		}
		if n.DataAtom != atom.Html {
			top = append(top, n)
			continue
		}
		for c := range n.ChildNodes() {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Head || c.DataAtom == atom.Body {
				top = appendElements(top, c)
			} else {
				top = append(top, c)
			}
		}
	}
	return top
}

// appendElements appends the element children of n to list.
func appendElements(list []*html.Node, n *html.Node) []*html.Node {
	for c := range n.ChildNodes() {
		if c.Type == html.ElementNode {
			list = append(list, c)
		}
	}
	return list
}

// addElement adds the pq-grams and attribute tokens of n and of the
// elements below it; parent is the label hash of n's parent.
func (p *profile) addElement(parent uint64, n *html.Node) {
	p.elements++
	label := labelOf(n)
	for _, a := range n.Attr {
		p.addAttribute(n, a)
	}
	var children []*html.Node
	if n.FirstChild != nil {
		children = appendElements(nil, n)
	}
	p.addPQGrams(parent, label, children)
	for _, c := range children {
		p.addElement(label, c)
	}
}

// addPQGrams adds the pq-grams whose anchor is the node labelled label,
// with parent label parent and the given element children: one gram with
// an all-null base for a leaf, else one per window of q=3 over the children
// padded with q-1 nulls on each side.
func (p *profile) addPQGrams(parent, label uint64, children []*html.Node) {
	if len(children) == 0 {
		p.pqgrams = append(p.pqgrams, combine(parent, label, nullLabel, nullLabel, nullLabel))
		return
	}
	b0, b1, b2 := nullLabel, nullLabel, nullLabel
	for _, c := range children {
		b0, b1, b2 = b1, b2, labelOf(c)
		p.pqgrams = append(p.pqgrams, combine(parent, label, b0, b1, b2))
	}
	for range 2 {
		b0, b1, b2 = b1, b2, nullLabel
		p.pqgrams = append(p.pqgrams, combine(parent, label, b0, b1, b2))
	}
}

// addAttribute adds the tokens of attribute a of element n.
func (p *profile) addAttribute(n *html.Node, a html.Attribute) {
	h := hashString(hashString(offset64, n.Data), a.Namespace)
	h = hashString(hashByte(h, ':'), a.Key)
	if a.Namespace == "" && a.Key == "class" {
		for class := range strings.FieldsSeq(a.Val) {
			p.attributes = append(p.attributes, finish(hashString(hashByte(h, '='), class)))
		}
		return
	}
	h = hashByte(h, '=')
	first := true
	for word := range strings.FieldsSeq(a.Val) {
		if !first {
			h = hashByte(h, ' ')
		}
		h, first = hashString(h, word), false
	}
	p.attributes = append(p.attributes, finish(h))
}

// textTokens collects the word and word-pair hashes of the visible text.
type textTokens struct {
	tokens   []uint64
	word     uint64 // hash of the word being read
	inWord   bool
	previous uint64 // hash of the last complete word
	hasPrev  bool
}

func (t *textTokens) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		t.addText(n.Data)
		return
	case html.ElementNode:
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Template:
			t.endWord()
			return
		}
		if !inline[n.DataAtom] {
			t.endWord()
		}
	}
	for c := range n.ChildNodes() {
		t.walk(c)
	}
	if n.Type == html.ElementNode && !inline[n.DataAtom] {
		t.endWord()
	}
}

func (t *textTokens) addText(s string) {
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			t.endWord()
		} else {
			if !t.inWord {
				t.word, t.inWord = offset64, true
			}
			t.word = hashString(t.word, s[i:i+size])
		}
		i += size
	}
}

func (t *textTokens) endWord() {
	if !t.inWord {
		return
	}
	w := finish(t.word)
	t.tokens = append(t.tokens, w)
	if t.hasPrev {
		t.tokens = append(t.tokens, finish(hashByte(combine(t.previous, w), '\n')))
	}
	t.previous, t.hasPrev, t.inWord = w, true, false
}

// inline lists the elements that do not break a word in running text.
var inline = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Bdi: true, atom.Bdo: true, atom.Cite: true,
	atom.Code: true, atom.Data: true, atom.Dfn: true, atom.Em: true, atom.I: true, atom.Kbd: true,
	atom.Mark: true, atom.Q: true, atom.S: true, atom.Samp: true, atom.Small: true, atom.Span: true,
	atom.Strong: true, atom.Sub: true, atom.Sup: true, atom.Time: true, atom.U: true, atom.Var: true,
	atom.Wbr: true, atom.Font: true, atom.Del: true, atom.Ins: true,
}

// Label hashes of the pq-gram tree.
var (
	nullLabel = finish(hashString(offset64, "\x00null"))
	rootLabel = finish(hashString(offset64, "\x00root"))
)

// labelOf is the label hash of element n: its tag name.
func labelOf(n *html.Node) uint64 { return finish(hashString(offset64, n.Data)) }

// FNV-1a, finished with a 64-bit mixer so that combined hashes spread well.
const (
	offset64 = 14695981039346656037
	prime64  = 1099511628211
)

func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * prime64
	}
	return h
}

func hashByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * prime64 }

// finish is the splitmix64 finaliser.
func finish(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ (h >> 31)
}

// combine hashes a sequence of hashes in order.
func combine(hs ...uint64) uint64 {
	h := uint64(offset64)
	for _, x := range hs {
		h = finish(h ^ x)
	}
	return h
}
