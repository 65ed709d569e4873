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
	return mix(uint64(s.letters)<<16|uint64(s.first)<<8|uint64(s.n)) >> (64 - 18)
}

func (f *shapeFilter) add(s shape)      { k := s.key(); f[k>>6] |= 1 << (k & 63) }
func (f *shapeFilter) has(s shape) bool { k := s.key(); return f[k>>6]&(1<<(k&63)) != 0 }

// joinedShape is the shape of the word with shape s followed by next.
func joinedShape(s shape, next []byte) shape {
	s.n += len(next)
	for _, c := range next {
		s.letters |= 1 << (c - 'a')
	}
	return s
}

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
	for i := 0; i < len(folded); {
		c := folded[i]
		if c < 'a' || c > 'z' {
			dst = append(dst, c)
			i++
			continue
		}
		j := i
		for j < len(folded) && folded[j] >= 'a' && folded[j] <= 'z' {
			j++
		}
		if j < len(folded) && isWordByte(folded[j]) {
			// A token with digits or non-ASCII letters: copy as is.
			for j < len(folded) && isWordByte(folded[j]) {
				j++
			}
			dst = append(dst, folded[i:j]...)
			i = j
			continue
		}
		w := folded[i:j]
		// Cheap gates first: most tokens can neither be joined with the
		// next one into a vocabulary word nor be a misspelling of one.
		k := j + 1
		for k < len(folded) && folded[k] >= 'a' && folded[k] <= 'z' {
			k++
		}
		ws := shapeOf(w)
		joinable := j+1 < len(folded) && folded[j] == ' ' && k > j+1 && (k == len(folded) || !isWordByte(folded[k])) &&
			k-i-1 >= minRepairLen && r.joins.has(joinedShape(ws, folded[j+1:k]))
		repairable := len(w) >= minRepairLen-1 && len(w) <= maxRepairLen+1 && r.maybe.has(ws)
		if !joinable && !repairable {
			dst = append(dst, w...)
			i = j
			continue
		}
		h := hashBytes(w)
		if r.vocab.has(h) {
			dst = append(dst, w...)
			i = j
			continue
		}
		// Join with the next token: "wo men", "immig rants".
		if joinable {
			jh := hashJoin(h, folded[j+1:k])
			if r.vocab.has(jh) && !r.real.has(hashJoin(hashJoin(h, space), folded[j+1:k])) {
				dst = append(append(dst, w...), folded[j+1:k]...)
				i = k
				continue
			}
		}
		if repairable && !r.real.has(h) {
			if fixed, ok := r.variants[h]; ok {
				dst = append(dst, fixed...)
				i = j
				continue
			}
			if fixed, ok := r.insertion(w); ok {
				dst = append(dst, fixed...)
				i = j
				continue
			}
		}
		dst = append(dst, w...)
		i = j
	}
	return dst
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
