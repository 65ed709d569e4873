package console

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/evalcol/evalcol/internal/warehouse"
)

// Value suggestions of the list filters (the <datalist> of service,
// workflow and model): the distinct values of the environment's latest
// spans, bounded and kept briefly.
const (
	// suggestSpans is how many of the latest spans (of the last
	// suggestWindow) the values are read from.
	suggestSpans  = 1000
	suggestWindow = 7 * 24 * time.Hour
	// maxSuggestions bounds each list.
	maxSuggestions = 100
	// suggestTTL is how long an environment's lists are kept.
	suggestTTL = time.Minute
)

// suggestions are the value lists of one environment.
type suggestions struct {
	Services, Workflows, Models []string
	at                          time.Time
}

// suggestCache keeps each environment's suggestions for suggestTTL.
type suggestCache struct {
	mu    sync.Mutex
	byEnv map[string]suggestions
}

func newSuggestCache() *suggestCache { return &suggestCache{byEnv: map[string]suggestions{}} }

// suggestions returns env's value lists, read again when older than
// suggestTTL; a warehouse error leaves them empty (suggestions are a
// convenience, the page goes on).
func (c *Console) suggestions(ctx context.Context, env string) suggestions {
	now := c.opts.Now()
	c.suggest.mu.Lock()
	s, ok := c.suggest.byEnv[env]
	c.suggest.mu.Unlock()
	if ok && now.Sub(s.at) < suggestTTL {
		return s
	}
	page, err := c.opts.Store.QuerySpans(ctx, warehouse.SpanQuery{Environments: []string{env},
		FromMs: now.Add(-suggestWindow).UnixMilli(), ToMs: now.UnixMilli(), Desc: true, Limit: suggestSpans})
	s = suggestions{at: now}
	if err == nil {
		services, workflows, models := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for _, sp := range page.Spans {
			services[sp.ServiceName] = true
			workflows[sp.WorkflowName] = true
			models[sp.RequestModel] = true
			models[sp.ResponseModel] = true
		}
		s.Services, s.Workflows, s.Models = sortedValues(services), sortedValues(workflows), sortedValues(models)
	}
	c.suggest.mu.Lock()
	if len(c.suggest.byEnv) > 1000 { // environments come and go: never grow without bound
		clear(c.suggest.byEnv)
	}
	c.suggest.byEnv[env] = s
	c.suggest.mu.Unlock()
	return s
}

// sortedValues returns the non-empty keys of set, sorted, at most
// maxSuggestions.
func sortedValues(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		if v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}
