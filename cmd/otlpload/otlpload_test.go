package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcollector"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestSpanBatchesHaveUniqueIDsAndBothConventions(t *testing.T) {
	g := newSpanGen(1, 42, 1024, 4096)
	ids := map[string]bool{}
	keys := map[string]int{}
	for range 10 {
		for _, s := range g.batch(20) {
			id := s.SpanContext().TraceID().String() + s.SpanContext().SpanID().String()
			if ids[id] {
				t.Fatalf("duplicate trace/span id %s", id)
			}
			ids[id] = true
			for _, kv := range s.Attributes() {
				if strings.HasSuffix(string(kv.Key), ".content") {
					keys[strings.SplitN(string(kv.Key), ".", 3)[0]+"."+strings.SplitN(string(kv.Key), ".", 3)[1]]++
				}
			}
		}
	}
	for _, prefix := range []string{"gen_ai.prompt", "gen_ai.completion", "llm.prompts", "llm.completions"} {
		if keys[prefix] == 0 {
			t.Errorf("no %s.*.content attribute in 200 spans (%v)", prefix, keys)
		}
	}
}

func TestParseOptionsRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"protocol", []string{"-protocol", "udp"}, `-protocol "udp": want http or grpc`},
		{"negative rate", []string{"-rate", "-5"}, "-rate -5: must not be negative"},
		{"zero duration", []string{"-duration", "0s"}, "-duration 0s: want more than 0"},
		{"zero batch", []string{"-batch", "0"}, "-batch 0, -concurrency 4: both must be at least 1"},
		{"sizes", []string{"-min-bytes", "500", "-max-bytes", "100"}, "-min-bytes 500, -max-bytes 100"},
		{"unknown flag", []string{"-nope"}, "parse flags: flag provided but not defined: -nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseOptions(tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parseOptions(%v) = %v, want error containing %q", tc.args, err, tc.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"acknowledged", nil, ""},
		{"grpc unavailable", status.Error(codes.Unavailable, "data refused due to high memory usage"), "refused"},
		{"grpc resource exhausted", status.Error(codes.ResourceExhausted, "full"), "refused"},
		{"grpc unauthenticated", status.Error(codes.Unauthenticated, "no key"), "error"},
		{"http 503", errors.New("traces export: retry-able request failure: body: data refused"), "refused"},
		{"http 401", fmt.Errorf("traces export: failed to send to http://x/v1/traces: 401 Unauthorized"), "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want {
				t.Errorf("classify(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

// TestSetupsMode: with -setups, otlpload creates the setups through a real
// collector's API, waits until they are loaded, then sends spans none of
// them selects.
func TestSetupsMode(t *testing.T) {
	c := testcollector.Start(t, testcollector.DefaultConfig)
	var out bytes.Buffer
	err := run(context.Background(), []string{"-endpoint", c.OTLPHTTP, "-api", c.API, "-api-key", testcollector.DefaultAPIKey,
		"-setups", "25", "-duration", "1s", "-rate", "200", "-batch", "10"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("report %q: %v", out.String(), err)
	}
	if rep.Setups != 25 || rep.SetupSeconds <= 0 || rep.Acknowledged == 0 || rep.Failed != 0 {
		t.Errorf("report = %+v", rep)
	}
	type setup struct {
		Status string `json:"status"`
	}
	// The list is {"data": [...]} or a bare array.
	var page struct {
		Data []setup `json:"data"`
	}
	resp := c.Call("GET", "/v2/auto-monitor-setups?limit=100", testcollector.DefaultAPIKey, nil)
	if bytes.HasPrefix(bytes.TrimSpace(resp.Body), []byte("[")) {
		resp.JSON(t, &page.Data)
	} else {
		resp.JSON(t, &page)
	}
	if len(page.Data) != 25 {
		t.Fatalf("the collector has %d setups, want 25", len(page.Data))
	}
	for _, s := range page.Data {
		if s.Status != "waiting_for_spans" {
			t.Errorf("setup status %q after the run, want waiting_for_spans (loaded, never matched)", s.Status)
		}
	}
}
