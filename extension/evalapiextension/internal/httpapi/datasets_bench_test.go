package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// BenchmarkDatasetRowsPage reads pages of 100 rows of a 100 000-row
// dataset through the real API on SQLite, at offsets spread over the
// whole dataset (the SDK's getRows(limit, offset)).
func BenchmarkDatasetRowsPage(b *testing.B) {
	store, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	s := newTestServerOn(b, store, mountDatasets)
	call := func(method, path string, body []byte) int {
		req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+keyA)
		resp, err := s.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode >= 300 {
			b.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
		}
		return len(out["rows"].([]any))
	}
	call("POST", "/v2/datasets", []byte(`{"name":"big","columns":[{"name":"question"},{"name":"answer"}]}`))
	const rows, batch = 100_000, 1000
	for i := 0; i < rows; i += batch {
		var rs []map[string]any
		for j := range batch {
			rs = append(rs, map[string]any{"question": fmt.Sprintf("question %d about an order", i+j), "answer": "the answer to it"})
		}
		body, _ := json.Marshal(map[string]any{"rows": rs})
		call("POST", "/v2/datasets/big/rows", body)
	}
	n := 0
	for b.Loop() {
		offset := (n * 7919) % (rows - 100)
		if got := call("GET", fmt.Sprintf("/v2/datasets/big/rows?limit=100&offset=%d", offset), nil); got != 100 {
			b.Fatalf("offset %d: %d rows", offset, got)
		}
		n++
	}
}
