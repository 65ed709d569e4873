package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// Hostile-input tests of issue 32, second pass (validation gaps): each is
// a 400 naming the field, and nothing is stored or changed.

const authAdmin = "Bearer " + keyAdmin

func TestHostileBackfillAfterItsEnd(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	// A backfill evaluates the spans stored from backfill_from_timestamp_sec
	// until the setup is made: a later start used to be accepted and
	// reported done, having looked at nothing.
	future := time.Now().Add(time.Hour).Unix()
	body := fmt.Sprintf(`{"entity_type":"workflow","entity_value":"wf","evaluators":["char-count"],"external_id":"bf","backfill_from_timestamp_sec":%d}`, future)
	status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authA, []byte(body))
	requireError(t, status, got, http.StatusBadRequest, fmt.Sprintf("backfill_from_timestamp_sec: %d is after now (", future))
	requireError(t, status, got, http.StatusBadRequest, "a backfill evaluates the spans stored from then until now")
	requireUnchanged(t, s, before)
}

func TestHostileMetricCursorPastAnySnapshot(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	// A negative cursor was a 400 and 2^63-1 an empty 200: both are
	// cursors this API never returned. Cursors are sealed to their
	// environment now, so an integer other than 0 is refused before the
	// warehouse reads it (the stores also refuse a snapshot past their
	// own: their tests).
	for _, tc := range []struct{ name, method, path, body string }{
		{"max int64 in the body", http.MethodPost, "/v2/metrics", `{"cursor": 9223372036854775807}`},
		{"max int64 as a string", http.MethodPost, "/v2/metrics", `{"cursor": "9223372036854775807"}`},
		{"max int64 in the query", http.MethodGet, "/v2/metrics?cursor=9223372036854775807", ""},
		{"snapshot just past the store's", http.MethodGet, fmt.Sprintf("/v2/metrics?cursor=%d", int64(1000)<<22|1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, tc.method, tc.path, authA, []byte(tc.body))
			requireError(t, status, got, http.StatusBadRequest, "integer cursors other than 0 are not accepted")
			requireUnchanged(t, s, before)
		})
	}
	// A real cursor still pages.
	status, got := s.do(t, http.MethodPost, "/v2/metrics", authA, []byte(`{"from_timestamp_sec": 0}`))
	if status != http.StatusOK {
		t.Fatalf("first page: %d %v", status, got)
	}
}

func TestHostileNaNNumericFilter(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	spans := func(filters string) string {
		return "/v2/warehouse/spans?from_timestamp_sec=0&filters=" + url.QueryEscape(filters)
	}
	for _, tc := range []struct{ name, method, path, body, msg string }{
		{"span greater_than NaN", http.MethodGet, spans(`[{"id":"i","operator":"greater_than","value":"NaN"}]`), "",
			`operator greater_than needs a numeric value, got "NaN"`},
		{"span less_than Inf", http.MethodGet, spans(`[{"id":"duration","operator":"less_than","value":"Inf"}]`), "",
			`operator less_than needs a numeric value, got "Inf"`},
		{"metric greater_than NaN", http.MethodPost, "/v2/metrics", `{"filters":[{"field":"numeric_value","operator":"greater_than","value":"NaN"}]}`,
			`operator greater_than needs a numeric value, got "NaN"`},
		{"metric number equals -Infinity", http.MethodPost, "/v2/metrics", `{"filters":[{"field":"numeric_value","operator":"equals","value":"-Infinity","valueType":"number"}]}`,
			`valueType number needs a numeric value, got "-Infinity"`},
		{"metric number in NaN", http.MethodPost, "/v2/metrics", `{"filters":[{"field":"numeric_value","operator":"in","values":["1","nan"],"valueType":"number"}]}`,
			`values[1]: valueType number needs a numeric value, got "nan"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, tc.method, tc.path, authA, []byte(tc.body))
			requireError(t, status, got, http.StatusBadRequest, tc.msg)
			requireUnchanged(t, s, before)
		})
	}
}

func TestHostileOrgNameInvalidUTF8(t *testing.T) {
	s := newHostileServer(t)
	before := snapshot(t, s)
	for _, tc := range []struct{ name, body, msg string }{
		{"invalid byte", "{\"org_name\":\"acme\xff\"}", "org_name: is not valid UTF-8 text"},
		{"lone surrogate escape", `{"org_name":"acme\ud800"}`, "org_name: is not valid UTF-8 text"},
		{"control character", `{"org_name":"ac\u0000me"}`, "org_name: must not contain control characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, got := s.do(t, http.MethodPost, "/v2/organizations", authAdmin, []byte(tc.body))
			requireError(t, status, got, http.StatusBadRequest, tc.msg)
			orgs, err := s.store.ListOrganizations(context.Background())
			if err != nil || len(orgs) != 0 {
				t.Fatalf("organizations stored: %v, %v; want none", orgs, err)
			}
			requireUnchanged(t, s, before)
		})
	}
	status, got := s.do(t, http.MethodPost, "/v2/organizations", authAdmin, []byte(`{"org_name":"Ünïcode Org ✓"}`))
	if status != http.StatusCreated {
		t.Fatalf("a valid UTF-8 name: %d %v, want 201", status, got)
	}
}
