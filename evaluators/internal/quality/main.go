// Command quality scores every evaluator on labelled data that was not used
// to train it and writes evaluators/QUALITY.md.
//
//	go run ./evaluators/internal/quality [-data ../shared/data] [-out evaluators/QUALITY.md] [-only slug,...]
//
// Each suite (one file per evaluator family) reads its datasets, runs the
// evaluator through evaluators.Evaluate exactly as the API does, and returns
// one or more report rows. Every row says its Kind (in-source, cross-source,
// held-out groups, functional suite, ...) and may name a Headline metric;
// QUALITY.md opens with a summary that puts the headline figures of every
// kind side by side. Hand-written functional suites live in
// testdata/functional/<slug>/<phenomenon>.jsonl (functional.go).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
)

// suite scores one evaluator family on data under dataDir.
type suite struct {
	slug string
	run  func(dataDir string) ([]Report, error)
}

// suites lists every quality suite, in catalogue order. Each suite_*.go
// file contributes one entry.
var suites = []suite{
	{"profanity-detector", profanitySuite},
	{"toxicity-detector", toxicitySuite},
	{"sexism-detector", sexismSuite},
	{"prompt-injection", injectionSuite},
	{"uncertainty-detector", judgeUncertainty},
	{"faithfulness", judgeFaithfulness},
	{"answer-correctness", judgeAnswerCorrectness},
	{"answer-relevancy", judgeAnswerRelevancy},
	{"semantic-similarity", judgeSemanticSimilarity},
	{"conversation-quality", judgeConversationQuality},
	{"pii-detector", piiQuality},
	{"pii-detector-safety", piiContactQuality},
	{"secrets-detector", secretsQuality},
	{"context-relevance", judgeContextRelevance},
	{"answer-completeness", judgeAnswerCompleteness},
	{"prompt-perplexity", promptPerplexityQuality},
}

func main() {
	dataDir := flag.String("data", "../shared/data", "folder of the shared labelled datasets")
	out := flag.String("out", "evaluators/QUALITY.md", "report to write ('-' for stdout)")
	only := flag.String("only", "", "comma-separated slugs to score (default: all)")
	flag.Parse()

	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		if s != "" {
			want[s] = true
		}
	}
	var reports []Report
	for _, s := range suites {
		if len(want) > 0 && !want[s.slug] {
			continue
		}
		rs, err := s.run(*dataDir)
		if err != nil {
			log.Fatalf("quality suite %s: %v", s.slug, err)
		}
		for _, r := range rs {
			fmt.Fprintln(os.Stderr, r.Line())
		}
		reports = append(reports, rs...)
	}
	md := renderMarkdown(reports)
	if *out == "-" {
		fmt.Print(md)
		return
	}
	if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
		log.Fatalf("write %s: %v", *out, err)
	}
}
