package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// createSetups creates n auto monitor setups through the /v2 API at api
// (host:port) that select workflows otlpload's spans never carry, then waits
// until the collector has loaded them (the last one left pending). It
// returns how long that took.
func createSetups(ctx context.Context, api, key string, n int) (time.Duration, error) {
	start := time.Now()
	client := &http.Client{Timeout: 30 * time.Second}
	var next atomic.Int64
	var lastID string
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				body, _ := json.Marshal(map[string]any{
					"entity_type": "workflow", "entity_value": fmt.Sprintf("no-such-workflow-%d", i),
					"external_id": fmt.Sprintf("otlpload-%d", i), "evaluators": []string{"toxicity-detector", "char-count"},
				})
				var created struct {
					ID string `json:"id"`
				}
				if err := call(ctx, client, http.MethodPost, "http://"+api+"/v2/auto-monitor-setups", key, body, http.StatusCreated, &created); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("create setup %d: %w", i, err)
					}
					mu.Unlock()
					return
				}
				if i == n-1 {
					mu.Lock()
					lastID = created.ID
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	// Setups are loaded in one pass over all of them; the last one leaving
	// pending means the pass reached it.
	for {
		var s struct {
			Status string `json:"status"`
		}
		if err := call(ctx, client, http.MethodGet, "http://"+api+"/v2/auto-monitor-setups/"+lastID, key, nil, http.StatusOK, &s); err != nil {
			return 0, fmt.Errorf("read setup %s: %w", lastID, err)
		}
		if s.Status != "pending" {
			break
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	select { // the compiled monitors are installed right after the pass
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(2 * time.Second):
	}
	return time.Since(start), nil
}

// call sends one API request and decodes the answer into out when it has
// the wanted status.
func call(ctx context.Context, client *http.Client, method, url, key string, body []byte, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}
