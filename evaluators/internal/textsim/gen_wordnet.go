//go:build ignore

// Command gen_wordnet writes lexicons/synsets.txt.gz, the WordNet 3.0
// concepts of the common word keys: for every WordNet lemma (single words
// only) whose Snowball stem is in lexicons/df.txt, the synsets of its two
// most frequent senses in each part of speech and their direct hypernyms.
// Concept ids are renumbered densely (base 36) and only ids shared by at
// least two keys are kept. WordNet comes from the Debian package
// wordnet-base (licence in lexicons/WORDNET-LICENSE):
//
//	apt-get install -y wordnet-base
//	go run gen_wordnet.go -wordnet /usr/share/wordnet
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kljensen/snowball/english"
)

// sensesPerPOS is how many of a lemma's most frequent senses count, per
// part of speech.
const sensesPerPOS = 2

// maxConceptsPerKey bounds the concepts kept for one key.
const maxConceptsPerKey = 16

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet dict folder")
	dfPath := flag.String("df", "lexicons/df.txt", "document frequencies (keys to keep)")
	out := flag.String("out", "lexicons/synsets.txt.gz", "file to write")
	flag.Parse()
	keep, err := readKeys(*dfPath)
	if err != nil {
		log.Fatal(err)
	}
	var senses []sense
	hyper := map[string][]string{}
	for _, pos := range []struct{ file, id string }{{"noun", "n"}, {"verb", "v"}, {"adj", "a"}, {"adv", "r"}} {
		if err := readHypernyms(filepath.Join(*dir, "data."+pos.file), pos.id, hyper); err != nil {
			log.Fatal(err)
		}
		s, err := readIndex(filepath.Join(*dir, "index."+pos.file), pos.id, keep)
		if err != nil {
			log.Fatal(err)
		}
		senses = append(senses, s...)
	}
	// A key takes the senses of its shortest lemmas only ("man", not
	// "manful"; "woman", not "womanizer"): derived words drift in meaning.
	shortest := map[string]int{}
	for _, s := range senses {
		if n, ok := shortest[s.key]; !ok || len(s.lemma) < n {
			shortest[s.key] = len(s.lemma)
		}
	}
	concepts := map[string][]string{} // key -> "pos offset" ids, "^" before hypernyms
	for _, s := range senses {
		if len(s.lemma) != shortest[s.key] {
			continue
		}
		add(concepts, s.key, s.id)
		for _, h := range hyper[s.id] {
			add(concepts, s.key, "^"+h)
		}
	}
	// Keep only concepts shared by two keys or more, numbered densely.
	uses := map[string]int{}
	for _, ids := range concepts {
		for _, id := range ids {
			uses[strings.TrimPrefix(id, "^")]++
		}
	}
	keys := make([]string, 0, len(concepts))
	for k := range concepts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dense := map[string]int{}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	fmt.Fprintln(w, "# WordNet 3.0 concepts of word keys (Snowball stems): key, tab, its senses, tab, their direct hypernyms (space-separated base-36 concept ids).")
	fmt.Fprintln(w, "# Derived from WordNet 3.0 (Princeton University, see WORDNET-LICENSE) by gen_wordnet.go.")
	n := 0
	for _, k := range keys {
		var own, hypers []string
		for _, id := range concepts[k] {
			hyper := strings.HasPrefix(id, "^")
			id = strings.TrimPrefix(id, "^")
			if uses[id] < 2 {
				continue
			}
			d, ok := dense[id]
			if !ok {
				d = len(dense)
				dense[id] = d
			}
			if hyper {
				hypers = append(hypers, strconv.FormatInt(int64(d), 36))
			} else {
				own = append(own, strconv.FormatInt(int64(d), 36))
			}
		}
		if len(own)+len(hypers) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", k, strings.Join(own, " "), strings.Join(hypers, " "))
		n++
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d keys, %d concepts", n, len(dense))
}

// readKeys returns the keys of lexicons/df.txt.
func readKeys(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	keys := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, _, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			keys[k] = true
		}
	}
	return keys, nil
}

// readHypernyms returns the direct hypernyms (@ and @i pointers) of every
// synset of a data.* file, by offset.
func readHypernyms(path, pos string, hyper map[string][]string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read hypernyms: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // licence header
		}
		body, _, _ := strings.Cut(line, " | ")
		fs := strings.Fields(body)
		if len(fs) < 4 {
			continue
		}
		wcnt, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return fmt.Errorf("%s: bad word count in %q", path, fs[0])
		}
		i := 4 + 2*int(wcnt)
		if i >= len(fs) {
			continue
		}
		pcnt, err := strconv.Atoi(fs[i])
		if err != nil {
			return fmt.Errorf("%s: bad pointer count in %q", path, fs[0])
		}
		for p := 0; p < pcnt && i+4+4*p <= len(fs); p++ {
			sym, off, ppos := fs[i+1+4*p], fs[i+2+4*p], fs[i+3+4*p]
			if sym == "@" || sym == "@i" {
				hyper[pos+fs[0]] = append(hyper[pos+fs[0]], ppos+off)
			}
		}
	}
	return sc.Err()
}

// sense is one frequent sense of a lemma whose stem is a kept key.
type sense struct {
	key, lemma, id string
}

// readIndex returns the two most frequent senses of every single-word
// lemma of an index.* file whose stem is a kept key.
func readIndex(path, pos string, keep map[string]bool) ([]sense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	var senses []sense
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 4 || strings.ContainsAny(fs[0], "_-.'0123456789") {
			continue
		}
		key := english.Stem(fs[0], true)
		if !keep[key] {
			continue
		}
		nsyn, err := strconv.Atoi(fs[2])
		if err != nil || nsyn > len(fs) {
			return nil, fmt.Errorf("%s: bad synset count for %q", path, fs[0])
		}
		offs := fs[len(fs)-nsyn:]
		for _, off := range offs[:min(sensesPerPOS, len(offs))] {
			senses = append(senses, sense{key: key, lemma: fs[0], id: pos + off})
		}
	}
	return senses, sc.Err()
}

func add(concepts map[string][]string, key, id string) {
	if len(concepts[key]) < maxConceptsPerKey && !slices.Contains(concepts[key], id) {
		concepts[key] = append(concepts[key], id)
	}
}
