// Command train builds the embedded models of the trained evaluators from
// the shared labelled data. Run it from the repository root:
//
//	go run ./evaluators/internal/train [-data ../shared/data] <model>|all
//
// Training is deterministic (fixed seeds, inputs sorted by id), so
// re-running it rewrites byte-identical model files. Each model writes its
// file next to the package that embeds it (see the trainer's out path).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// modelsDir is where textclass models are written, relative to the
// repository root; package textclass/models embeds every *.evtc there.
var modelsDir = filepath.Join("evaluators", "internal", "textclass", "models")

// trainer builds one model from data under dataDir and writes it below the
// repository root.
type trainer struct {
	name string
	run  func(dataDir string) error
}

// trainers lists every model, one entry per train_*.go file.
var trainers = []trainer{
	{"profanity", trainProfanity},
	{"toxicity", trainToxicity},
	{"sexism", trainSexism},
	{"injection", trainInjection},
	{"lexicons", trainLexicons},
}

func main() {
	dataDir := flag.String("data", "../shared/data", "folder of the shared labelled datasets")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./evaluators/internal/train [-data dir] <model>|all\nmodels: %s\n", strings.Join(names(), ", "))
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	want := flag.Arg(0)
	found := false
	for _, t := range trainers {
		if want != "all" && want != t.name {
			continue
		}
		found = true
		if err := t.run(*dataDir); err != nil {
			log.Fatalf("train %s: %v", t.name, err)
		}
	}
	if !found {
		log.Fatalf("unknown model %q (known: %s, all)", want, strings.Join(names(), ", "))
	}
}

func names() []string {
	var ns []string
	for _, t := range trainers {
		ns = append(ns, t.name)
	}
	return ns
}
