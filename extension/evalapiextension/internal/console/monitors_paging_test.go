package console

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
	"github.com/evalcol/evalcol/internal/tenant"
)

// TestMonitorsPaging: the monitors page lists setups a page at a time
// (setupsPerPage, and at most setups.MaxPageBytes of them), every setup
// once, with next-page links sealed to the session's environment. Before
// (issue #32, item 1) it rendered all of an environment's setups: 1 000
// setups of 125 KB made a 65 MB page.
func TestMonitorsPaging(t *testing.T) {
	s := newTestServer(t, false, nil)
	ctx := context.Background()
	ta := tenant.Tenant{Environment: "env-a", OrganizationID: "org-a", ProjectID: "p-a"}
	const n = 120
	for i := range n {
		req, err := setups.ParseRequest([]byte(fmt.Sprintf(`{"external_id": "ext-%03d", "entity_type": "workflow", "entity_value": "wf", "evaluators": ["char-count"]}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.setups.Create(ctx, ta, req); err != nil {
			t.Fatal(err)
		}
	}
	c := s.client(t)
	s.login(t, c, keyA)
	row := regexp.MustCompile(`<tr data-setup="([^"]+)">`)
	next := regexp.MustCompile(`<a href="([^"]+)" class="button" id="next-setups">`)
	seen := map[string]int{}
	path, pages := "/ui/monitors", 0
	for path != "" {
		if pages++; pages > 5 {
			t.Fatal("paging does not end")
		}
		a := do(t, c, "GET", s.URL+strings.ReplaceAll(path, "&amp;", "&"), nil)
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d", path, a.status)
		}
		rows := row.FindAllStringSubmatch(a.body, -1)
		if len(rows) > setupsPerPage {
			t.Errorf("page %d lists %d setups, over %d", pages, len(rows), setupsPerPage)
		}
		for _, m := range rows {
			seen[m[1]]++
		}
		path = ""
		if m := next.FindStringSubmatch(a.body); m != nil {
			path = m[1]
		}
	}
	if len(seen) != n || pages != 3 {
		t.Errorf("listed %d setups in %d pages, want %d in 3", len(seen), pages, n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("setup %s listed %d times", id, k)
		}
	}
	// The next link of env-a's session is no cursor for env-b's.
	first := do(t, c, "GET", s.URL+"/ui/monitors", nil)
	link := strings.ReplaceAll(next.FindStringSubmatch(first.body)[1], "&amp;", "&")
	cb := s.client(t)
	s.login(t, cb, keyB)
	if a := do(t, cb, "GET", s.URL+link, nil); a.status != http.StatusBadRequest || !strings.Contains(a.body, "not issued for this environment") {
		t.Errorf("env-a's setups cursor in env-b's session: %d", a.status)
	}
}
