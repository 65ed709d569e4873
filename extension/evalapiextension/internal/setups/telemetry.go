package setups

import "github.com/evalcol/evalcol/internal/warehouse"

// Statuses are the setup statuses, in lifecycle order.
var Statuses = []string{StatusPending, StatusWaitingForSpans, StatusInProgress, StatusPartial, StatusFailed}

// StatusOther counts stored setups whose status is none of Statuses.
const StatusOther = "other"

// countByStatus counts setups by status: every one of Statuses and
// StatusOther for anything else, zero when no setup has it.
func countByStatus(all []warehouse.MonitorSetup) map[string]int64 {
	counts := make(map[string]int64, len(Statuses)+1)
	for _, st := range Statuses {
		counts[st] = 0
	}
	counts[StatusOther] = 0
	for _, s := range all {
		if _, ok := counts[s.Status]; ok && s.Status != StatusOther {
			counts[s.Status]++
		} else {
			counts[StatusOther]++
		}
	}
	return counts
}

// StatusCounts returns the number of stored setups of every environment by
// status, as read at the last reload (at most one poll interval old; every
// collector sharing the warehouse reads the same). ok is false before the
// first reload succeeded. The map must not be modified.
func (s *Service) StatusCounts() (counts map[string]int64, ok bool) {
	if c := s.statusCounts.Load(); c != nil {
		return *c, true
	}
	return nil, false
}

// BackfillProgress is the progress of a backfill running in this process.
type BackfillProgress struct {
	SetupID string
	// Scanned spans of the window so far; Total spans in the window when
	// the backfill began.
	Scanned, Total int64
}

// Backfills returns the progress of the backfills working in this process
// (at most one works at a time; those waiting for their turn are not
// listed).
func (s *Service) Backfills() []BackfillProgress {
	b := s.backfill
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]BackfillProgress, 0, len(b.progress))
	for _, p := range b.progress {
		out = append(out, p)
	}
	return out
}

// setProgress records the progress of the backfill of setup id after a
// page; total is the count of the window's spans on its first page.
func (b *backfiller) setProgress(id string, scanned, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.progress[id]
	p.SetupID, p.Scanned, p.Total = id, scanned, max(p.Total, total, scanned)
	b.progress[id] = p
}

// endProgress forgets the progress of setup id's backfill.
func (b *backfiller) endProgress(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.progress, id)
}
