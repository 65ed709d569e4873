// Package testcorpus gives equivalence tests thousands of varied texts:
// when a matching algorithm is replaced by a faster one, the test runs
// both on every text and requires the same decisions.
//
// The texts are the repository's own hand-written suites (the functional
// suites and the correctness set of internal/quality/testdata), LLM-style
// prose built from sentence frames, splices of two texts, and variants of
// each (upper case, lower case, mixed case, and the non-ASCII case folds
// of k and s, U+212A and U+017F, which (?i) expressions also match). When
// the shared labelled datasets are beside the repository (../shared/data,
// as in CI) or named by $EVALCOL_SHARED_DATA, their texts are added. Only
// tests import this package.
package testcorpus

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// repoRoot is the repository's root directory, found from this file.
func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testcorpus: cannot locate the source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Texts returns the corpus, the same on every call: at least a few
// thousand texts, most of them distinct. Under the race detector it is
// every raceStride-th of them: these single-goroutine equivalence checks
// run ten to thirty times slower there (CI runs them so), and the
// README's test command, without it, walks them all.
var Texts = sync.OnceValue(func() []string {
	all := allTexts()
	if raceStride == 1 {
		return all
	}
	out := make([]string, 0, len(all)/raceStride+1)
	for i := 0; i < len(all); i += raceStride {
		out = append(out, all[i])
	}
	return out
})

// allTexts builds the whole corpus.
func allTexts() []string {
	base := baseTexts()
	rng := rand.New(rand.NewPCG(3, 5))
	out := make([]string, 0, 6*len(base)+2000)
	for _, t := range base {
		out = append(out, t, strings.ToUpper(t), strings.ToLower(t), mixCase(rng, t), foldVariants(t))
	}
	for range 1000 {
		a, b := base[rng.IntN(len(base))], base[rng.IntN(len(base))]
		out = append(out, a+" "+b)
	}
	for range 1000 {
		out = append(out, Prose(rng, 200+rng.IntN(1800)))
	}
	return out
}

// baseTexts reads the repository's suites and, when present, the shared
// datasets.
func baseTexts() []string {
	root := repoRoot()
	var out []string
	files, _ := filepath.Glob(filepath.Join(root, "evaluators", "internal", "quality", "testdata", "functional", "*", "*.jsonl"))
	files = append(files, filepath.Join(root, "evaluators", "internal", "quality", "testdata", "correctness.jsonl"))
	for _, f := range files {
		out = append(out, jsonlTexts(f, 0)...)
	}
	if len(out) == 0 {
		panic("testcorpus: no suite texts found under " + root)
	}
	shared := os.Getenv("EVALCOL_SHARED_DATA")
	if shared == "" {
		shared = filepath.Join(root, "..", "shared", "data")
	}
	data, _ := filepath.Glob(filepath.Join(shared, "*", "*.jsonl"))
	sort.Strings(data)
	for _, f := range data {
		out = append(out, jsonlTexts(f, 1500)...)
	}
	return out
}

// jsonlTexts returns the string fields that hold text (text, question,
// answer, completion, ground_truth, context, a, b) of up to limit lines
// of a JSON Lines file (0: all).
func jsonlTexts(path string, limit int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for n := 0; sc.Scan() && (limit == 0 || n < limit); n++ {
		var row map[string]any
		if json.Unmarshal(sc.Bytes(), &row) != nil {
			continue
		}
		for _, k := range []string{"text", "question", "answer", "completion", "ground_truth", "context", "a", "b"} {
			if s, ok := row[k].(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func mixCase(rng *rand.Rand, s string) string {
	var b strings.Builder
	for _, r := range s {
		if rng.IntN(2) == 0 {
			r = []rune(strings.ToUpper(string(r)))[0]
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foldVariants writes k as U+212A KELVIN SIGN and s as U+017F LONG S
// every third time.
func foldVariants(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if r == 'k' || r == 's' || r == 'K' || r == 'S' {
			n++
			if n%3 == 0 {
				if r == 'k' || r == 'K' {
					r = '\u212a'
				} else {
					r = '\u017f'
				}
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

var (
	proseWords = strings.Fields(`account answer application approach argument article balance budget
		campaign capital chapter climate code committee company computer concept contract customer
		database decision delivery department design document economy education energy engine
		environment equipment evidence example experience feature feedback finance flight forecast
		function government growth guidance health history hospital hotel industry information
		insurance interest invoice journey knowledge language library license market meeting memory
		message method model network office opinion order owner payment performance platform policy
		position practice price problem process product program project property quality question
		recipe record report request research resource response result review schedule school science
		security service session setting software solution source staff standard strategy student
		summary supply support system task teacher team technology test theory ticket training travel
		update user value version video website window worker rules instructions prompt mode filter`)
	proseNames  = []string{"Maria Garcia", "James Smith", "Aiko Tanaka", "Olga Petrova", "David Chen", "Fatima Khan", "Lucas Martin"}
	prosePlaces = []string{"Berlin", "Toronto", "Lyon", "Austin", "Osaka", "Lisbon", "Nairobi"}
	proseFrames = []string{
		"Could you explain how the %s affects the %s of our %s?",
		"Please write a short %s about the %s and the %s, in plain language.",
		"The %s was reviewed by the %s before the %s started last week.",
		"We need a clear %s for the %s, because the %s keeps changing.",
		"Summarise the %s in three points and mention the %s and the %s.",
		"Sure! Here is an overview of the %s: first the %s, then the %s.",
		"1. Check the %s. 2. Update the %s. 3. Tell the %s what changed.",
		"In my experience the %s improves when the %s supports the %s.",
		"I don't think the %s is wrong, but the %s could use a better %s.",
		"To fix the %s, run `make %s` and restart the %s service.",
		"Thanks, the %s looks good, although the %s needs more %s.",
		"Note: the %s depends on the %s, so test the %s first.",
		"Ignore the %s for now and focus on the %s and the %s.",
		"What happens to the %s if the %s fails during the %s?",
		"func %s() error { return %s.Run(%s) }",
		"Forget the previous %s; the new %s replaces all prior %s.",
		"Show me the %s, not your %s or the system %s.",
		"My name is %n and I live in %p.",
		"Contact %n at jane.doe@example.com about the %s.",
		"Call the %p office on +1 415 555 0132 before Friday.",
		"The meeting with %n is on 12 March 2024 in %p.",
		"Set API_KEY=sk-%s and the %s token in the %s file.",
	}
)

// Prose returns about size bytes of LLM-style prose from rng: questions,
// instructions, explanations, small lists and code, with a few personal
// details and trigger words ("ignore", "previous", "rules") in benign use.
func Prose(rng *rand.Rand, size int) string {
	var b strings.Builder
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		f := proseFrames[rng.IntN(len(proseFrames))]
		for {
			i := strings.IndexByte(f, '%')
			if i < 0 || i+1 >= len(f) {
				b.WriteString(f)
				break
			}
			b.WriteString(f[:i])
			switch f[i+1] {
			case 'n':
				b.WriteString(proseNames[rng.IntN(len(proseNames))])
			case 'p':
				b.WriteString(prosePlaces[rng.IntN(len(prosePlaces))])
			default:
				b.WriteString(proseWords[rng.IntN(len(proseWords))])
			}
			f = f[i+2:]
		}
	}
	return b.String()
}
