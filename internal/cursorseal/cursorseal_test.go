package cursorseal

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	ctx := context.Background()
	s := New(StaticKeys([]byte("0123456789abcdef0123456789abcdef")))
	inner := "eyJ2IjoyLCJoIjoiYWJjIiwicyI6MTIzNDUsInQiOjEwLCJxIjo3fQ"
	sealed, err := s.Seal(ctx, Spans, "env-a", inner)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, inner) {
		t.Fatal("the sealed cursor shows the inner one")
	}
	again, _ := s.Seal(ctx, Spans, "env-a", inner)
	if again == sealed {
		t.Error("sealing twice gave the same cursor: equal cursors would show equal positions")
	}
	if got, err := s.Open(ctx, Spans, "env-a", sealed); err != nil || got != inner {
		t.Fatalf("Open = %q, %v; want %q", got, err, inner)
	}
	// One length whatever the numbers inside.
	short, _ := s.Seal(ctx, Metrics, "env-a", "5")
	long, _ := s.Seal(ctx, Metrics, "env-a", "9223372036854775807")
	if len(short) != len(long) {
		t.Errorf("metric cursors of 1 and 19 digits: %d and %d characters", len(short), len(long))
	}
	if got, err := s.Open(ctx, Metrics, "env-a", long); err != nil || got != "9223372036854775807" {
		t.Errorf("Open = %q, %v", got, err)
	}
	if got, err := s.Seal(ctx, Spans, "env-a", ""); got != "" || err != nil {
		t.Errorf("Seal of no cursor = %q, %v", got, err)
	}
	// Another collector of the same warehouse (same secret) opens it; a
	// collector with the secret among several too.
	peer := New(func(context.Context) ([][]byte, error) {
		return [][]byte{[]byte("a secret that won the race"), []byte("0123456789abcdef0123456789abcdef")}, nil
	})
	if got, err := peer.Open(ctx, Spans, "env-a", sealed); err != nil || got != inner {
		t.Errorf("a peer's Open = %q, %v", got, err)
	}
	// Another base64url character in the middle (flipping a bit could
	// make it no base64 character at all: '-' ^ 1 is ',').
	flipped := []byte(sealed)
	if mid := len(flipped) / 2; flipped[mid] != 'A' {
		flipped[mid] = 'A'
	} else {
		flipped[mid] = 'B'
	}
	for name, tc := range map[string]struct {
		s          *Sealer
		kind, env  string
		cursor     string
		wantForeig bool
	}{
		"another environment": {s, Spans, "env-b", sealed, true},
		"another kind":        {s, Metrics, "env-a", sealed, true},
		"another warehouse":   {New(StaticKeys([]byte("another secret"))), Spans, "env-a", sealed, true},
		"altered":             {s, Spans, "env-a", string(flipped), true},
		"the inner cursor":    {s, Spans, "env-a", inner, false},
		"an integer":          {s, Metrics, "env-a", "4194305", false},
		"too short":           {s, Spans, "env-a", "AQ", false},
		"too long":            {s, Spans, "env-a", strings.Repeat("A", MaxLen+1), false},
		"not base64":          {s, Spans, "env-a", "***", false},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := tc.s.Open(ctx, tc.kind, tc.env, tc.cursor)
			want := ErrMalformed
			if tc.wantForeig {
				want = ErrForeign
			}
			if !errors.Is(err, want) || got != "" {
				t.Errorf("Open = %q, %v; want %v", got, err, want)
			}
		})
	}
}
