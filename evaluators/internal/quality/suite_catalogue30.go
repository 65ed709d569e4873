package main

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Quality of Traceloop's other slugs (issue 30) where the shared data
// holds a fitting set. Nothing here was fit on these rows, except
// prompt-perplexity's threshold, which was read off the benign rows'
// distribution (that row says so).

// judgeContextRelevance scores context-relevance on the held-out questions
// of TrecQA dev (the half answer-relevancy's coefficients never saw):
// each candidate sentence as the context of its question, and contexts of
// three sentences of one question, holding its answer or not.
func judgeContextRelevance(dataDir string) ([]Report, error) {
	rows, err := readJSONL[relevancyRow](dataDir, "relevancy/trecqa-dev.jsonl")
	if err != nil {
		return nil, err
	}
	var held []relevancyRow
	for _, r := range rows {
		if !relevancyTuningQuestion(r.Question) {
			held = append(held, r)
		}
	}
	score := func(q, ctx string, elapsed *time.Duration) (float64, error) {
		res, err := timedEvaluate("context-relevance", map[string]any{"query": q, "context": ctx}, elapsed)
		if err != nil {
			return 0, err
		}
		s, _ := res["relevance_score"].(float64)
		return s, nil
	}
	var out []Report

	var elapsed time.Duration
	var js []judged
	for _, r := range held {
		s, err := score(r.Question, r.Answer, &elapsed)
		if err != nil {
			return nil, err
		}
		js = append(js, judged{pred: s >= 0.5, score: s, label: r.Label})
	}
	rep := binaryReport("context-relevance", "relevancy/trecqa-dev.jsonl", "held-out questions (FNV-1a(\"relq:\"+question) odd): one candidate sentence as the context", js, elapsed)
	rep.Metrics["balanced_accuracy"] = balancedAccuracy(js)
	rep.Kind, rep.Headline = KindHeldOutGroups, "roc_auc"
	rep.Threshold = "relevance_score >= 0.5"
	rep.Notes = "label = the sentence answers the question; the same model as answer-relevancy (textsim.AnswerRelevance), so these are its held-out figures on a one-sentence context"
	out = append(out, rep)

	// Contexts of three sentences: for each held-out question with an
	// answer and at least four non-answers, one context of its first
	// answer between two non-answers (relevant) and one of three other
	// non-answers (not relevant), in file order.
	byQ := map[string][]relevancyRow{}
	var order []string
	for _, r := range held {
		if _, ok := byQ[r.Question]; !ok {
			order = append(order, r.Question)
		}
		byQ[r.Question] = append(byQ[r.Question], r)
	}
	sort.Strings(order)
	elapsed, js = 0, nil
	for _, q := range order {
		var pos, neg []string
		for _, r := range byQ[q] {
			if r.Label {
				pos = append(pos, r.Answer)
			} else {
				neg = append(neg, r.Answer)
			}
		}
		if len(pos) == 0 || len(neg) < 5 {
			continue
		}
		for _, c := range []struct {
			sents []string
			label bool
		}{{[]string{neg[0], pos[0], neg[1]}, true}, {[]string{neg[2], neg[3], neg[4]}, false}} {
			s, err := score(q, strings.Join(c.sents, "\n"), &elapsed)
			if err != nil {
				return nil, err
			}
			js = append(js, judged{pred: s >= 0.5, score: s, label: c.label})
		}
	}
	rep = binaryReport("context-relevance", "relevancy/trecqa-dev.jsonl", fmt.Sprintf("held-out questions: contexts of 3 candidate sentences, the answer among them or not (%d questions)", len(js)/2), js, elapsed)
	rep.Metrics["balanced_accuracy"] = balancedAccuracy(js)
	rep.Kind, rep.Headline = KindHeldOutGroups, "balanced_accuracy"
	rep.Threshold = "relevance_score >= 0.5"
	rep.Notes = "questions with an answer and at least 5 non-answers; every sentence shares the question's topic"
	out = append(out, rep)
	return out, nil
}

// judgeAnswerCompleteness scores answer-completeness on HaluEval QA, a
// proxy: a right answer holds the fact of the knowledge that answers the
// question, a hallucinated one does not.
func judgeAnswerCompleteness(dataDir string) ([]Report, error) {
	js, elapsed, err := judgeHaluEval(dataDir, "answer-completeness", "answer_completeness_score", func(r qaRow) map[string]any {
		return map[string]any{"question": r.Question, "completion": r.Answer, "context": r.Context}
	})
	if err != nil {
		return nil, err
	}
	rep := binaryReport("answer-completeness", "qa/halueval-one-turn.jsonl", "all (not tuned on)", js, elapsed)
	rep.Kind, rep.Headline = KindCrossSource, "roc_auc"
	rep.Threshold = "answer_completeness_score >= 0.5"
	rep.Notes = "a proxy, not a completeness benchmark: label = right (true) or hallucinated (false) answer; completion = answer, context = knowledge"
	return []Report{rep}, nil
}

// promptPerplexityQuality reports prompt-perplexity's flag rate on the
// benign prompts of the injection sets (its threshold was read off their
// distribution) and, for information, on their injections.
func promptPerplexityQuality(dataDir string) ([]Report, error) {
	var out []Report
	for _, f := range []string{"injection/deepset-train.jsonl", "injection/jailbreak-classification-train.jsonl", "injection/notinject.jsonl"} {
		rows, err := readJSONL[injectionRow](dataDir, f)
		if err != nil {
			return nil, err
		}
		for _, label := range []bool{false, true} {
			var elapsed time.Duration
			n, flagged := 0, 0
			for _, r := range rows {
				if r.Label != label {
					continue
				}
				res, err := timedEvaluate("prompt-perplexity", map[string]any{"prompt": r.Text}, &elapsed)
				if err != nil {
					return nil, err
				}
				n++
				if valid, _ := res["is_valid"].(bool); !valid {
					flagged++
				}
			}
			if n == 0 {
				continue
			}
			kind, split, note := KindInSource, "benign rows", "flag = is_valid false; the threshold (30) was read off these rows' perplexities (p99 of deepset's benign rows 24, mostly German)"
			if label {
				kind, split, note = KindUnlabelled, "injection rows", "for information: natural-language injections are not what a perplexity filter finds"
			}
			out = append(out, Report{
				Slug: "prompt-perplexity", Dataset: f, Kind: kind, Split: split, N: n,
				Metrics:  map[string]float64{"flag_rate": safeDiv(float64(flagged), float64(n)), "flagged": float64(flagged)},
				Headline: "flag_rate", Threshold: "perplexity_score > 30", PerCall: elapsed / time.Duration(max(n, 1)), Notes: note,
			})
		}
	}
	return out, nil
}
