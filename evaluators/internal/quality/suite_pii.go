package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/evaluators/internal/pii"
)

// Suite of pii-detector. The label is Presidio's: a text has PII when it
// holds any entity (person, location, organisation, date or time, age,
// nationality/religion/political group, title, zip code, address, or a
// patterned type). Every figure comes from a split by template, never a
// random split of template-generated records:
//
//   - pii/presidio-synth-a.jsonl: the templates that occur among records
//     with id < 375 were read while tuning (in-source); the records of the
//     other templates were not read since the first round, whose name
//     rules saw misses on all records (held-out groups).
//   - our own template set (piisynth.go): frames with an even
//     FNV-1a("piisynth-v1:"+id) were tuned on, the others are held out.
//   - the functional suites of testdata/functional/pii-detector (scored, not
//     tuned on).
//   - the has_pii rate on question prose (unlabelled).

const piiSlug = "pii-detector"

// piiRow is one record of pii/presidio-synth-a.jsonl.
type piiRow struct {
	ID       int    `json:"id"`
	Template int    `json:"template_id"`
	Text     string `json:"text"`
	Label    bool   `json:"label"`
	Entities []struct {
		Type      string `json:"type"`
		ByteStart int    `json:"byte_start"`
		ByteEnd   int    `json:"byte_end"`
	} `json:"entities"`
}

const piiDataset = "pii/presidio-synth-a.jsonl"

// piiTuneIDs: the templates of records with an id below it are the ones
// the recognizers were tuned on; records of the other templates are held out.
const piiTuneIDs = 375

// piiTarget is the goal of issue 18 on unseen data.
const piiTarget = "f1 >= 0.95"

// piiProseSets are texts without a PII label, used to count how often
// has_pii fires on ordinary prose: questions (most name people, places,
// organisations or dates, which count as PII under Presidio's label) and
// benign English prompts.
var piiProseSets = []struct{ dataset, field, skipCategory, note string }{
	{"qa/halueval-one-turn.jsonl", "question", "", "HotpotQA questions are multi-hop trivia about people, places, works and organisations: nearly every one names an entity"},
	{"relevancy/trecqa-dev.jsonl", "question", "", "TREC factoid questions (tokenised): many name a person, place or date"},
	{"injection/notinject.jsonl", "text", "Multilingual", "benign English prompts to an assistant (the Multilingual category left out): the closest set to PII-free LLM prompts; flags read: an assistant role (`helpful and knowledgeable librarian`), `Mars`, `African elephant`, `Microsoft Word`, `Fahrenheit`, `Sido`"},
}

func piiQuality(dataDir string) ([]Report, error) {
	presidio, err := piiPresidio(dataDir)
	if err != nil {
		return nil, err
	}
	synth, err := piiSynthReports()
	if err != nil {
		return nil, err
	}
	reports := append(presidio, synth...)
	cases, err := loadFunctional(piiSlug)
	if err != nil {
		return nil, err
	}
	fr, err := scoreFunctional(piiSlug, cases, func(c FunctionalCase) (bool, error) {
		var d time.Duration
		return piiEvaluate(c.Text, &d)
	})
	if err != nil {
		return nil, err
	}
	fr.Threshold, fr.Target = "0.7", piiTarget+"; fpr of negative low"
	fr.Notes = "hand-written sentences per phenomenon (lower-case and odd layouts included); `negative` is PII-free text with generic places, words that are also names and product names"
	reports = append(reports, fr)
	for _, set := range piiProseSets {
		r, err := piiProseRate(dataDir, set.dataset, set.field, set.skipCategory, set.note)
		if err != nil {
			return nil, err
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// piiScored is has_pii on one record, with the entities at the threshold.
type piiScored struct {
	pred     bool
	entities []pii.Entity
}

// piiScore runs the evaluator and the recognizers on text.
func piiScore(text string, elapsed *time.Duration) (piiScored, error) {
	pred, err := piiEvaluate(text, elapsed)
	if err != nil {
		return piiScored{}, err
	}
	var es []pii.Entity
	for _, e := range pii.Analyze(text) {
		if e.Score >= pii.DefaultThreshold {
			es = append(es, e)
		}
	}
	return piiScored{pred: pred, entities: es}, nil
}

// piiPresidio scores the Presidio records split by template.
func piiPresidio(dataDir string) ([]Report, error) {
	rows, err := readJSONL[piiRow](dataDir, piiDataset)
	if err != nil {
		return nil, err
	}
	pii.Analyze("Warm Up") // load the embedded lists before timing
	tuned := map[int]bool{}
	for _, row := range rows {
		if row.ID < piiTuneIDs {
			tuned[row.Template] = true
		}
	}
	scored := make([]piiScored, len(rows))
	var elapsed time.Duration
	for i, row := range rows {
		if scored[i], err = piiScore(row.Text, &elapsed); err != nil {
			return nil, fmt.Errorf("%s id %d: %w", piiDataset, row.ID, err)
		}
	}
	perCall := elapsed / time.Duration(len(rows))
	var reports []Report
	for _, part := range []struct {
		kind  Kind
		split string
		tuned bool
	}{
		{KindInSource, "records of the %d templates seen among ids < 375 (read while tuning)", true},
		{KindHeldOutGroups, "records of the %d templates never seen among ids < 375 (not read since the first round)", false},
	} {
		var pred, label []bool
		templates := map[int]bool{}
		found, total := map[string]int{}, map[string]int{}
		for i, row := range rows {
			if tuned[row.Template] != part.tuned {
				continue
			}
			templates[row.Template] = true
			pred, label = append(pred, scored[i].pred), append(label, row.Label)
			for _, g := range row.Entities {
				total[g.Type]++
				for _, e := range scored[i].entities {
					if e.Start < g.ByteEnd && g.ByteStart < e.End {
						found[g.Type]++
						break
					}
				}
			}
		}
		m := binaryMetrics(pred, label)
		reports = append(reports, Report{
			Slug: piiSlug, Dataset: piiDataset, Kind: part.kind, Split: fmt.Sprintf(part.split, len(templates)), N: len(pred),
			Metrics: m, Headline: "f1", Threshold: "0.7", PerCall: perCall, Target: piiTarget,
			Notes: fmt.Sprintf("has_pii vs. the full label (any entity): %d of %d positive; per gold type, share of spans overlapped by an entity scored >= 0.7 (any type): %s",
				countTrue(label), len(label), typeRecall(found, total)),
		})
	}
	return reports, nil
}

// typeRecall prints found/total per type, sorted by type.
func typeRecall(found, total map[string]int) string {
	types := make([]string, 0, len(total))
	for t := range total {
		types = append(types, t)
	}
	sort.Strings(types)
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s %d/%d", t, found[t], total[t])
	}
	return strings.Join(parts, ", ")
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// piiSynthReports scores our own template set: the tuning frames
// (in-source) and the held-out frames, each with a breakdown by slot.
func piiSynthReports() ([]Report, error) {
	records, err := piiSynthRecords()
	if err != nil {
		return nil, err
	}
	var reports []Report
	for _, part := range []struct {
		kind  Kind
		tune  bool
		split string
	}{
		{KindInSource, true, "tuning frames (FNV-1a(\"piisynth-v1:\"+id) even): %d frames"},
		{KindHeldOutGroups, false, "held-out frames (FNV-1a(\"piisynth-v1:\"+id) odd): %d frames, never read while tuning"},
	} {
		var pred, label []bool
		var elapsed time.Duration
		frames := map[int]bool{}
		type tally struct{ n, pos, hit int }
		bySlot := map[string]*tally{}
		var misses = map[string][]string{}
		add := func(group string, p, l bool, text string) {
			t := bySlot[group]
			if t == nil {
				t = &tally{}
				bySlot[group] = t
			}
			t.n++
			if l {
				t.pos++
			}
			if p == l {
				t.hit++
			} else if len(misses[group]) < maxMissesShown {
				misses[group] = append(misses[group], text)
			}
		}
		for _, r := range records {
			if piiSynthTune(r.Template) != part.tune {
				continue
			}
			frames[r.Template] = true
			p, err := piiEvaluate(r.Text, &elapsed)
			if err != nil {
				return nil, err
			}
			pred, label = append(pred, p), append(label, r.Label)
			switch {
			case !r.Label:
				add("no slot (negative)", p, false, r.Text)
			case len(uniq(r.Slots)) == 1:
				add("only {"+r.Slots[0]+"}", p, true, r.Text)
			default:
				add("several slots", p, true, r.Text)
			}
			if r.Lower {
				add("lower-cased records", p, r.Label, r.Text)
			}
		}
		var groups []Group
		for name, t := range bySlot {
			g := Group{Name: name, N: t.n, Positives: t.pos, Metrics: map[string]float64{"accuracy": safeDiv(float64(t.hit), float64(t.n))}, Misses: misses[name]}
			groups = append(groups, g)
		}
		sort.Slice(groups, func(i, j int) bool { return groups[i].Name < groups[j].Name })
		reports = append(reports, Report{
			Slug: piiSlug, Dataset: "pii template set (evaluators/internal/quality/testdata/piisynth)", Kind: part.kind,
			Split: fmt.Sprintf(part.split, len(frames)), N: len(pred), Metrics: binaryMetrics(pred, label), Headline: "f1",
			Threshold: "0.7", PerCall: elapsed / time.Duration(max(len(pred), 1)), Target: piiTarget,
			Notes:     fmt.Sprintf("own frames with fake values (seed %d), %d records per frame, the last lower-cased; %d of %d positive", piiSynthSeed, piiSynthVariants, countTrue(label), len(label)),
			Breakdown: groups,
		})
	}
	return reports, nil
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// piiProseRate runs pii-detector once on every distinct text of field in
// a dataset (rows of skipCategory left out) and reports the share flagged
// as has_pii.
func piiProseRate(dataDir, dataset, field, skipCategory, note string) (Report, error) {
	rows, err := readJSONL[map[string]any](dataDir, dataset)
	if err != nil {
		return Report{}, err
	}
	seen := map[string]bool{}
	var elapsed time.Duration
	flagged := 0
	for _, r := range rows {
		text, _ := r[field].(string)
		if cat, _ := r["category"].(string); seen[text] || skipCategory != "" && cat == skipCategory {
			continue
		}
		seen[text] = true
		has, err := piiEvaluate(text, &elapsed)
		if err != nil {
			return Report{}, fmt.Errorf("%s: %w", dataset, err)
		}
		if has {
			flagged++
		}
	}
	n := len(seen)
	return Report{
		Slug: piiSlug, Dataset: dataset, Kind: KindUnlabelled, Split: fmt.Sprintf("distinct `%s` fields (no PII label)", field), N: n,
		Metrics:   map[string]float64{"flag_rate": safeDiv(float64(flagged), float64(n)), "flagged": float64(flagged)},
		Headline:  "flag_rate",
		Threshold: "0.7", PerCall: elapsed / time.Duration(max(n, 1)), Target: "(no label: a flag is right when the question names an entity)",
		Notes: "has_pii rate on prose; " + note,
	}, nil
}

// piiEvaluate runs pii-detector on text through the catalogue, adding its
// wall time to total.
func piiEvaluate(text string, total *time.Duration) (bool, error) {
	t0 := time.Now()
	res, err := evaluators.Evaluate(context.Background(), piiSlug, map[string]any{"text": text}, nil)
	*total += time.Since(t0)
	if err != nil {
		return false, err
	}
	has, _ := res["has_pii"].(bool)
	return has, nil
}
