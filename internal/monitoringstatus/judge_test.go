package monitoringstatus

import (
	"strings"
	"testing"
	"time"
)

func TestJudgeBacklogCountsInTheLag(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ok := Status{Status: StatusOK, Reasons: []string{}, LagInSpans: 3, LagInSeconds: 10}
	if got := AddJudgeBacklog(ok, JudgeBacklog{}, now); got.LagInSpans != 3 || got.Status != StatusOK {
		t.Errorf("empty backlog changed the status: %+v", got)
	}
	got := AddJudgeBacklog(ok, JudgeBacklog{Items: 5, Oldest: now.Add(-5 * time.Second)}, now)
	if got.LagInSpans != 8 || got.LagInSeconds != 10 || got.Status != StatusOK {
		t.Errorf("a young backlog: %+v, want 8 spans, the lag unchanged, OK", got)
	}
	got = AddJudgeBacklog(ok, JudgeBacklog{Items: 7, Oldest: now.Add(-4 * time.Minute)}, now)
	if got.LagInSeconds != 240 || got.Status != StatusDegraded || len(got.Reasons) != 1 || !strings.Contains(got.Reasons[0], "7 judgements wait") {
		t.Errorf("a 4-minute backlog: %+v, want DEGRADED naming the queue", got)
	}
	got = AddJudgeBacklog(ok, JudgeBacklog{Items: 1, Oldest: now.Add(-11 * time.Minute)}, now)
	if got.Status != StatusError || !strings.Contains(got.Reasons[0], "online judging is 11 minutes behind") {
		t.Errorf("an 11-minute backlog: %+v, want ERROR", got)
	}
}
