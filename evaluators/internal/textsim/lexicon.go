package textsim

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

//go:embed stopwords.txt
var stopwordsTxt string

// lexiconData holds the word lists, parsed once.
type lexiconData struct {
	stop        map[string]struct{}
	numberWords map[string]string // "two" -> "2", "second" -> "2"
}

var lexicon = sync.OnceValue(func() *lexiconData {
	lx := &lexiconData{stop: map[string]struct{}{}, numberWords: map[string]string{}}
	for _, line := range strings.Split(stopwordsTxt, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lx.stop[line] = struct{}{}
	}
	cardinals := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	ordinals := []string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
		"eleventh", "twelfth"}
	for i, w := range cardinals {
		lx.numberWords[w] = strconv.Itoa(i)
	}
	for i, w := range ordinals {
		if w != "" {
			lx.numberWords[w] = strconv.Itoa(i)
		}
	}
	for i, w := range []string{"thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"} {
		lx.numberWords[w] = strconv.Itoa(30 + 10*i)
	}
	lx.numberWords["hundred"] = "100"
	lx.numberWords["thousand"] = "1000"
	lx.numberWords["dozen"] = "12"
	return lx
})
