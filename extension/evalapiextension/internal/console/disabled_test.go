package console_test

import (
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// TestConsoleSwitchedOff: with ui.enabled false the collector serves no
// console; / and /ui/ are the API's JSON 404s, the API itself still works.
func TestConsoleSwitchedOff(t *testing.T) {
	cfg := strings.Replace(consoleConfig, "    setup_poll_interval: 200ms\n", "    setup_poll_interval: 200ms\n    ui: {enabled: false}\n", 1)
	c := testcollector.Start(t, cfg)
	for _, path := range []string{"/", "/ui/login", "/ui/traces", "/ui/static/console.css"} {
		r := c.Call("GET", path, "", nil)
		if r.Status != 404 || r.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(r.Body), "no such endpoint") {
			t.Errorf("GET %s with the console off = %d %s %s", path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
	if r := c.Call("GET", "/v2/evaluators", prodKey, nil); r.Status != 200 {
		t.Errorf("API with the console off = %d", r.Status)
	}
	on := testcollector.Start(t, consoleConfig)
	if r := on.Call("GET", "/ui/login", "", nil); r.Status != 200 || !strings.Contains(string(r.Body), `name="api_key"`) {
		t.Errorf("GET /ui/login with the console on (the default) = %d", r.Status)
	}
}
