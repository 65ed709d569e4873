package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/injection"
	"github.com/evalcol/evalcol/evaluators/internal/profanity"
	"github.com/evalcol/evalcol/evaluators/internal/textclass"
	"github.com/evalcol/evalcol/evaluators/internal/toxicity"
)

// dictPath is the Debian wamerican word list (apt-get install wamerican).
const dictPath = "/usr/share/dict/american-english"

// trainLexicons writes the real-word exception lists of the obfuscation
// repairers: the English words (from the wamerican list) that are one edit
// away from a vocabulary word, so they are never "repaired" into it.
func trainLexicons(string) error {
	dict, err := readDict(dictPath)
	if err != nil {
		return err
	}
	for _, out := range []struct {
		path  string
		vocab []string
	}{
		{filepath.Join("evaluators", "internal", "toxicity", "data", "real-variants.txt"), toxicity.RepairVocabulary(profanity.SlurWords())},
		{filepath.Join("evaluators", "internal", "injection", "data", "real-variants.txt"), injection.RepairVocabulary()},
	} {
		real := textclass.RealVariants(out.vocab, dict)
		sort.Strings(real)
		if err := writeFile(out.path, []byte(strings.Join(real, "\n")+"\n")); err != nil {
			return err
		}
		fmt.Printf("%s: %d real words near %d vocabulary words\n", out.path, len(real), len(out.vocab))
	}
	return nil
}

// readDict reads a word list, one word a line, keeping lower-case ASCII
// words only.
func readDict(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open word list (apt-get install wamerican): %w", err)
	}
	defer f.Close()
	dict := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		ok := w != ""
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				ok = false
				break
			}
		}
		if ok {
			dict[w] = true
		}
	}
	return dict, sc.Err()
}
