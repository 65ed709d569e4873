package index

import (
	"strings"
	"testing"
)

// TestPostingRange: a range's bounds and cuts, and its lists' SQL.
func TestPostingRange(t *testing.T) {
	r := PostingRange{Tables: PostingTables{Runs: "posting_runs", Lists: "span_postings"}, Envs: []string{"prod"},
		From: 100, To: 900, Runs: []PostingRun{{ID: 1, MinTS: 0, MaxTS: 300}, {ID: 2, MinTS: 400, MaxTS: 2000}}}
	if lo, hi := r.Bounds(); lo != 100 || hi != 900 {
		t.Errorf("Bounds: %d, %d", lo, hi)
	}
	c := r.Cut(350, 500)
	if len(c.Runs) != 1 || c.Runs[0].ID != 2 || c.From != 350 || c.To != 500 {
		t.Errorf("Cut: %+v", c)
	}
	f := PostingFilter{Key: "user", Values: []string{"u-17"}}
	sql, args := r.CandidatesSQL(f)
	if !strings.HasPrefix(sql, "SELECT p.base + o.value FROM span_postings AS p") || len(args) != 6 {
		t.Errorf("CandidatesSQL: %s %v", sql, args)
	}
	if sql, _ := (PostingRange{}).CandidatesSQL(f); sql != "SELECT NULL WHERE 0" {
		t.Errorf("CandidatesSQL of no run: %s", sql)
	}
	resolved := PostingFilter{Key: "n", Values: []string{"1"}, Resolved: true, Hours: []HourSpan{{First: 0, Last: 0}}}
	if !r.Holds(resolved) || (PostingRange{}).Holds(resolved) || !(PostingRange{}).Holds(f) {
		t.Error("Holds: resolved values need the dictionary's runs")
	}
}
