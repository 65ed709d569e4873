package textclass

import (
	"context"
	"sync"
)

// Text is one input text with its normal forms, each computed on first use
// and kept, so the classifiers and rules that run on the same text
// normalise it once between them. A Text is safe for concurrent use; the
// forms it returns must not be changed.
type Text struct {
	raw   string
	forms [4]form // by formIndex(NormOptions)
}

type form struct {
	once sync.Once
	b    []byte
}

// NewText returns s with no normal form computed yet.
func NewText(s string) *Text { return &Text{raw: s} }

// String returns the text as given.
func (t *Text) String() string { return t.raw }

func formIndex(o NormOptions) int {
	i := 0
	if o.Fold {
		i |= 1
	}
	if o.StripSocial {
		i |= 2
	}
	return i
}

// Form returns the normal form of the text with opts, byte for byte what
// NormalizeWith(t.String(), opts) returns. A folded form is derived from
// the unfolded one, which is kept too.
func (t *Text) Form(opts NormOptions) []byte {
	f := &t.forms[formIndex(opts)]
	f.once.Do(func() {
		if !opts.Fold {
			f.b = appendNormalized(nil, t.raw, opts)
			return
		}
		base := t.Form(NormOptions{StripSocial: opts.StripSocial})
		b := append(make([]byte, 0, len(base)), base...)
		f.b = b[:foldInPlace(b)]
	})
	return f.b
}

// Normalized is Form with no option: Normalize(t.String()).
func (t *Text) Normalized() []byte { return t.Form(NormOptions{}) }

// Folded is Form with Fold: Fold(t.String()).
func (t *Text) Folded() []byte { return t.Form(NormOptions{Fold: true}) }

// ProbabilityOf is Probability(t.String()), from t's normal form.
func (m *Model) ProbabilityOf(t *Text) float64 {
	return m.platt.apply(m.scoreNormalized(t.Form(m.features.Norm)))
}

// TextCache shares Texts between the evaluators that run on the same
// strings (see WithTextCache). It is safe for concurrent use.
type TextCache struct {
	mu    sync.Mutex
	texts map[string]*Text
}

type textCacheKey struct{}

// WithTextCache returns ctx carrying a new, empty TextCache: TextFrom with
// the returned context (or one derived from it) returns one shared Text
// per distinct string. Callers scope it to a unit of work (a batch of
// spans), after which the cache and its texts are garbage.
func WithTextCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, textCacheKey{}, &TextCache{texts: map[string]*Text{}})
}

// TextFrom returns the Text of s: the one shared through ctx's TextCache,
// or a new one when ctx carries none.
func TextFrom(ctx context.Context, s string) *Text {
	c, _ := ctx.Value(textCacheKey{}).(*TextCache)
	if c == nil {
		return NewText(s)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.texts[s]
	if !ok {
		t = NewText(s)
		c.texts[s] = t
	}
	return t
}
