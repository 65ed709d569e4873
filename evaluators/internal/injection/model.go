package injection

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// modelData is the shipped model, written by
// `go run ./evaluators/internal/train injection`.
//
//go:embed model.evtc
var modelData []byte

// Default returns the detector with the embedded model, loaded on first
// use and shared afterwards.
var Default = sync.OnceValues(func() (*Detector, error) {
	m, err := textclass.Load(modelData)
	if err != nil {
		return nil, fmt.Errorf("injection: load embedded model: %w", err)
	}
	return NewDetector(m), nil
})
