package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ackLedger records the ids of the acknowledged spans. A nil ledger
// records nothing.
type ackLedger struct {
	mu  sync.Mutex
	ids map[string]bool // trace id + span id, hex
}

func newAckLedger() *ackLedger { return &ackLedger{ids: map[string]bool{}} }

func (l *ackLedger) add(spans []sdktrace.ReadOnlySpan) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range spans {
		l.ids[s.SpanContext().TraceID().String()+s.SpanContext().SpanID().String()] = true
	}
}

// spanPage is the part of a GET /v2/warehouse/spans answer verify reads.
type spanPage struct {
	Spans struct {
		Data []struct {
			TraceID string `json:"trace_id"`
			SpanID  string `json:"span_id"`
		} `json:"data"`
		TotalResults int64  `json:"total_results"`
		NextCursor   string `json:"next_cursor"`
	} `json:"spans"`
}

// verify waits until the number of spans stored since from stops growing
// (for 3 s, at most o.verifyWait), then reads them all through the API and
// counts the acknowledged spans that are not among them.
func verify(ctx context.Context, o options, l *ackLedger, from time.Time) (stored, lost int64, err error) {
	client := &http.Client{Timeout: time.Minute}
	params := url.Values{"from_timestamp_sec": {fmt.Sprint(from.Unix())}, "limit": {"1"}}
	deadline := time.Now().Add(o.verifyWait)
	last, stableSince := int64(-1), time.Now()
	for {
		var page spanPage
		if err := getSpans(ctx, client, o, params, &page); err != nil {
			return 0, 0, err
		}
		if page.Spans.TotalResults != last {
			last, stableSince = page.Spans.TotalResults, time.Now()
		}
		if time.Since(stableSince) >= 3*time.Second || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	seen := make(map[string]bool, len(l.ids))
	params.Set("limit", "1000")
	for {
		var page spanPage
		if err := getSpans(ctx, client, o, params, &page); err != nil {
			return 0, 0, err
		}
		for _, s := range page.Spans.Data {
			seen[s.TraceID+s.SpanID] = true
		}
		if page.Spans.NextCursor == "" {
			break
		}
		params.Set("cursor", page.Spans.NextCursor)
	}
	for id := range l.ids {
		if !seen[id] {
			lost++
		}
	}
	return int64(len(seen)), lost, nil
}

func getSpans(ctx context.Context, client *http.Client, o options, params url.Values, page *spanPage) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+o.verifyAPI+"/v2/warehouse/spans?"+params.Encode(), nil)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+o.apiKey)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("verify: query spans: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("verify: query spans: HTTP %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(page); err != nil {
		return fmt.Errorf("verify: decode spans: %w", err)
	}
	return nil
}
