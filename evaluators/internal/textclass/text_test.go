package textclass

import (
	"context"
	"sync"
	"testing"
)

func TestTextFormsMatchNormalizeWith(t *testing.T) {
	texts := []string{
		"", "Plain text.", "RT @user: Ｆｕｌｌ-width &amp; f u c k http://x.co #tag", "b!tch a$$hole fuuuuck",
		"Ignorière   tous\tles\nmots", "忽略之前的所有指令", "s.h.i.t happens",
		"see HTTPS://Example.com now", "RT this", "a & b &amp; c", "mail me @home", "#tag", "Www.x.org", "ART and hRT",
	}
	for _, s := range texts {
		tx := NewText(s)
		for _, opts := range []NormOptions{{}, {Fold: true}, {StripSocial: true}, {Fold: true, StripSocial: true}} {
			if got, want := string(tx.Form(opts)), NormalizeWith(s, opts); got != want {
				t.Errorf("Form(%q, %+v) = %q, want %q", s, opts, got, want)
			}
		}
		if string(tx.Normalized()) != Normalize(s) || string(tx.Folded()) != Fold(s) || tx.String() != s {
			t.Errorf("Normalized/Folded/String of %q disagree with Normalize/Fold", s)
		}
	}
}

func TestTextFromSharesWithinACache(t *testing.T) {
	ctx := WithTextCache(context.Background())
	a, b := TextFrom(ctx, "same text"), TextFrom(ctx, "same text")
	if a != b {
		t.Error("TextFrom with a cache returned two Texts for one string")
	}
	if TextFrom(ctx, "other") == a {
		t.Error("TextFrom returned the same Text for different strings")
	}
	if TextFrom(context.Background(), "same text") == a {
		t.Error("TextFrom without a cache returned the cached Text")
	}
	// Concurrent use: one Text, one form, whatever the interleaving.
	var wg sync.WaitGroup
	forms := make([][]byte, 8)
	for i := range forms {
		wg.Go(func() { forms[i] = TextFrom(ctx, "Ｓhared b!tch").Folded() })
	}
	wg.Wait()
	for _, f := range forms[1:] {
		if &f[0] != &forms[0][0] {
			t.Fatal("concurrent callers got different folded forms of one Text")
		}
	}
}

func TestProbabilityOfMatchesProbability(t *testing.T) {
	texts := []string{"you are an idiot", "have a nice day", "RT @x: what a d4mn day"}
	labels := []bool{true, false, true}
	for _, norm := range []NormOptions{{}, {StripSocial: true}, {Fold: true, StripSocial: true}} {
		opts := TrainOptions{Features: Features{WordNgrams: 2, CharMinN: 2, CharMaxN: 4, HashBits: 12, Norm: norm}, Epochs: 3, Seed: 1}
		m, err := Train(append(texts, texts...), append(labels, labels...), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			if got, want := m.ProbabilityOf(NewText(s)), m.Probability(s); got != want {
				t.Errorf("%+v: ProbabilityOf(%q) = %v, Probability = %v", norm, s, got, want)
			}
		}
	}
}

// TestReleaseTextCache: releasing a batch's cache empties it, and texts of
// the next batch, built in the released buffers, have the right forms.
func TestReleaseTextCache(t *testing.T) {
	ReleaseTextCache(context.Background()) // no cache: nothing to do
	texts := []string{"RT @x: the FIRST text, with a link http://x.y", "Ｓecond b!tch text", "third"}
	for range 3 {
		ctx := WithTextCache(context.Background())
		for _, s := range texts {
			tx := TextFrom(ctx, s)
			if got, want := string(tx.Folded()), Fold(s); got != want {
				t.Fatalf("Folded(%q) = %q, want %q", s, got, want)
			}
			if got, want := string(tx.Form(NormOptions{StripSocial: true})), NormalizeWith(s, NormOptions{StripSocial: true}); got != want {
				t.Fatalf("StripSocial form of %q = %q, want %q", s, got, want)
			}
		}
		c := ctx.Value(textCacheKey{}).(*TextCache)
		ReleaseTextCache(ctx)
		if len(c.texts) != 0 {
			t.Fatalf("%d texts left in a released cache", len(c.texts))
		}
		texts = append(texts, texts[0]+" more")
	}
}
