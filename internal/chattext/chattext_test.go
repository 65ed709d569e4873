package chattext

import "testing"

func TestTextIsDeterministicAndSized(t *testing.T) {
	for _, tc := range []struct {
		name          string
		seed          uint64
		minB, maxB    int
		wantMinLength int
		wantDistinct  int
	}{
		{"1 to 4 KB", 1, 1024, 4096, 1004, 50},
		{"exactly 2 KB", 7, 2048, 2048, 2028, 50},
		{"tiny", 3, 10, 10, 1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := New(tc.seed), New(tc.seed)
			distinct := map[string]bool{}
			for i := range 50 {
				x, y := a.Text(tc.minB, tc.maxB), b.Text(tc.minB, tc.maxB)
				if x != y {
					t.Fatalf("text %d differs between two generators of seed %d", i, tc.seed)
				}
				if len(x) > tc.maxB || len(x) < tc.wantMinLength {
					t.Errorf("text %d has %d bytes, want %d..%d", i, len(x), tc.wantMinLength, tc.maxB)
				}
				distinct[x] = true
			}
			if len(distinct) < tc.wantDistinct {
				t.Errorf("%d distinct texts of 50, want at least %d", len(distinct), tc.wantDistinct)
			}
		})
	}
}
