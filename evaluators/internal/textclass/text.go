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
	buf  *[]byte // the pooled buffer b lives in (nil: not pooled)
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
// NormalizeWith(t.String(), opts) returns.
//
// Forms share work: a text without social-media noise has the same
// StripSocial form as plain form, and a folded form is the unfolded one
// folded, so a text read folded and with StripSocial is normalised once.
func (t *Text) Form(opts NormOptions) []byte {
	if opts.StripSocial && !mayHaveSocial(t.raw) {
		opts.StripSocial = false
	}
	f := &t.forms[formIndex(opts)]
	f.once.Do(func() {
		if opts.Fold {
			base := t.Form(NormOptions{StripSocial: opts.StripSocial})
			f.buf = getFormBuffer(len(base))
			b := append((*f.buf)[:0], base...)
			f.b = b[:foldInPlace(b)]
			*f.buf = f.b
			return
		}
		size := len(t.raw) + len(t.raw)/8 + 8
		if opts.StripSocial {
			size += len(t.raw) // the stripped text, normalised from a second region
		}
		f.buf = getFormBuffer(size)
		f.b = appendNormalized((*f.buf)[:0], t.raw, opts)
		*f.buf = f.b
	})
	return f.b
}

// mayHaveSocial reports whether s may hold something appendStripSocial
// removes: '&', '@', '#', "RT", or "http" / "www." in any case. Without
// any, appendStripSocial copies s unchanged.
func mayHaveSocial(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&', '@', '#':
			return true
		case 'R':
			if i+1 < len(s) && s[i+1] == 'T' {
				return true
			}
		case 'h', 'H':
			if hasPrefixFold(s[i:], "http") {
				return true
			}
		case 'w', 'W':
			if hasPrefixFold(s[i:], "www.") {
				return true
			}
		}
	}
	return false
}

// Release returns the buffers of t's forms for reuse by other Texts. The
// caller must be t's only user, and neither t nor any form it returned may
// be used afterwards. Texts of a TextCache are released together, by
// ReleaseTextCache.
func (t *Text) Release() {
	for i := range t.forms {
		f := &t.forms[i]
		if f.buf != nil && cap(*f.buf) <= maxPooledForm {
			*f.buf = (*f.buf)[:0]
			formBuffers.Put(f.buf)
		}
		f.b, f.buf = nil, nil
	}
}

// maxPooledForm bounds the capacity of a form buffer kept for reuse.
const maxPooledForm = 64 << 10

// formBuffers pools the buffers of released forms.
var formBuffers sync.Pool

// getFormBuffer returns an empty buffer of at least capacity bytes,
// reused if one is free.
func getFormBuffer(capacity int) *[]byte {
	if bp, ok := formBuffers.Get().(*[]byte); ok {
		if cap(*bp) >= capacity {
			return bp
		}
		*bp = make([]byte, 0, capacity)
		return bp
	}
	b := make([]byte, 0, capacity)
	return &b
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
	// collapsed memoises CollapseRepeats per distinct string (made on
	// first use): the classifiers of one text collapse it once.
	collapsed map[string]string
}

type textCacheKey struct{}

// WithTextCache returns ctx carrying a new, empty TextCache: TextFrom with
// the returned context (or one derived from it) returns one shared Text
// per distinct string. Callers scope it to a unit of work (a batch of
// spans), after which the cache and its texts are garbage.
func WithTextCache(ctx context.Context) context.Context {
	return context.WithValue(ctx, textCacheKey{}, &TextCache{texts: map[string]*Text{}})
}

// ReleaseTextCache releases the Texts of ctx's TextCache (see Release)
// and empties it; it does nothing when ctx carries none. The caller must
// know that no evaluation using the cache is still running.
func ReleaseTextCache(ctx context.Context) {
	c, _ := ctx.Value(textCacheKey{}).(*TextCache)
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.texts {
		t.Release()
	}
	clear(c.texts)
	clear(c.collapsed)
}

// CollapsedFrom is CollapseRepeats(s), computed once per distinct s
// through ctx's TextCache (every call when ctx carries none).
func CollapsedFrom(ctx context.Context, s string) string {
	c, _ := ctx.Value(textCacheKey{}).(*TextCache)
	if c == nil {
		return CollapseRepeats(s)
	}
	c.mu.Lock()
	v, ok := c.collapsed[s]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = CollapseRepeats(s)
	c.mu.Lock()
	if c.collapsed == nil {
		c.collapsed = map[string]string{}
	}
	c.collapsed[s] = v
	c.mu.Unlock()
	return v
}

// TextFrom returns the Text of s: the one shared through ctx's TextCache,
// or a new one when ctx carries none.
func TextFrom(ctx context.Context, s string) *Text {
	t, _ := LookupText(ctx, s)
	return t
}

// LookupText is TextFrom that also reports whether the Text is the
// caller's own (no cache in ctx): the caller may then Release it when
// done.
func LookupText(ctx context.Context, s string) (*Text, bool) {
	c, _ := ctx.Value(textCacheKey{}).(*TextCache)
	if c == nil {
		return NewText(s), true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.texts[s]
	if !ok {
		t = NewText(s)
		c.texts[s] = t
	}
	return t, false
}
