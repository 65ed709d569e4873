package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// EvaluatorLimits bound the evaluator work of each API key, so that one
// key's expensive calls (regexes running into their timeout, megabyte
// documents) cannot take the CPU from the others. A request over a limit
// waits up to MaxWait for the key's capacity (waiting costs no CPU, so a
// client that ignores Retry-After slows itself down), then gets 429 with
// Retry-After and an error naming the limit. Zero fields disable their
// limit.
type EvaluatorLimits struct {
	// MaxConcurrent bounds the evaluations of one key running at once.
	MaxConcurrent int
	// TimePerSecond is the evaluation time one key may use per second on
	// average: a token bucket refilled at this rate, charged with the
	// time each request spent decoding, validating and evaluating (about
	// its CPU time: the evaluators are CPU-bound).
	TimePerSecond time.Duration
	// Burst is the bucket's size: the evaluation time a key may use at
	// once after being idle.
	Burst time.Duration
	// MaxWait is how long a request over a limit waits for capacity
	// before it is refused.
	MaxWait time.Duration
}

// keyLimiter applies EvaluatorLimits per API key. Keys are kept as their
// fingerprints (KeyFingerprint), one small state each.
type keyLimiter struct {
	limits EvaluatorLimits
	now    func() time.Time

	mu   sync.Mutex
	keys map[string]*keyState
}

// KeyFingerprint identifies an API key for its evaluator limits without
// holding the key: a domain-separated SHA-256 of the secret. The console
// keeps it in its sessions, so that a key's playground runs and its /v2
// executions share one budget.
func KeyFingerprint(secret string) string {
	sum := sha256.Sum256([]byte("evalcol evaluator limits\x00" + secret))
	return hex.EncodeToString(sum[:16])
}

type keyState struct {
	sem chan struct{} // nil without MaxConcurrent

	mu sync.Mutex
	// tokens is the evaluation time left in the bucket; negative when
	// the key used more than it had.
	tokens time.Duration
	last   time.Time
	// avg is the recent mean time of the key's evaluations: admitting one
	// reserves it, so that requests arriving together do not all pass
	// before the first is charged.
	avg time.Duration
}

func newKeyLimiter(l EvaluatorLimits) *keyLimiter {
	if l.MaxConcurrent <= 0 && l.TimePerSecond <= 0 {
		return nil
	}
	if l.Burst < l.TimePerSecond {
		l.Burst = l.TimePerSecond
	}
	return &keyLimiter{limits: l, now: time.Now, keys: map[string]*keyState{}}
}

func (l *keyLimiter) state(key string) *keyState {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.keys[key]
	if s == nil {
		s = &keyState{tokens: l.limits.Burst, last: l.now()}
		if l.limits.MaxConcurrent > 0 {
			s.sem = make(chan struct{}, l.limits.MaxConcurrent)
		}
		l.keys[key] = s
	}
	return s
}

// acquire admits one evaluation of the key with fingerprint key, waiting
// up to MaxWait; release must be called with the time the evaluation used.
func (l *keyLimiter) acquire(ctx context.Context, key string) (release func(used time.Duration), lerr *LimitError) {
	s := l.state(key)
	deadline := l.now().Add(l.limits.MaxWait)
	var reserved time.Duration
	if l.limits.TimePerSecond > 0 {
		for {
			var wait time.Duration
			wait, reserved = s.admit(l)
			if wait == 0 {
				break
			}
			if left := deadline.Sub(l.now()); wait > left {
				sleep(ctx, left)
				return nil, &LimitError{RetryAfter: wait - left, Msg: fmt.Sprintf(
					"evaluator time limit of this API key exceeded: at most %s of evaluation per second, %s at once (evaluator_limits.time_per_second, evaluator_limits.burst)",
					l.limits.TimePerSecond, l.limits.Burst)}
			}
			if !sleep(ctx, wait) {
				return nil, &LimitError{RetryAfter: time.Second, Msg: "request cancelled while waiting for the API key's evaluator time"}
			}
		}
	}
	if s.sem != nil {
		select {
		case s.sem <- struct{}{}:
		default:
			t := time.NewTimer(max(0, deadline.Sub(l.now())))
			defer t.Stop()
			select {
			case s.sem <- struct{}{}:
			case <-t.C:
				s.settle(l, reserved, 0)
				return nil, &LimitError{RetryAfter: time.Second, Msg: fmt.Sprintf(
					"concurrent evaluations limit of this API key exceeded: at most %d at once (evaluator_limits.max_concurrent_per_key)",
					l.limits.MaxConcurrent)}
			case <-ctx.Done():
				s.settle(l, reserved, 0)
				return nil, &LimitError{RetryAfter: time.Second, Msg: "request cancelled while waiting for a concurrent evaluation of the API key to finish"}
			}
		}
	}
	return func(used time.Duration) {
		if s.sem != nil {
			<-s.sem
		}
		s.settle(l, reserved, used)
	}, nil
}

// admit refills the bucket; when it holds time, it reserves the key's mean
// evaluation time and returns 0 and the reservation, else how long until
// it holds time again.
func (s *keyState) admit(l *keyLimiter) (wait, reserved time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := l.now()
	refill := time.Duration(float64(now.Sub(s.last)) * l.limits.TimePerSecond.Seconds())
	s.tokens = min(s.tokens+refill, l.limits.Burst)
	s.last = now
	if s.tokens > 0 {
		s.tokens -= s.avg
		return 0, s.avg
	}
	// Until tokens > 0, refilled at TimePerSecond per second.
	return time.Duration(float64(-s.tokens+time.Millisecond) / l.limits.TimePerSecond.Seconds()), 0
}

// settle charges the time an evaluation used in place of its reservation
// (used 0: it never ran) and updates the mean.
func (s *keyState) settle(l *keyLimiter, reserved, used time.Duration) {
	if l.limits.TimePerSecond <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens += reserved - used
	if used > 0 {
		s.avg = (7*s.avg + used) / 8
	}
}

// sleep waits d or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// writeLimitError answers 429 with Retry-After (whole seconds, at least 1).
func writeLimitError(w http.ResponseWriter, e *LimitError) {
	w.Header().Set("Retry-After", e.RetryAfterHeader())
	writeError(w, http.StatusTooManyRequests, e.Msg)
}

// RetryAfterHeader is the Retry-After value of e: whole seconds, at
// least 1.
func (e *LimitError) RetryAfterHeader() string {
	return strconv.Itoa(max(1, int(math.Ceil(e.RetryAfter.Seconds()))))
}

// LimitError is an evaluation refused by the key's evaluator limits: the
// message names the limit, RetryAfter says when to try again.
type LimitError struct {
	Msg        string
	RetryAfter time.Duration
}

func (e *LimitError) Error() string { return e.Msg }

// AcquireEvaluation admits one evaluation charged to the API key with the
// given fingerprint (KeyFingerprint) under the configured evaluator
// limits, for callers other than the /v2 execute endpoints (the console's
// playground). It waits up to the limits' MaxWait; over a limit it returns
// a *LimitError. release must be called with the time the evaluation used.
func (a *API) AcquireEvaluation(ctx context.Context, keyFingerprint string) (release func(used time.Duration), err error) {
	if a.limiter == nil {
		return func(time.Duration) {}, nil
	}
	release, lerr := a.limiter.acquire(ctx, keyFingerprint)
	if lerr != nil {
		return nil, lerr
	}
	return release, nil
}
