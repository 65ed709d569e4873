package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/experimentapi"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

// BenchmarkExperimentRun runs an experiment of 1 000 rows with three
// prebuilt evaluators through the real API on SQLite, as Traceloop's SDK
// does (a task per row, then one execution per evaluator), from 8
// clients at once: one iteration is one whole run.
func BenchmarkExperimentRun(b *testing.B) {
	store, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	s := newTestServerOn(b, store, func(o *Options) {
		mountDatasets(o)
		o.Mounts = append(o.Mounts, experimentapi.New(o.Store, prebuiltOnly))
	})
	post := func(method, path string, body any) map[string]any {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(raw))
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
		return out
	}
	const rows, clients = 1000, 8
	evals := []string{"toxicity-detector", "pii-detector", "char-count"}
	for b.Loop() {
		init := post("PUT", "/v2/experiments/initialize", map[string]any{"slug": "bench", "evaluator_slugs": evals})
		run := init["run"].(map[string]any)["id"].(string)
		base := "/v2/experiments/bench/runs/" + run
		work := make(chan int)
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range work {
					text := fmt.Sprintf("Thanks for asking! Order %d ships tomorrow; write to help@example.com if it does not arrive.", i)
					task := post("POST", base+"/tasks", map[string]any{"input": map[string]any{"q": i}, "output": map[string]any{"text": text}})
					for _, e := range evals {
						post("POST", base+"/tasks/"+task["id"].(string), map[string]any{"evaluator_slug": e,
							"input_schema_mapping": map[string]any{"text": map[string]any{"source": text}}})
					}
				}
			}()
		}
		for i := range rows {
			work <- i
		}
		close(work)
		wg.Wait()
	}
}
