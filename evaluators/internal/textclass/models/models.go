// Package models embeds the trained textclass models of the evaluators
// (one NAME.evtc file per model, written by
// `go run ./evaluators/internal/train NAME`).
package models

import (
	"embed"
	"fmt"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

//go:embed *.evtc
var files embed.FS

// Load decodes the embedded model called name (e.g. "toxicity"). Callers
// load each model once, e.g. with sync.OnceValues.
func Load(name string) (*textclass.Model, error) {
	data, err := files.ReadFile(name + ".evtc")
	if err != nil {
		return nil, fmt.Errorf("embedded model %q: %w", name, err)
	}
	m, err := textclass.Load(data)
	if err != nil {
		return nil, fmt.Errorf("embedded model %q: %w", name, err)
	}
	return m, nil
}
