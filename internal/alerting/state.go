package alerting

import "time"

// Statuses of a rule.
const (
	StatusOK      = "ok"
	StatusFiring  = "firing"
	StatusNoData  = "no_data"
	StatusUnknown = "unknown" // never evaluated
)

// Event kinds of a rule's history.
const (
	EventFired    = "fired"
	EventRepeated = "repeated"
	EventResolved = "resolved"
)

// MaxHistory bounds the events a state keeps.
const MaxHistory = 50

// Measurement is what a rule's window holds at one evaluation.
type Measurement struct {
	// Value is the pass rate (percent), the mean score, or, for no_spans
	// rules, the minutes since the last span (-1: none in the window).
	Value float64
	// Count is the evaluations in the window (spans, for no_spans).
	Count int64
}

// Delivery is one webhook's answer to a notification.
type Delivery struct {
	Webhook  string `json:"webhook"`
	Status   int    `json:"status"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error,omitempty"`
}

// Event is one notification-worthy change of a rule.
type Event struct {
	Time       time.Time  `json:"time"`
	Kind       string     `json:"kind"`
	Value      float64    `json:"value"`
	Count      int64      `json:"count"`
	Silenced   bool       `json:"silenced,omitempty"`
	Deliveries []Delivery `json:"deliveries,omitempty"`
}

// State is a rule's state, kept between evaluations.
type State struct {
	Status string `json:"status"`
	// Since is when the status began.
	Since         time.Time `json:"since"`
	LastEvaluated time.Time `json:"last_evaluated"`
	LastNotified  time.Time `json:"last_notified"`
	Value         float64   `json:"value"`
	Count         int64     `json:"count"`
	History       []Event   `json:"history"`
}

// breach reports whether m breaches r, and whether m can decide (enough
// evaluations).
func (r Rule) breach(m Measurement) (breached, decided bool) {
	switch r.Kind {
	case KindNoSpans:
		return m.Count == 0, true
	case KindPassRate:
		if m.Count < int64(r.MinEvaluations) {
			return false, false
		}
		return m.Value < r.Threshold, true
	case KindMeanScore:
		if m.Count < int64(r.MinEvaluations) {
			return false, false
		}
		if r.Direction == "above" {
			return m.Value > r.Threshold, true
		}
		return m.Value < r.Threshold, true
	}
	return false, false
}

// Step moves a rule's state on with a measurement taken at now. It
// returns the new state and the event to notify (nil: none). A rule fires
// once when its condition starts to hold, repeats while firing at most
// every RepeatMinutes (never when 0), and resolves once when the
// condition stops holding on enough data; a window without enough data
// leaves a firing rule firing and an ok rule ok (no_data before the first
// decision). A silenced rule changes state and records the event, marked
// silenced, without notifying.
func Step(r Rule, s State, m Measurement, now time.Time) (State, *Event) {
	s.LastEvaluated, s.Value, s.Count = now, m.Value, m.Count
	breached, decided := r.breach(m)
	var ev *Event
	switch {
	case !decided:
		if s.Status == StatusUnknown || s.Status == "" {
			s.Status, s.Since = StatusNoData, now
		}
	case breached && s.Status != StatusFiring:
		s.Status, s.Since = StatusFiring, now
		ev = &Event{Kind: EventFired}
	case breached && r.RepeatMinutes > 0 && now.Sub(s.LastNotified) >= time.Duration(r.RepeatMinutes)*time.Minute:
		ev = &Event{Kind: EventRepeated}
	case !breached && s.Status == StatusFiring:
		s.Status, s.Since = StatusOK, now
		ev = &Event{Kind: EventResolved}
	case !breached && s.Status != StatusOK:
		s.Status, s.Since = StatusOK, now
	}
	if ev == nil {
		return s, nil
	}
	ev.Time, ev.Value, ev.Count, ev.Silenced = now, m.Value, m.Count, r.Silenced(now)
	if !ev.Silenced {
		s.LastNotified = now
	}
	return s, ev
}

// Record appends ev (with its deliveries) to the state's history, keeping
// the last MaxHistory events.
func (s *State) Record(ev Event) {
	s.History = append(s.History, ev)
	if len(s.History) > MaxHistory {
		s.History = s.History[len(s.History)-MaxHistory:]
	}
}
