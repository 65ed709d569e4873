package evaluators

import (
	"context"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// WithTextCache returns ctx carrying a cache of normalised texts: the
// evaluators run with it (or a context derived from it) normalise each
// distinct input string once between them — lower case, accents and
// leetspeak folded, social-media noise stripped — instead of once each.
// Scope it to one unit of work, such as a batch of spans whose evaluators
// run on the same prompts and completions; results are the same with or
// without it.
func WithTextCache(ctx context.Context) context.Context {
	return textclass.WithTextCache(ctx)
}

// ReleaseTextCache returns the buffers of the texts cached in ctx (see
// WithTextCache) for reuse by later texts, once no evaluator that uses
// ctx is running any more; it does nothing when ctx carries no cache.
func ReleaseTextCache(ctx context.Context) {
	textclass.ReleaseTextCache(ctx)
}
