package textclass

// Repairer undoes the obfuscations that Fold cannot: a letter deleted
// ("wmen"), two neighbouring letters swapped ("woemn"), a letter added
// ("disreguard") and a space put inside a word ("wo men"), for the words
// of one vocabulary (slurs and group names for toxicity, override verbs
// and nouns for injection). Only words that are not real English words
// are repaired, so "backs" never becomes "blacks". A Repairer is
// immutable and safe for concurrent use.
type Repairer struct {
	vocab hashSet // the vocabulary words
	// variants maps the hash of a deletion or transposition variant of a
	// vocabulary word to the word.
	variants map[uint64]string
	// insertKeys marks (first letter, last letter, length) of the
	// vocabulary words, to find the tokens that may be a vocabulary word
	// with one letter added.
	insertKeys [26 * 26 * 32]bool
	// maybe is a Bloom-style filter of the shapes (first letter, length,
	// set of letters) of every token that may be repaired: the variants
	// of the vocabulary words and the words with a letter added. joins is
	// the same filter of the vocabulary words, for joined tokens. Most
	// tokens fail it without being hashed.
	maybe, joins shapeFilter
	real         hashSet // real words that are variants: never repaired
}

// Repair limits: vocabulary words shorter than minRepairLen are matched
// exactly only (short words have too many real-word neighbours).
const (
	minRepairLen = 5
	maxRepairLen = 24
)

// NewRepairer returns a repairer for the lower-case ASCII words of vocab.
// real lists real words that must never be repaired even when they are a
// variant of a vocabulary word, and word pairs ("use less") that must
// never be joined: RealVariants of the vocabulary and a dictionary.
func NewRepairer(vocab, real []string) *Repairer {
	r := &Repairer{variants: map[uint64]string{}}
	r.real = newHashSet(len(real))
	for _, w := range real {
		r.real.add(hashBytes([]byte(w))) // a pair hashes like its joined bytes with the space
	}
	r.vocab = newHashSet(len(vocab))
	for _, w := range vocab {
		if !isLowerWord(w) {
			continue
		}
		r.vocab.add(hashBytes([]byte(w)))
		if len(w) >= minRepairLen {
			r.joins.add(shapeOf([]byte(w)))
		}
	}
	for _, w := range vocab {
		if !isLowerWord(w) || len(w) < minRepairLen || len(w) > maxRepairLen {
			continue
		}
		for _, v := range Variants(w) {
			h := hashBytes([]byte(v))
			if r.vocab.has(h) || r.real.has(h) {
				continue
			}
			if _, dup := r.variants[h]; !dup {
				r.variants[h] = w
			}
		}
		r.insertKeys[insertKey(w[0], w[len(w)-1], len(w)+1)] = true
		for _, v := range Variants(w) {
			r.maybe.add(shapeOf([]byte(v)))
		}
		ws := shapeOf([]byte(w))
		for c := byte('a'); c <= 'z'; c++ {
			r.maybe.add(shape{first: ws.first, n: ws.n + 1, letters: ws.letters | 1<<(c-'a')})
		}
	}
	return r
}

// shape is what a repair keeps of a word: its first letter, its length
// and its set of letters (up to one letter more or less).
type shape struct {
	first   byte
	n       int
	letters uint32
}

func shapeOf(w []byte) shape {
	s := shape{first: w[0], n: len(w)}
	for _, c := range w {
		s.letters |= 1 << (c - 'a')
	}
	return s
}

// shapeFilter is a set of shapes with false positives (one bit per
// hashed shape).
type shapeFilter [1 << 18 / 64]uint64

func (s shape) key() uint64 {
	// One multiply (Fibonacci hashing) spreads the fields well enough for
	// a filter, and is cheaper than mix on the hot path.
	return (uint64(s.letters)<<16 | uint64(s.first)<<8 | uint64(s.n&0xff)) * 0x9e3779b97f4a7c15 >> (64 - 18)
}

func (f *shapeFilter) add(s shape)      { k := s.key(); f[k>>6] |= 1 << (k & 63) }
func (f *shapeFilter) has(s shape) bool { k := s.key(); return f[k>>6]&(1<<(k&63)) != 0 }

// RepairWord returns the vocabulary word that the lower-case ASCII word w
// (with FNV-1a 64 hash h) is a misspelling of, and whether there is one.
// It does not allocate unless w is a vocabulary word with a letter added.
func (r *Repairer) RepairWord(w []byte, h uint64) (string, bool) {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return "", false
		}
	}
	if len(w) < minRepairLen-1 || !r.maybe.has(shapeOf(w)) || r.vocab.has(h) || r.real.has(h) {
		return "", false
	}
	if fixed, ok := r.variants[h]; ok {
		return fixed, true
	}
	if fixed, ok := r.insertion(w); ok {
		return string(fixed), true
	}
	return "", false
}

// Variants returns the deletion and neighbour-transposition variants of w
// that keep its first letter.
func Variants(w string) []string {
	var out []string
	for i := 1; i < len(w); i++ {
		out = append(out, w[:i]+w[i+1:])
	}
	for i := 1; i+1 < len(w); i++ {
		if w[i] != w[i+1] {
			out = append(out, w[:i]+string(w[i+1])+string(w[i])+w[i+2:])
		}
	}
	return out
}

func isLowerWord(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func insertKey(first, last byte, n int) int {
	if n >= 32 {
		n = 31
	}
	return (int(first-'a')*26+int(last-'a'))*32 + n
}

// Has reports whether w is a vocabulary word.
func (r *Repairer) Has(w []byte) bool { return r.vocab.has(hashBytes(w)) }

// AppendRepaired appends folded text (Fold's output) to dst with every
// repairable token replaced by its vocabulary word, and two neighbouring
// tokens joined when together they spell a vocabulary word of at least
// minRepairLen letters and the first alone is not one ("wo men" →
// "women"). It allocates only when dst lacks capacity.
func (r *Repairer) AppendRepaired(dst, folded []byte) []byte {
	emitted := 0 // folded[:emitted] is in dst
	next := nextToken(folded, 0)
	for next.start < len(folded) {
		cur := next
		next = nextToken(folded, cur.end)
		if !cur.plain {
			continue // digits or non-ASCII letters: kept as they are
		}
		w := folded[cur.start:cur.end]
		// Cheap gates first: most tokens can neither be joined with the
		// next one into a vocabulary word nor be a misspelling of one.
		joinable := next.plain && next.start == cur.end+1 && folded[cur.end] == ' ' &&
			next.end-cur.start-1 >= minRepairLen && r.joins.has(joinShapes(cur.shape, next.shape))
		repairable := len(w) >= minRepairLen-1 && len(w) <= maxRepairLen+1 && r.maybe.has(cur.shape)
		if !joinable && !repairable {
			continue
		}
		h := hashBytes(w)
		if r.vocab.has(h) {
			continue
		}
		// Join with the next token: "wo men", "immig rants".
		if joinable {
			second := folded[next.start:next.end]
			if r.vocab.has(hashJoin(h, second)) && !r.real.has(hashJoin(hashJoin(h, space), second)) {
				dst = append(append(append(dst, folded[emitted:cur.start]...), w...), second...)
				emitted = next.end
				next = nextToken(folded, next.end)
				continue
			}
		}
		if repairable && !r.real.has(h) {
			fixed, ok := r.variants[h]
			if !ok {
				var b []byte
				if b, ok = r.insertion(w); ok {
					fixed = string(b)
				}
			}
			if ok {
				dst = append(append(dst, folded[emitted:cur.start]...), fixed...)
				emitted = cur.end
			}
		}
	}
	return append(dst, folded[emitted:]...)
}

// token is a run of word bytes of folded text.
type token struct {
	start, end int
	plain      bool  // only the letters a-z
	shape      shape // when plain
}

// nextToken returns the first token of folded at or after i (start ==
// len(folded) when there is none).
func nextToken(folded []byte, i int) token {
	for i < len(folded) && byteClass[folded[i]] == 0 {
		i++
	}
	t := token{start: i, plain: i < len(folded)}
	if t.plain {
		t.shape.first = folded[i]
	}
	for ; i < len(folded); i++ {
		switch byteClass[folded[i]] {
		case 0:
			t.end = i
			t.shape.n = t.end - t.start
			return t
		case classLetter:
			t.shape.letters |= 1 << (folded[i] - 'a')
		default:
			t.plain = false
		}
	}
	t.end = i
	t.shape.n = t.end - t.start
	return t
}

// Byte classes of folded text: 0 outside words, classLetter for a-z,
// classOther for the other word bytes (see isWordByte).
const (
	classLetter = 1
	classOther  = 2
)

var byteClass = func() (t [256]byte) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = classLetter
		case isWordByte(byte(c)):
			t[c] = classOther
		}
	}
	return t
}()

// joinShapes is the shape of two words written together.
func joinShapes(a, b shape) shape {
	return shape{first: a.first, n: a.n + b.n, letters: a.letters | b.letters}
}

// insertion returns the vocabulary word that w is with one letter added
// (not its first), if any.
func (r *Repairer) insertion(w []byte) ([]byte, bool) {
	if len(w) < minRepairLen+1 || !r.insertKeys[insertKey(w[0], w[len(w)-1], len(w))] {
		return nil, false
	}
	for skip := 1; skip < len(w); skip++ {
		h := uint64(fnvOffset)
		for k, c := range w {
			if k != skip {
				h = (h ^ uint64(c)) * fnvPrime
			}
		}
		if r.vocab.has(h) {
			return append(w[:skip:skip], w[skip+1:]...), true
		}
	}
	return nil, false
}

// space is the separator of a two-word entry of the real list.
var space = []byte{' '}

// hashBytes is FNV-1a 64 of b.
func hashBytes(b []byte) uint64 { return fnv1a(fnvOffset, b) }

// hashJoin extends hash h of a word with the bytes of b (the hash of the
// two words written together).
func hashJoin(h uint64, b []byte) uint64 { return fnv1a(h, b) }

// hashSet is an open-addressing set of 64-bit hashes.
type hashSet struct {
	slots []uint64 // 0 = empty; hash 0 is stored as 1
	mask  uint64
}

func newHashSet(n int) hashSet {
	size := 16
	for size < 4*n {
		size <<= 1
	}
	return hashSet{slots: make([]uint64, size), mask: uint64(size - 1)}
}

func (s *hashSet) add(h uint64) {
	if h == 0 {
		h = 1
	}
	for i := mix(h) & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case h:
			return
		case 0:
			s.slots[i] = h
			return
		}
	}
}

func (s *hashSet) has(h uint64) bool {
	if h == 0 {
		h = 1
	}
	for i := mix(h) & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// RealVariants returns the variants (see Variants) of the vocabulary words
// that are words of dict: the list NewRepairer's real parameter needs.
func RealVariants(vocab []string, dict map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range vocab {
		if !isLowerWord(w) || len(w) < minRepairLen {
			continue
		}
		for _, v := range Variants(w) {
			if dict[v] && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		// One letter added (not the first): the dictionary words that
		// lose a letter to become w.
		for i := 1; i <= len(w); i++ {
			for c := byte('a'); c <= 'z'; c++ {
				v := w[:i] + string(c) + w[i:]
				if dict[v] && !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	// Two dictionary words that together spell a vocabulary word ("use
	// less") are never joined: listed as "use less".
	for _, w := range vocab {
		if !isLowerWord(w) || len(w) < minRepairLen {
			continue
		}
		for i := 1; i < len(w); i++ {
			if dict[w[:i]] && dict[w[i:]] {
				out = append(out, w[:i]+" "+w[i:])
			}
		}
	}
	return out
}
