package textsim

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run gen_wordnet.go -wordnet /usr/share/wordnet

// synsetsGz is lexicons/synsets.txt.gz, the WordNet 3.0 concepts of the
// common word keys, written by gen_wordnet.go (licence:
// lexicons/WORDNET-LICENSE).
//
//go:embed lexicons/synsets.txt.gz
var synsetsGz []byte

// wordConcepts are the WordNet concepts of one word key: the synsets of
// its most frequent senses and their direct hypernyms, sorted ids.
type wordConcepts struct {
	senses, hypernyms []uint32
}

// conceptTable maps word keys to their concepts, parsed once.
var conceptTable = sync.OnceValue(parseConcepts)

// parseConcepts parses lexicons/synsets.txt.gz; a bad file panics, as the
// file is part of the binary.
func parseConcepts() map[string]wordConcepts {
	zr, err := gzip.NewReader(bytes.NewReader(synsetsGz))
	if err != nil {
		panic("textsim: read lexicons/synsets.txt.gz: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		panic("textsim: read lexicons/synsets.txt.gz: " + err.Error())
	}
	table := map[string]wordConcepts{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			panic("textsim: lexicons/synsets.txt.gz: bad line " + strconv.Quote(line))
		}
		table[fields[0]] = wordConcepts{senses: parseConceptIDs(fields[1]), hypernyms: parseConceptIDs(fields[2])}
	}
	return table
}

func parseConceptIDs(s string) []uint32 {
	var ids []uint32
	for _, f := range strings.Fields(s) {
		id, err := strconv.ParseUint(f, 36, 32)
		if err != nil {
			panic("textsim: lexicons/synsets.txt.gz: bad concept id " + strconv.Quote(f))
		}
		ids = append(ids, uint32(id))
	}
	slices.Sort(ids)
	return ids
}

// Related reports whether two word keys are related in WordNet: one of
// their frequent senses is the same concept (synonyms: kid, child), or a
// sense of one is a direct hypernym of a sense of the other (puppy, dog).
// Keys that only share a hypernym (co-hyponyms such as man and woman, cat
// and dog) are not related: they usually contrast.
func Related(a, b string) bool {
	table := conceptTable()
	ca, ok := table[a]
	if !ok {
		return false
	}
	cb, ok := table[b]
	if !ok {
		return false
	}
	return intersects(ca.senses, cb.senses) || intersects(ca.senses, cb.hypernyms) || intersects(ca.hypernyms, cb.senses)
}

// intersects reports whether two sorted id lists share an id.
func intersects(x, y []uint32) bool {
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			return true
		case x[i] < y[j]:
			i++
		default:
			j++
		}
	}
	return false
}
