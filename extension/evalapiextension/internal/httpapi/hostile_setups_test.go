package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/setups"
)

// largestSetup is the body of a setup at every request limit: 63 unknown
// evaluator names of 256 bytes, a 16 KiB selector and a 1 KiB entity
// value (issue #32, item 1): about 125 KB stored.
func largestSetup(externalID string) string {
	names := make([]string, 63)
	for i := range names {
		names[i] = fmt.Sprintf("%q", fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 252)))
	}
	var kv []string
	for i := range 60 {
		kv = append(kv, fmt.Sprintf(`"key-%02d":%q`, i, strings.Repeat("v", 240)))
	}
	return `{"external_id":"` + externalID + `","entity_type":"workflow","entity_value":"` + strings.Repeat("e", 1024) +
		`","evaluators":[` + strings.Join(names, ",") + `],"selector":{` + strings.Join(kv, ",") + `}}`
}

// TestHostileSetupBytesCap: an environment's setups may hold at most
// max_setup_bytes_per_environment bytes together: a create or an update
// over it is a 409 naming the field and stores nothing, and another
// environment is not limited by it.
func TestHostileSetupBytesCap(t *testing.T) {
	const limit = 400 << 10
	s, _ := newSetupServer(t, func(o *setups.Options) { o.MaxBytesPerEnvironment = limit })
	ctx := context.Background()
	created := 0
	for i := range 10 {
		status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authA, []byte(largestSetup(fmt.Sprintf("big-%d", i))))
		if status == http.StatusConflict {
			requireError(t, status, got, http.StatusConflict, "max_setup_bytes_per_environment is 409600")
			break
		}
		if status != http.StatusCreated {
			t.Fatalf("create %d: %d %v", i, status, got)
		}
		created++
	}
	used, err := s.store.SetupBytes(ctx, "env-a")
	if err != nil || used > limit {
		t.Fatalf("env-a's setups hold %d bytes (%v), over the cap %d", used, err, limit)
	}
	// As many as fit: one more (each stored setup is about as large as
	// the others; its bindings' messages name the catalogue) would not.
	if created < 2 || used+used/int64(created) <= limit {
		t.Fatalf("created %d setups of %d bytes in all under a %d-byte cap: the cap refused too early", created, used, limit)
	}
	if n, _ := s.store.CountSetups(ctx, "env-a"); n != created {
		t.Errorf("the refused create stored something: %d setups, %d created", n, created)
	}
	// A small setup still fits; an update growing it over the cap does
	// not, and leaves it as it was.
	status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authA, []byte(`{"external_id":"small","entity_type":"workflow","entity_value":"wf","evaluators":["char-count"]}`))
	if status != http.StatusCreated {
		t.Fatalf("small setup: %d %v", status, got)
	}
	before, _ := s.store.GetSetup(ctx, "env-a", got["id"].(string))
	status, got = s.do(t, http.MethodPut, "/v2/auto-monitor-setups/small", authA, []byte(largestSetup("small")))
	requireError(t, status, got, http.StatusConflict, "max_setup_bytes_per_environment")
	// (The service records binding statuses as new versions meanwhile:
	// compare what the request would have changed.)
	if after, _ := s.store.GetSetup(ctx, "env-a", before.ID); after.EntityValue != "wf" || len(after.Evaluators) != 1 || len(after.InitRules) != len(before.InitRules) {
		t.Errorf("the refused update changed the setup: entity %q, %d evaluators, %d rules", after.EntityValue, len(after.Evaluators), len(after.InitRules))
	}
	// Another environment has its own budget.
	if status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authB, []byte(largestSetup("b"))); status != http.StatusCreated {
		t.Errorf("env-b's first large setup: %d %v", status, got)
	}
	// The listing reads at most one page of bytes, whatever the limit.
	st, _, body := s.send(t, http.MethodGet, "/v2/auto-monitor-setups?limit=1000", authA, nil)
	if st != http.StatusOK || len(body) > setups.MaxPageBytes+1024 {
		t.Errorf("listing: %d, %d bytes", st, len(body))
	}
}
