package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/profanity"
)

// profanityDir is where the profanity package embeds its data.
var profanityDir = filepath.Join("evaluators", "internal", "profanity", "data")

// trainProfanity converts models/profanity-check.json into the compact
// binary the profanity package embeds, and builds its lexicon from the
// Surge AI and LDNOOBW lists.
func trainProfanity(dataDir string) error {
	if err := convertProfanityCheck(dataDir); err != nil {
		return err
	}
	if err := buildLexicon(dataDir); err != nil {
		return err
	}
	return buildSlurs(dataDir)
}

// buildSlurs writes the Surge AI entries whose category is a racial or
// ethnic slur, or a "Severe" sexual-orientation/gender slur, for the
// toxicity detector.
func buildSlurs(dataDir string) error {
	records, err := readSurge(dataDir)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	for _, r := range records {
		cats := r[4] + "|" + r[5] + "|" + r[6]
		slur := strings.Contains(cats, "racial / ethnic slurs") ||
			(strings.Contains(cats, "sexual orientation / gender") && r[8] == "Severe")
		e := strings.ToLower(strings.TrimSpace(r[0]))
		if slur && e != "" && !slices.Contains(lexiconExclusions, e) {
			set[e] = true
		}
	}
	lines := make([]string, 0, len(set))
	for e := range set {
		lines = append(lines, e)
	}
	sort.Strings(lines)
	return writeFile(filepath.Join(profanityDir, "slurs.txt"), []byte(strings.Join(lines, "\n")+"\n"))
}

// readSurge returns the data rows of the Surge AI list (columns text,
// canonical_form_1..3, category_1..3, severity_rating,
// severity_description).
func readSurge(dataDir string) ([][]string, error) {
	f, err := os.Open(filepath.Join(dataDir, "profanity", "surge-ai-profanity_en.csv"))
	if err != nil {
		return nil, fmt.Errorf("open surge-ai list: %w", err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read surge-ai list: %w", err)
	}
	if len(records) < 2 || len(records[0]) < 9 || records[0][0] != "text" || records[0][8] != "severity_description" {
		return nil, fmt.Errorf("surge-ai list: unexpected header %v", records[0])
	}
	return records[1:], nil
}

func convertProfanityCheck(dataDir string) error {
	raw, err := os.ReadFile(filepath.Join(dataDir, "models", "profanity-check.json"))
	if err != nil {
		return fmt.Errorf("read profanity-check model: %w", err)
	}
	var src struct {
		Vocabulary map[string]int `json:"vocabulary"`
		Folds      []struct {
			Coef        []float64 `json:"coef"`
			Intercept   float64   `json:"intercept"`
			Calibration struct {
				A float64 `json:"a"`
				B float64 `json:"b"`
			} `json:"calibration"`
		} `json:"folds"`
	}
	if err := json.Unmarshal(raw, &src); err != nil {
		return fmt.Errorf("decode profanity-check model: %w", err)
	}
	tokens := make([]string, len(src.Vocabulary))
	for tok, i := range src.Vocabulary {
		if i < 0 || i >= len(tokens) || tokens[i] != "" {
			return fmt.Errorf("profanity-check model: bad or duplicate column %d for %q", i, tok)
		}
		tokens[i] = tok
	}
	var folds []profanity.Fold
	for k, f := range src.Folds {
		if len(f.Coef) != len(tokens) {
			return fmt.Errorf("profanity-check model: fold %d has %d coefficients, want %d", k, len(f.Coef), len(tokens))
		}
		folds = append(folds, profanity.Fold{Coef: f.Coef, Intercept: f.Intercept, A: f.Calibration.A, B: f.Calibration.B})
	}
	return writeFile(filepath.Join(profanityDir, "profanity-check.bin"), profanity.EncodeWeights(tokens, folds))
}

// lexiconExclusions are entries of the source lists that are ordinary,
// clinical or topical words rather than profanity in everyday text (from
// the most frequent lexicon hits on EDOS, TrecQA, HaluEval and NotInject
// texts, and a read of the Surge AI "Mild" entries). The classifier still
// scores them in context.
var lexiconExclusions = strings.Fields(`
	69 abbie aboe anal anus bates bbc bondage booty breasts busty buttermilk butt
	caca cooties crotch crow crows diddle dipstick dolt domination dong erotic escort fecal
	finger forked genitals greaser hardcore homo homoerotic hooker hooters humping hustler
	incest intercourse knickers knob molester mongrel muff nambla negro nipple nipples
	nonce nude nudity nuggets orgasm orgy panties panty pecker pedophile penis peter
	playboy porn pornography pubes rape raping rapist rectum sack semen sex sexual
	sexuality sexually sexy sheet sissy slit snatch spanking sperm spooks suck sucks swine
	tart threesome topless tramp vagina viagra vibrator vulva wang weenie weiner xx xxx
`)

func buildLexicon(dataDir string) error {
	records, err := readSurge(dataDir)
	if err != nil {
		return err
	}
	var entries []string
	for _, r := range records {
		entries = append(entries, r[0])
	}
	ld, err := os.ReadFile(filepath.Join(dataDir, "profanity", "ldnoobw-en.txt"))
	if err != nil {
		return fmt.Errorf("read ldnoobw list: %w", err)
	}
	entries = append(entries, strings.Split(string(ld), "\n")...)
	set := map[string]bool{}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" && !slices.Contains(lexiconExclusions, e) {
			set[e] = true
		}
	}
	lines := make([]string, 0, len(set))
	for e := range set {
		lines = append(lines, e)
	}
	sort.Strings(lines)
	return writeFile(filepath.Join(profanityDir, "lexicon.txt"), []byte(strings.Join(lines, "\n")+"\n"))
}

func writeFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Printf("wrote %s (%d bytes)\n", path, len(data))
	return nil
}
