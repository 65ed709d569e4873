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
