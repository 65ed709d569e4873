package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/evaluators/internal/profanity"
)

// Suite of the profanity detector, on data that is not Davidson (the
// profanity-check model was trained on Davidson):
//
//   - "clean" texts: the EDOS dev texts in which no word or 2-3-word
//     phrase is an entry of the raw Surge AI or LDNOOBW list (negatives);
//   - the first 300 of them with one profane word (of profaneWords,
//     cycling) inserted mid-text, spelt with one of the obfuscation tricks
//     of obfuscations (cycling): positives;
//   - scunthorpeSentences: clean sentences full of words that contain a
//     profane substring (negatives).
//
// The clean/profane labels of the EDOS texts come from the word lists, so
// obfuscated profanity already in them would count as a false positive.

// profaneWords are inserted into clean texts to make positives.
var profaneWords = []string{"fuck", "shit", "bitch", "asshole", "bastard", "cunt", "dick", "motherfucker", "bullshit", "whore", "slut", "pussy", "wanker", "twat", "prick"}

// obfuscations spell a profane word the way people dodge filters.
var obfuscations = []struct {
	name string
	fn   func(string) string
}{
	{"plain", func(w string) string { return w }},
	{"upper", strings.ToUpper},
	{"leet", strings.NewReplacer("a", "4", "e", "3", "i", "1", "o", "0", "s", "5").Replace},
	{"star", func(w string) string { return replaceFirstVowel(w, "*") }},
	{"at", func(w string) string { return replaceFirstVowel(w, "@") }},
	{"spaced", func(w string) string { return strings.Join(strings.Split(w, ""), " ") }},
	{"dotted", func(w string) string { return strings.Join(strings.Split(w, ""), ".") }},
	{"repeated", func(w string) string {
		i := strings.IndexAny(w, "aeiou")
		return w[:i] + strings.Repeat(w[i:i+1], 4) + w[i+1:]
	}},
	{"accented", func(w string) string {
		i := strings.IndexAny(w, "aeiou")
		acc := map[byte]string{'a': "á", 'e': "é", 'i': "í", 'o': "ö", 'u': "ü"}
		return w[:i] + acc[w[i]] + w[i+1:]
	}},
}

func replaceFirstVowel(w, by string) string {
	i := strings.IndexAny(w, "aeiou")
	return w[:i] + by + w[i+1:]
}

// scunthorpeSentences are clean sentences whose words contain profane
// substrings.
var scunthorpeSentences = []string{
	"Scunthorpe United play at Glanford Park.",
	"Assassin's Creed is a video game series.",
	"We ordered a cocktail and a glass of water.",
	"The class assignment is due on Friday.",
	"Grape juice stains are hard to remove.",
	"Read the passage and summarise it in your own words.",
	"The cockpit crew prepared for take-off.",
	"Charles Dickens wrote Great Expectations.",
	"My therapist recommended more sleep.",
	"The analysis shows a cumulative increase.",
	"He plays bass guitar in a band from Essex.",
	"Shiitake mushrooms are great in soup.",
	"Arsenal won the match on Sunday.",
	"Please press the button to continue.",
	"Spread the butter thinly on the bread.",
	"A peacock displayed its feathers.",
	"Badminton players hit a shuttlecock.",
	"A raccoon raided the bins last night.",
	"Lake Titicaca lies between Peru and Bolivia.",
	"The document was signed under unusual circumstances.",
	"We assume the scrap metal will be recycled.",
	"Middlesex and Sussex are English counties.",
	"The hancock building is in Chicago.",
	"Matsushita is a Japanese company.",
	"The cocker spaniel wagged its tail.",
	"Those are the class assets of the fund.",
	"He is a classic example of an assistant manager.",
	"Phuket is a popular holiday island.",
	"The weather in Penistone was mild.",
	"The shipment of grapes arrived late.",
}

var listWordRE = regexp.MustCompile(`[a-z0-9']+`)

func profanitySuite(dataDir string) ([]Report, error) {
	list, err := rawProfanityList(dataDir)
	if err != nil {
		return nil, err
	}
	rows, err := readJSONL[edosRow](dataDir, "sexism/edos-dev.jsonl")
	if err != nil {
		return nil, err
	}
	var clean []string
	for _, r := range rows {
		if !hasListEntry(r.Text, list) {
			clean = append(clean, r.Text)
		}
	}
	var texts []string
	var labels []bool
	hitsByTrick := map[string][2]int{}
	for i, t := range clean {
		texts = append(texts, t)
		labels = append(labels, false)
		if i < 300 {
			ob := obfuscations[i%len(obfuscations)]
			texts = append(texts, insertMid(t, ob.fn(profaneWords[i%len(profaneWords)])))
			labels = append(labels, true)
		}
	}
	pred, perCall, err := profanityPredict(texts)
	if err != nil {
		return nil, err
	}
	for i := range texts {
		if labels[i] {
			name := obfuscations[(i/2)%len(obfuscations)].name
			h := hitsByTrick[name]
			h[1]++
			if pred[i] {
				h[0]++
			}
			hitsByTrick[name] = h
		}
	}
	det, err := profanity.Default()
	if err != nil {
		return nil, err
	}
	var rawFP, rawTP, neg, pos int
	for i, t := range texts {
		hit := det.CheckProbability(t) > 0.5
		switch {
		case labels[i]:
			pos++
			if hit {
				rawTP++
			}
		default:
			neg++
			if hit {
				rawFP++
			}
		}
	}
	var tricks []string
	for _, ob := range obfuscations {
		h := hitsByTrick[ob.name]
		tricks = append(tricks, fmt.Sprintf("%s %d/%d", ob.name, h[0], h[1]))
	}
	main := Report{
		Slug: "profanity-detector", Dataset: "sexism/edos-dev.jsonl texts + inserted profanity",
		Split: fmt.Sprintf("%d list-free EDOS dev texts (negatives) + 300 of them with an obfuscated profane word inserted (positives)", len(clean)),
		N:     len(texts), Metrics: binaryMetrics(pred, labels), Threshold: "score > 0.5", PerCall: perCall,
		Target: "recall on every trick, low fpr",
		Notes: "recall by trick: " + strings.Join(tricks, ", ") +
			fmt.Sprintf("; profanity-check alone: recall %.3f, fpr %.3f (it flags insults and hate such as \"scum\" too)", float64(rawTP)/float64(pos), float64(rawFP)/float64(neg)) +
			"; negatives labelled by the raw word lists",
	}
	sPred, sPerCall, err := profanityPredict(scunthorpeSentences)
	if err != nil {
		return nil, err
	}
	scun := Report{
		Slug: "profanity-detector", Dataset: "built-in Scunthorpe sentences", Split: "all (clean sentences with profane substrings)",
		N: len(scunthorpeSentences), Metrics: binaryMetrics(sPred, make([]bool, len(sPred))), Threshold: "score > 0.5",
		PerCall: sPerCall, Target: "fpr = 0", Notes: "Scunthorpe, assassin, cocktail, class, grape, Dickens, therapist, ...",
	}
	return []Report{main, scun}, nil
}

func profanityPredict(texts []string) ([]bool, time.Duration, error) {
	ctx := context.Background()
	pred := make([]bool, len(texts))
	var elapsed time.Duration
	for i, t := range texts {
		start := time.Now()
		res, err := evaluators.Evaluate(ctx, "profanity-detector", map[string]any{"text": t}, nil)
		elapsed += time.Since(start)
		if err != nil {
			return nil, 0, fmt.Errorf("profanity-detector: %w", err)
		}
		pred[i], _ = res["has_profanity"].(bool)
	}
	return pred, elapsed / time.Duration(max(len(texts), 1)), nil
}

// insertMid inserts word between the words of text, at its middle.
func insertMid(text, word string) string {
	f := strings.Fields(text)
	mid := len(f) / 2
	return strings.Join(append(f[:mid:mid], append([]string{word}, f[mid:]...)...), " ")
}

// rawProfanityList returns every entry of the Surge AI and LDNOOBW lists,
// lower-cased, with no exclusions.
func rawProfanityList(dataDir string) (map[string]bool, error) {
	f, err := os.Open(filepath.Join(dataDir, "profanity", "surge-ai-profanity_en.csv"))
	if err != nil {
		return nil, fmt.Errorf("open surge-ai list: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read surge-ai list: %w", err)
	}
	list := map[string]bool{}
	for _, r := range recs[1:] {
		list[strings.ToLower(r[0])] = true
	}
	ld, err := os.ReadFile(filepath.Join(dataDir, "profanity", "ldnoobw-en.txt"))
	if err != nil {
		return nil, fmt.Errorf("read ldnoobw list: %w", err)
	}
	for _, l := range strings.Split(string(ld), "\n") {
		if l = strings.ToLower(strings.TrimSpace(l)); l != "" {
			list[l] = true
		}
	}
	return list, nil
}

// hasListEntry reports whether a word or a 2- or 3-word phrase of text is
// in list.
func hasListEntry(text string, list map[string]bool) bool {
	words := listWordRE.FindAllString(strings.ToLower(text), -1)
	for i := range words {
		for n := 1; n <= 3 && i+n <= len(words); n++ {
			if list[strings.Join(words[i:i+n], " ")] {
				return true
			}
		}
	}
	return false
}
