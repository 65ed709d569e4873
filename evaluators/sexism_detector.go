package evaluators

import (
	"context"
	_ "embed"
	"fmt"
	"sync"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

var sexismDetector = Definition{
	Slug:        "sexism-detector",
	Category:    CategorySecurity,
	Description: "Detects sexist language and bias in the text.",
	Inputs:      []Field{textInput("text", "Text", "The text to check for sexism.")},
	Config:      []Field{thresholdConfig("sexist")},
	Outputs:     []Field{safetyOutput("is_safe", "Is safe", `"unsafe" when the sexism probability exceeds the threshold, else "safe".`)},
	Side:        SideOutput,
	Score:       "is_safe",
	PassDoc:     `is_safe == "safe"`,
	run:         runSexism,
	explain:     explainSexism,
	pass:        passWhenSafe("is_safe"),
	guard:       guardSafety("is_safe", SafeLabel),
}

// sexismStackData is the stacked classifier trained on EDOS train by
// `go run ./evaluators/internal/train sexism`.
//
//go:embed internal/textclass/models/sexism.evst
var sexismStackData []byte

// sexismModel is the stacked classifier, decoded once. Its combiner is
// shifted so that 0.5 is the macro-F1 operating point found on
// out-of-fold scores of EDOS train.
var sexismModel = sync.OnceValues(func() (*textclass.Stack, error) { return textclass.LoadStack(sexismStackData) })

func runSexism(ctx context.Context, req Request) (Result, error) {
	m, err := sexismModel()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Msg: "sexism model unavailable", Err: fmt.Errorf("sexism-detector: %w", err)}
	}
	return Result{"is_safe": safety(m.Probability(textclass.CollapsedFrom(ctx, req.Text("text"))) > req.Float("threshold"))}, nil
}
