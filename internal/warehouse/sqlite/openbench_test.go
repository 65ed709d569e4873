package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkOpenNew opens (and closes) a new store: the file created and
// every migration applied.
func BenchmarkOpenNew(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	for i := 0; b.Loop(); i++ {
		st, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("w%d.db", i)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
