package textsim

import (
	"math"
	"strconv"
	"strings"
	"sync"
)

//go:generate go run gen_idf.go -data ../../../../shared/data

// docFreq holds the document frequencies of lexicons/df.txt, parsed once.
type docFreq struct {
	docs float64
	df   map[string]float64
}

var docFreqs = sync.OnceValue(func() *docFreq {
	b, err := lexiconFS.ReadFile("lexicons/df.txt")
	if err != nil {
		panic("textsim: read lexicons/df.txt: " + err.Error())
	}
	d := &docFreq{df: map[string]float64{}}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, n, ok := strings.Cut(line, "\t")
		if !ok {
			docs, err := strconv.Atoi(line)
			if err != nil {
				panic("textsim: lexicons/df.txt: bad document count " + strconv.Quote(line))
			}
			d.docs = float64(docs)
			continue
		}
		v, err := strconv.Atoi(n)
		if err != nil {
			panic("textsim: lexicons/df.txt: bad frequency in " + strconv.Quote(line))
		}
		d.df[key] = float64(v)
	}
	return d
})

// IDF is the inverse document frequency of a word key in a general corpus
// of informal English (lexicons/df.txt, written by gen_idf.go), scaled to
// 0..1: ln((N+1)/(df+1)) / ln(N+1), so a key the corpus lacks (a rare word
// or a name) weighs 1 and the most common content words about 0.2.
func IDF(key string) float64 {
	d := docFreqs()
	return math.Log((d.docs+1)/(d.df[key]+1)) / math.Log(d.docs+1)
}
