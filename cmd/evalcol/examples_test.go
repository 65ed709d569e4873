package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/confmap/confmaptest"
)

// maxReadHeaderTimeout is the longest read_header_timeout an example may
// set: a client dribbling header lines holds a connection that long.
const maxReadHeaderTimeout = 30 * time.Second

// TestExamplesBoundSlowClients: every example with an OTLP/HTTP receiver
// bounds how long a slow client may take to send its headers and its
// request, and how long an idle connection stays open (without these a
// client that sends a header line every few seconds holds a connection of
// the receiver for ever). The API server's bounds are the evalapi
// extension's defaults (its config test).
func TestExamplesBoundSlowClients(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("examples: %v, %v", files, err)
	}
	checked := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			conf, err := confmaptest.LoadConf(f)
			if err != nil {
				t.Fatal(err)
			}
			receivers, _ := conf.Get("receivers").(map[string]any)
			for id := range receivers {
				if id != "otlp" && !strings.HasPrefix(id, "otlp/") {
					continue
				}
				base := "receivers::" + id + "::protocols::http"
				if !conf.IsSet(base) {
					continue
				}
				checked++
				for _, field := range []struct {
					key string
					max time.Duration
				}{
					{base + "::read_header_timeout", maxReadHeaderTimeout},
					{base + "::read_timeout", 0},
					{base + "::keepalive::idle_timeout", 0},
				} {
					d, err := duration(conf.Get(field.key))
					switch {
					case err != nil:
						t.Errorf("%s: %v", field.key, err)
					case d <= 0:
						t.Errorf("%s: must be set to a positive duration, got %s", field.key, d)
					case field.max > 0 && d > field.max:
						t.Errorf("%s: %s, want at most %s", field.key, d, field.max)
					}
				}
			}
		})
	}
	if checked < len(files) {
		t.Errorf("checked %d OTLP/HTTP receivers in %d examples; every example has one", checked, len(files))
	}
}

// duration reads a duration value of a loaded YAML file.
func duration(v any) (time.Duration, error) {
	switch v := v.(type) {
	case nil:
		return 0, fmt.Errorf("not set")
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration: %w", v, err)
		}
		return d, nil
	default:
		return 0, fmt.Errorf("%v (%T) is not a duration", v, v)
	}
}
