package monitoringstatus

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
	"github.com/evalcol/evalcol/internal/warehouse/sqlite"
)

var prod = tenant.Tenant{Environment: "prod", OrganizationID: "org-1", ProjectID: "proj-1"}

func span(env, trace, spanID string, evaluated bool) warehouse.Span {
	s := warehouse.Span{Environment: env, TraceID: trace, SpanID: spanID}
	if evaluated {
		s.Evaluations = []warehouse.Evaluation{{Name: "char-count"}}
	}
	return s
}

func matched(env string, trace byte, spanID byte, ok, failed int) MatchedSpan {
	m := MatchedSpan{Environment: env, OK: ok, Failed: failed}
	m.TraceID[15], m.SpanID[7] = trace, spanID
	if failed > 0 {
		m.Error = "timeout"
	}
	return m
}

// hexIDs are the ids of matched(env, trace, span) as the exporter sees them.
func hexIDs(trace, spanID byte) (string, string) {
	const digits = "0123456789abcdef"
	tid := strings.Repeat("0", 30) + string([]byte{digits[trace>>4], digits[trace&15]})
	sid := strings.Repeat("0", 14) + string([]byte{digits[spanID>>4], digits[spanID&15]})
	return tid, sid
}

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "w.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestLagThresholds: OK up to 3 minutes of lag, DEGRADED up to 10, ERROR
// above, with reasons in words whenever not OK; the lag is the age of the
// oldest matched span not stored yet, and evaluated_up_to the time up to
// which every matched span was stored.
func TestLagThresholds(t *testing.T) {
	now := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		age        time.Duration
		status     string
		reasonPart string
	}{
		{0, StatusOK, ""},
		{3 * time.Minute, StatusOK, ""},
		{3*time.Minute + time.Second, StatusDegraded, "evaluation is 3 minutes behind"},
		{10 * time.Minute, StatusDegraded, "evaluation is 10 minutes behind"},
		{10*time.Minute + time.Second, StatusError, "evaluation is 10 minutes behind, more than the 10 minutes an ERROR allows"},
	} {
		tr := NewTracker()
		// Stored earlier: an evaluated span and, later, unmatched ones.
		tid, sid := hexIDs(1, 1)
		tr.Matched(now.Add(-20*time.Minute), []MatchedSpan{matched("prod", 1, 1, 1, 0)})
		tr.Stored(now.Add(-20*time.Minute), []warehouse.Span{span("prod", tid, sid, true)})
		tr.Stored(now.Add(-time.Second), []warehouse.Span{span("prod", "t", "s", false)})
		if tc.age > 0 {
			tr.Matched(now.Add(-tc.age), []MatchedSpan{matched("prod", 2, 2, 1, 0), matched("prod", 3, 3, 1, 0)})
		}
		s := Compute(prod, tr.Snapshot("me", now), SetupSummary{}, now, time.Minute)
		if s.Status != tc.status || s.LagInSeconds != int64(tc.age/time.Second) {
			t.Errorf("age %s: status %s lag %ds, want %s %ds (%v)", tc.age, s.Status, s.LagInSeconds, tc.status, int64(tc.age/time.Second), s.Reasons)
		}
		if tc.reasonPart == "" && len(s.Reasons) != 0 || tc.reasonPart != "" && (len(s.Reasons) != 1 || !strings.Contains(s.Reasons[0], tc.reasonPart)) {
			t.Errorf("age %s: reasons %q, want one containing %q", tc.age, s.Reasons, tc.reasonPart)
		}
		wantUpTo := now.Add(-time.Second)
		wantSpans := int64(0)
		if tc.age > 0 {
			wantUpTo, wantSpans = now.Add(-tc.age), 2
		}
		if s.EvaluatedUpTo == nil || !s.EvaluatedUpTo.Equal(wantUpTo) || s.LagInSpans != wantSpans {
			t.Errorf("age %s: evaluated_up_to %v, lag_in_spans %d; want %v, %d", tc.age, s.EvaluatedUpTo, s.LagInSpans, wantUpTo, wantSpans)
		}
		if s.LatestSpanReceived == nil || !s.LatestSpanReceived.Equal(now.Add(-time.Second)) || s.OrganizationID != "org-1" || s.Project != "proj-1" || s.Environment != "prod" {
			t.Errorf("age %s: %+v", tc.age, s)
		}
	}
}

// TestStatusErrors: nothing could be evaluated (every binding failed, the
// warehouse refused writes, every evaluation failed, spans lost) is an
// ERROR with the reason in words; nothing evaluated yet is a null
// evaluated_up_to.
func TestStatusErrors(t *testing.T) {
	now := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	tid, sid := hexIDs(5, 5)

	tr := NewTracker()
	tr.Stored(now.Add(-time.Minute), []warehouse.Span{span("prod", "t", "s", false)})
	s := Compute(prod, tr.Snapshot("me", now), SetupSummary{}, now, time.Minute)
	if s.Status != StatusOK || s.EvaluatedUpTo != nil || s.LatestSpanReceived == nil || len(s.Reasons) != 0 {
		t.Errorf("spans but nothing evaluated, no setups: %+v", s)
	}
	s = Compute(prod, tr.Snapshot("me", now), SetupSummary{Setups: 2, FirstError: `unknown evaluator "hallucinations"`}, now, time.Minute)
	if s.Status != StatusError || len(s.Reasons) != 1 || !strings.Contains(s.Reasons[0], "none of the environment's 2 auto monitor setups") ||
		!strings.Contains(s.Reasons[0], `unknown evaluator "hallucinations"`) {
		t.Errorf("every binding failed: %+v", s)
	}

	tr = NewTracker()
	tr.Matched(now.Add(-2*time.Second), []MatchedSpan{matched("prod", 5, 5, 1, 0)})
	tr.NotStored(now.Add(-time.Second), []warehouse.Span{span("prod", tid, sid, true)}, errors.New("database or disk is full"), false)
	s = Compute(prod, tr.Snapshot("me", now), SetupSummary{}, now, time.Minute)
	if s.Status != StatusError || s.LagInSpans != 1 || !strings.Contains(strings.Join(s.Reasons, "|"), "the warehouse refused the last write of this environment's spans at 2026-01-15T10:29:59Z: database or disk is full") {
		t.Errorf("write refused (retryable): %+v", s)
	}
	// Stored on a retry: OK again.
	tr.Stored(now, []warehouse.Span{span("prod", tid, sid, true)})
	if s = Compute(prod, tr.Snapshot("me", now), SetupSummary{}, now, time.Minute); s.Status != StatusOK || s.LagInSpans != 0 {
		t.Errorf("after the retry stored the span: %+v", s)
	}

	tr = NewTracker()
	tr.Matched(now.Add(-2*time.Second), []MatchedSpan{matched("prod", 5, 5, 1, 0)})
	tr.NotStored(now.Add(-time.Second), []warehouse.Span{span("prod", tid, sid, true)}, errors.New("bad row"), true)
	tr.Stored(now, []warehouse.Span{span("prod", "t", "s", false)}) // a later write succeeded
	s = Compute(prod, tr.Snapshot("me", now), SetupSummary{}, now, time.Minute)
	if s.Status != StatusError || s.LagInSpans != 0 || !strings.Contains(strings.Join(s.Reasons, "|"), "dropped without being stored") {
		t.Errorf("spans dropped: %+v", s)
	}

	tr = NewTracker()
	tr.Matched(now.Add(-time.Minute), []MatchedSpan{matched("prod", 6, 6, 0, 2)})
	s = Compute(prod, tr.Snapshot("me", now), SetupSummary{}, now, time.Minute)
	if s.Status != StatusError || s.EvaluatedUpTo != nil || !strings.Contains(strings.Join(s.Reasons, "|"), "failed (timeout)") {
		t.Errorf("every evaluation failed: %+v", s)
	}
}

// TestTrackerBounds: matched spans waiting past the lost-after limit are
// counted as lost, and the tracker follows at most maxPending spans.
func TestTrackerBounds(t *testing.T) {
	now := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	tr := NewTracker()
	tr.maxPending = 2
	tr.Matched(now.Add(-20*time.Minute), []MatchedSpan{matched("prod", 1, 1, 1, 0)})
	tr.Matched(now.Add(-time.Minute), []MatchedSpan{matched("prod", 2, 2, 1, 0), matched("prod", 3, 3, 1, 0)})
	if tr.untracked != 1 {
		t.Errorf("untracked = %d, want 1 (the third span over the bound of 2)", tr.untracked)
	}
	rows := tr.Snapshot("me", now)
	if len(rows) != 1 || rows[0].Pending != 1 || rows[0].Lost != 1 || !rows[0].OldestPending.Equal(now.Add(-time.Minute)) {
		t.Errorf("snapshot = %+v, want 1 pending since a minute, 1 lost", rows)
	}
	if len(tr.pending) != 1 {
		t.Errorf("%d spans followed after the expiry, want 1", len(tr.pending))
	}
}

// TestReaderAndReporterOnSQLite: the status of the HTTP API reads the
// other collectors' rows from the warehouse and this collector's live
// counters; a row from a collector that stopped reporting counts for the
// watermarks but not for pending spans.
func TestReaderAndReporterOnSQLite(t *testing.T) {
	st := openStore(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	other := NewTracker()
	other.Matched(now.Add(-5*time.Minute), []MatchedSpan{matched("prod", 1, 1, 1, 0)})
	tid, sid := hexIDs(9, 9)
	other.Matched(now.Add(-6*time.Minute), []MatchedSpan{matched("prod", 9, 9, 1, 0)})
	other.Stored(now.Add(-6*time.Minute), []warehouse.Span{span("prod", tid, sid, true)})
	if err := (&Reporter{Store: st, Tracker: other, CollectorID: "other"}).Report(ctx); err != nil {
		t.Fatal(err)
	}
	me := NewTracker()
	me.Stored(now.Add(-time.Second), []warehouse.Span{span("prod", "t", "s", false)})
	r := &Reader{Store: st, Tracker: me, CollectorID: "me", Live: time.Minute, Setups: func(string) SetupSummary { return SetupSummary{Setups: 1, Usable: 1} }}
	s := r.Status(ctx, prod)
	if s.Status != StatusDegraded || s.LagInSpans != 1 || s.LagInSeconds < 299 || s.LagInSeconds > 310 {
		t.Errorf("status with the other collector's 5-minute-old pending span = %+v", s)
	}
	if s.LatestSpanReceived == nil || !s.LatestSpanReceived.Equal(now.Add(-time.Second)) || s.EvaluatedUpTo == nil || !s.EvaluatedUpTo.Equal(now.Add(-5*time.Minute)) {
		t.Errorf("watermarks = latest %v, evaluated up to %v", s.LatestSpanReceived, s.EvaluatedUpTo)
	}
	// The other collector stops reporting: its pending span no longer
	// counts, its evaluated span still does.
	r.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if s = r.Status(ctx, prod); s.Status != StatusOK || s.LagInSpans != 0 || s.EvaluatedUpTo == nil {
		t.Errorf("after the other collector went quiet = %+v", s)
	}
	// Another environment sees nothing of prod's.
	if s = r.Status(ctx, tenant.Tenant{Environment: "staging"}); s.LatestSpanReceived != nil || s.EvaluatedUpTo != nil || s.LagInSpans != 0 || s.Status != StatusOK {
		t.Errorf("staging = %+v", s)
	}
}
