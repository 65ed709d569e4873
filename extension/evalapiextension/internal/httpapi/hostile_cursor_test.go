package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Issue #32, item 6: the warehouse's cursors carry insertion sequence
// numbers shared by every tenant, so a tenant could watch another's
// traffic volume in them, and another tenant's metric cursor was taken as
// an offset. The API's cursors are sealed to the environment: opaque, of
// one length whatever the volume, and refused (400, a clear message) by
// any other environment.

// otherTenantWrites stores n spans, n metric points and n setups of
// env-b, as B's traffic.
func otherTenantWrites(t *testing.T, s *testServer, n, round int) {
	t.Helper()
	ctx := context.Background()
	spans := make([]warehouse.Span, n)
	pts := make([]warehouse.MetricPoint, n)
	for i := range n {
		id := round*100000 + i + 100
		spans[i] = warehouse.Span{Environment: "env-b", Timestamp: int64(1_700_000_100_000 + id), TraceID: fmt.Sprintf("%032x", id),
			SpanID: fmt.Sprintf("%016x", id), SpanName: "chat", SpanKind: "SPAN_KIND_CLIENT", ServiceName: "svc-b", StatusCode: "STATUS_CODE_UNSET"}
		v := float64(i)
		pts[i] = warehouse.MetricPoint{Environment: "env-b", OrganizationID: "org-b", MetricName: "char-count.char_count", Source: warehouse.SourceEvaluator,
			EventTime: int64(1_700_000_100_000 + id), NumericValue: &v, TraceID: spans[i].TraceID, SpanID: spans[i].SpanID}
	}
	if err := s.store.WriteSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if err := s.store.WriteMetricPoints(ctx, pts); err != nil {
		t.Fatal(err)
	}
	for i := range min(n, 20) {
		body := fmt.Sprintf(`{"external_id": "b-%d-%d", "entity_type": "workflow", "entity_value": "wf", "evaluators": ["char-count"]}`, round, i)
		if status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authB, []byte(body)); status != http.StatusCreated {
			t.Fatalf("B's setup: %d %v", status, got)
		}
	}
}

// aCursors returns env-a's first-page cursors of spans, metrics and
// setups.
func aCursors(t *testing.T, s *testServer) (span, metric, setup string) {
	t.Helper()
	status, got := s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0&limit=1", authA, nil)
	_, _, span = spanPage(t, status, got)
	status, got = s.do(t, http.MethodPost, "/v2/metrics", authA, []byte(`{"from_timestamp_sec": 0, "limit": 1}`))
	if status != http.StatusOK {
		t.Fatalf("metrics: %d %v", status, got)
	}
	metric, _ = got["metrics"].(map[string]any)["next_cursor"].(string)
	status, _, setup = s.list(t, "/v2/auto-monitor-setups?limit=1", authA)
	if status != http.StatusOK || span == "" || metric == "" || setup == "" {
		t.Fatalf("env-a's cursors: span %q, metric %q, setup %q (setups status %d)", span, metric, setup, status)
	}
	return span, metric, setup
}

func TestHostileCursorsRevealNothing(t *testing.T) {
	s := newHostileServer(t)
	ctx := context.Background()
	// env-a: a second metric point and two setups, so that each listing
	// has a next page.
	v := 0.5
	if err := s.store.WriteMetricPoints(ctx, []warehouse.MetricPoint{{Environment: "env-a", OrganizationID: "org-a", MetricName: "char-count.char_count",
		Source: warehouse.SourceEvaluator, EventTime: 1_700_000_001_000, NumericValue: &v, TraceID: fmt.Sprintf("%032x", 2), SpanID: fmt.Sprintf("%016x", 2)}}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		body := fmt.Sprintf(`{"external_id": "a-%d", "entity_type": "workflow", "entity_value": "wf", "evaluators": ["char-count"]}`, i)
		if status, got := s.do(t, http.MethodPost, "/v2/auto-monitor-setups", authA, []byte(body)); status != http.StatusCreated {
			t.Fatalf("A's setup: %d %v", status, got)
		}
	}

	span1, metric1, setup1 := aCursors(t, s)
	otherTenantWrites(t, s, 1500, 1)
	span2, metric2, setup2 := aCursors(t, s)

	t.Run("no count in a cursor", func(t *testing.T) {
		for _, c := range []struct{ kind, before, after string }{{"span", span1, span2}, {"metric", metric1, metric2}, {"setup", setup1, setup2}} {
			if _, err := strconv.ParseInt(c.after, 10, 64); err == nil {
				t.Errorf("the %s cursor %q is a number", c.kind, c.after)
			}
			if len(c.before) != len(c.after) {
				t.Errorf("the %s cursor at the same position grew from %d to %d characters while another tenant wrote", c.kind, len(c.before), len(c.after))
			}
			if c.before == c.after {
				t.Errorf("the %s cursor is the same string twice: equal positions would show", c.kind)
			}
		}
		// The warehouse's own span cursor does not show through.
		if _, _, err := warehouse.DecodeSpanCursor(warehouse.SpanQuery{Cursor: span2}); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("the span cursor decodes as the warehouse's: %v", err)
		}
	})

	t.Run("another tenant's cursor is a 400", func(t *testing.T) {
		before := snapshot(t, s)
		const msg = "cursor: the cursor was not issued for this environment and listing"
		status, got := s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0&limit=1&cursor="+url.QueryEscape(span2), authB, nil)
		requireError(t, status, got, http.StatusBadRequest, msg)
		for _, body := range []string{
			`{"from_timestamp_sec": 0, "limit": 1, "cursor": "` + metric2 + `"}`,
		} {
			status, got = s.do(t, http.MethodPost, "/v2/metrics", authB, []byte(body))
			requireError(t, status, got, http.StatusBadRequest, msg)
		}
		status, got = s.do(t, http.MethodGet, "/v2/metrics?from_timestamp_sec=0&limit=1&cursor="+url.QueryEscape(metric2), authB, nil)
		requireError(t, status, got, http.StatusBadRequest, msg)
		status, got = s.do(t, http.MethodGet, "/v2/auto-monitor-setups?limit=1&cursor="+url.QueryEscape(setup2), authB, nil)
		requireError(t, status, got, http.StatusBadRequest, msg)
		// One listing's cursor is no cursor of another.
		status, got = s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0&limit=1&cursor="+url.QueryEscape(metric2), authA, nil)
		requireError(t, status, got, http.StatusBadRequest, msg)
		if after := snapshot(t, s); !reflect.DeepEqual(after, before) {
			t.Error("the store changed")
		}
	})

	t.Run("integer metric cursors", func(t *testing.T) {
		// What a cursor used to be: snapshot<<22 | offset. Only 0 (the
		// first page, as Traceloop's client sends) is still an integer.
		old, _ := warehouse.EncodeMetricCursor(5, 1)
		status, got := s.do(t, http.MethodPost, "/v2/metrics", authB, []byte(fmt.Sprintf(`{"from_timestamp_sec": 0, "cursor": %d}`, old)))
		requireError(t, status, got, http.StatusBadRequest, "cursor: integer cursors other than 0 are not accepted")
		for _, first := range []string{`0`, `"0"`, `""`, `null`} {
			status, got := s.do(t, http.MethodPost, "/v2/metrics", authA, []byte(`{"from_timestamp_sec": 0, "limit": 1, "cursor": `+first+`}`))
			if status != http.StatusOK || got["metrics"].(map[string]any)["total_results"] != 2.0 {
				t.Errorf("cursor %s: %d %v; want the first page", first, status, got)
			}
		}
	})

	t.Run("a tenant's own cursors work", func(t *testing.T) {
		status, got := s.do(t, http.MethodGet, "/v2/warehouse/spans?from_timestamp_sec=0&limit=1&cursor="+url.QueryEscape(span1), authA, nil)
		data, total, _ := spanPage(t, status, got)
		if len(data) != 1 || total != 3 {
			t.Errorf("span page 2 by an old cursor: %d spans of %v", len(data), total)
		}
		status, got = s.do(t, http.MethodPost, "/v2/metrics", authA, []byte(`{"from_timestamp_sec": 0, "limit": 1, "cursor": "`+metric1+`"}`))
		if m, _ := got["metrics"].(map[string]any); status != http.StatusOK || m["next_cursor"] != "" || len(m["data"].([]any)) != 1 {
			t.Errorf("metric page 2: %d %v", status, got)
		}
		status, list, next := s.list(t, "/v2/auto-monitor-setups?limit=1&cursor="+url.QueryEscape(setup1), authA)
		if status != http.StatusOK || len(list) != 1 || next != "" || list[0]["external_id"] != "a-1" {
			t.Errorf("setup page 2: %d %v next %q", status, list, next)
		}
	})
}
