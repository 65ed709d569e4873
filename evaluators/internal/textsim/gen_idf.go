//go:build ignore

// Command gen_idf writes lexicons/df.txt, the document frequencies of word
// keys (Snowball stems) in a general corpus of informal English: the texts
// of sexism/edos-train.jsonl (Reddit and Gab posts, CC0-1.0),
// injection/jailbreak-classification-train.jsonl (OpenOrca questions,
// role-play instructions and jailbreak prompts, MIT) and
// injection/deepset-train.jsonl (Apache-2.0) from the shared data folder.
// None of them is used to evaluate the judge evaluators that weigh words by
// it.
//
//	go run gen_idf.go -data ../../../../shared/data
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"

	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// minDF drops rare keys: an absent key gets the highest weight anyway.
const minDF = 3

func main() {
	data := flag.String("data", "../../../../shared/data", "shared data folder")
	out := flag.String("out", "lexicons/df.txt", "file to write")
	flag.Parse()
	df := map[string]int{}
	docs := 0
	for _, name := range []string{"sexism/edos-train.jsonl", "injection/jailbreak-classification-train.jsonl", "injection/deepset-train.jsonl"} {
		n, err := count(filepath.Join(*data, name), df)
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		docs += n
	}
	keys := make([]string, 0, len(df))
	for k, n := range df {
		if n >= minDF {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# Document frequencies of word keys (Snowball stems, stop words and numbers left out)\n")
	fmt.Fprintf(w, "# in sexism/edos-train.jsonl (CC0-1.0), injection/jailbreak-classification-train.jsonl (MIT)\n")
	fmt.Fprintf(w, "# and injection/deepset-train.jsonl (Apache-2.0); keys with df >= %d.\n", minDF)
	fmt.Fprintf(w, "# Written by gen_idf.go. First line after the comments: number of documents.\n")
	fmt.Fprintf(w, "%d\n", docs)
	for _, k := range keys {
		fmt.Fprintf(w, "%s\t%d\n", k, df[k])
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// count adds the keys of every text of a JSON Lines file to df, once per
// document, and returns the number of documents.
func count(path string, df map[string]int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	docs := 0
	for sc.Scan() {
		var row struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return 0, err
		}
		seen := map[string]bool{}
		for _, t := range textsim.Tokenize(row.Text) {
			if t.Stop || t.Number || isDigits(t.Key) || seen[t.Key] {
				continue
			}
			seen[t.Key] = true
			df[t.Key]++
		}
		docs++
	}
	return docs, sc.Err()
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
