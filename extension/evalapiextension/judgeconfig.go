package evalapiextension

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/configopaque"

	"github.com/evalcol/evalcol/internal/judge"
)

// JudgeConfig configures the LLM judges that custom evaluators call.
type JudgeConfig struct {
	// Providers are the judge endpoints, by the name evaluators give as
	// their provider. When none is configured, "openai" and "anthropic"
	// come from the environment as the official SDKs read it
	// (OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY,
	// ANTHROPIC_BASE_URL).
	Providers map[string]JudgeProviderConfig `mapstructure:"providers"`
	// Queue configures the online judging of custom evaluators named by
	// monitors and auto monitor setups: their work waits in the
	// warehouse and is judged in the background.
	Queue JudgeQueueConfig `mapstructure:"queue"`
	// Budget caps what each environment's online judging may spend per
	// UTC day; past it, work is recorded as skipped with the reason.
	Budget JudgeBudgetConfig `mapstructure:"budget"`
}

// JudgeQueueConfig configures the persistent queue of online judge work.
type JudgeQueueConfig struct {
	// Workers is how many judge calls of the queue run at once on this
	// collector (default 4); each provider's max_concurrency still caps
	// its own.
	Workers int `mapstructure:"workers"`
	// Lease is how long a collector holds an item it works on before
	// another collector (or this one after a restart) may take it
	// (default 2m; longer than a judge call with its retries).
	Lease time.Duration `mapstructure:"lease"`
	// MaxAttempts is how often an item is tried when the provider is rate
	// limited, busy, slow or failing (default 5); then its error is
	// recorded as the evaluation's.
	MaxAttempts int `mapstructure:"max_attempts"`
	// SpanWait is how long an item waits for its span to be stored
	// (default 2m).
	SpanWait time.Duration `mapstructure:"span_wait"`
}

// JudgeBudgetConfig is the daily budget of online judging per
// environment (0: no limit).
type JudgeBudgetConfig struct {
	DailyCallsPerEnvironment  int64 `mapstructure:"daily_calls_per_environment"`
	DailyTokensPerEnvironment int64 `mapstructure:"daily_tokens_per_environment"`
}

// JudgeProviderConfig is one judge endpoint.
type JudgeProviderConfig struct {
	// Type is the protocol: openai (Chat Completions: OpenAI, Azure,
	// vLLM, Ollama, llama.cpp, LiteLLM, ...) or anthropic (Messages).
	Type string `mapstructure:"type"`
	// BaseURL is the API's base URL; for openai up to /v1
	// (http://localhost:11434/v1). Default: the official endpoint.
	BaseURL string `mapstructure:"base_url"`
	// APIKey is sent as the protocol's credential (use ${env:...}); empty
	// sends none. No API answer or page ever shows it.
	APIKey configopaque.String `mapstructure:"api_key"`
	// Timeout bounds one HTTP attempt, and the wait for a free slot
	// (default 60s).
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxConcurrency caps the calls in flight to this provider (default 4).
	MaxConcurrency int `mapstructure:"max_concurrency"`
	// MaxRetries is how often a 429, 5xx or failed connection is retried
	// (default 2; 0 disables retries).
	MaxRetries *int `mapstructure:"max_retries"`
	// MaxRetryWait is the longest wait before a retry (default 10s); a
	// provider asking (Retry-After) for longer is not retried.
	MaxRetryWait time.Duration `mapstructure:"max_retry_wait"`
	// MaxResponseBytes bounds an answer's body (default 1 MiB).
	MaxResponseBytes int64 `mapstructure:"max_response_bytes"`
	// Headers are sent with every request, e.g. Azure OpenAI's api-key
	// (use ${env:...}); like the key, they are never shown.
	Headers map[string]configopaque.String `mapstructure:"headers"`
	// RequestsPerMinute and TokensPerMinute rate-limit the calls to this
	// provider, of the API and of online judging together (0: no limit).
	RequestsPerMinute int `mapstructure:"requests_per_minute"`
	TokensPerMinute   int `mapstructure:"tokens_per_minute"`
}

// Bounds of the judge settings.
const (
	maxJudgeTimeout          = 10 * time.Minute
	maxJudgeConcurrency      = 1024
	maxJudgeRetries          = 10
	maxJudgeResponseBytes    = 64 << 20
	defaultJudgeMaxRetries   = judge.DefaultMaxRetries
	judgeProviderNamePattern = `^[a-z0-9][a-z0-9_.-]{0,62}$`
)

var (
	judgeProviderName = regexp.MustCompile(judgeProviderNamePattern)
	headerName        = regexp.MustCompile(`^[A-Za-z0-9-]+$`)
)

func (j JudgeConfig) validate() []error {
	var errs []error
	names := make([]string, 0, len(j.Providers))
	for n := range j.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p := j.Providers[name]
		at := "judge.providers." + name
		if !judgeProviderName.MatchString(name) {
			errs = append(errs, fmt.Errorf("%s: the name must match %s (lower case; evaluators name it as their provider)", at, judgeProviderNamePattern))
		}
		switch p.Type {
		case judge.TypeOpenAI, judge.TypeAnthropic:
		case "":
			errs = append(errs, fmt.Errorf("%s.type: must be set (openai for any Chat Completions server, or anthropic)", at))
		default:
			errs = append(errs, fmt.Errorf("%s.type: unknown type %q (use openai for any Chat Completions server, or anthropic)", at, p.Type))
		}
		if p.BaseURL != "" {
			u, err := url.Parse(p.BaseURL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
				errs = append(errs, fmt.Errorf("%s.base_url: %q is not an http(s) URL such as http://localhost:11434/v1", at, p.BaseURL))
			}
		}
		if p.Timeout < 0 || p.Timeout > maxJudgeTimeout {
			errs = append(errs, fmt.Errorf("%s.timeout: must be between 0 (default 60s) and %s, got %s", at, maxJudgeTimeout, p.Timeout))
		}
		if p.MaxConcurrency < 0 || p.MaxConcurrency > maxJudgeConcurrency {
			errs = append(errs, fmt.Errorf("%s.max_concurrency: must be between 0 (default 4) and %d, got %d", at, maxJudgeConcurrency, p.MaxConcurrency))
		}
		if p.MaxRetries != nil && (*p.MaxRetries < 0 || *p.MaxRetries > maxJudgeRetries) {
			errs = append(errs, fmt.Errorf("%s.max_retries: must be between 0 and %d, got %d", at, maxJudgeRetries, *p.MaxRetries))
		}
		if p.MaxRetryWait < 0 || p.MaxRetryWait > maxJudgeTimeout {
			errs = append(errs, fmt.Errorf("%s.max_retry_wait: must be between 0 (default 10s) and %s, got %s", at, maxJudgeTimeout, p.MaxRetryWait))
		}
		for h := range p.Headers {
			if !headerName.MatchString(h) || strings.EqualFold(h, "Content-Type") || strings.EqualFold(h, "Host") || strings.EqualFold(h, "Content-Length") {
				errs = append(errs, fmt.Errorf("%s.headers: %q is not a header name that may be set (letters, digits and dashes; not Host, Content-Type or Content-Length)", at, h))
			}
		}
		if p.MaxResponseBytes < 0 || p.MaxResponseBytes > maxJudgeResponseBytes {
			errs = append(errs, fmt.Errorf("%s.max_response_bytes: must be between 0 (default 1 MiB) and %d, got %d", at, maxJudgeResponseBytes, p.MaxResponseBytes))
		}
		if p.RequestsPerMinute < 0 {
			errs = append(errs, fmt.Errorf("%s.requests_per_minute: must not be negative (0: no limit), got %d", at, p.RequestsPerMinute))
		}
		if p.TokensPerMinute < 0 {
			errs = append(errs, fmt.Errorf("%s.tokens_per_minute: must not be negative (0: no limit), got %d", at, p.TokensPerMinute))
		}
	}
	q := j.Queue
	if q.Workers < 0 || q.Workers > maxJudgeConcurrency {
		errs = append(errs, fmt.Errorf("judge.queue.workers: must be between 0 (default %d) and %d, got %d", defaultJudgeQueueWorkers, maxJudgeConcurrency, q.Workers))
	}
	if q.Lease < 0 || (q.Lease > 0 && q.Lease < time.Second) || q.Lease > time.Hour {
		errs = append(errs, fmt.Errorf("judge.queue.lease: must be between 1s and 1h (0: default %s), got %s", defaultJudgeQueueLease, q.Lease))
	}
	if q.MaxAttempts < 0 || q.MaxAttempts > 100 {
		errs = append(errs, fmt.Errorf("judge.queue.max_attempts: must be between 0 (default %d) and 100, got %d", defaultJudgeQueueAttempts, q.MaxAttempts))
	}
	if q.SpanWait < 0 || q.SpanWait > time.Hour {
		errs = append(errs, fmt.Errorf("judge.queue.span_wait: must be between 0 (default %s) and 1h, got %s", defaultJudgeSpanWait, q.SpanWait))
	}
	if j.Budget.DailyCallsPerEnvironment < 0 {
		errs = append(errs, fmt.Errorf("judge.budget.daily_calls_per_environment: must not be negative (0: no limit), got %d", j.Budget.DailyCallsPerEnvironment))
	}
	if j.Budget.DailyTokensPerEnvironment < 0 {
		errs = append(errs, fmt.Errorf("judge.budget.daily_tokens_per_environment: must not be negative (0: no limit), got %d", j.Budget.DailyTokensPerEnvironment))
	}
	return errs
}

// Defaults of the judge queue.
const (
	defaultJudgeQueueWorkers  = 4
	defaultJudgeQueueLease    = 2 * time.Minute
	defaultJudgeQueueAttempts = 5
	defaultJudgeSpanWait      = 2 * time.Minute
)

// judgeProviders returns the configured providers, or, when none is
// configured, those of the environment getenv reads.
func (j JudgeConfig) judgeProviders(getenv func(string) string) []judge.ProviderConfig {
	if len(j.Providers) == 0 {
		return judge.FromEnvironment(getenv)
	}
	out := make([]judge.ProviderConfig, 0, len(j.Providers))
	for name, p := range j.Providers {
		retries := defaultJudgeMaxRetries
		if p.MaxRetries != nil {
			retries = *p.MaxRetries
		}
		var headers map[string]string
		for k, v := range p.Headers {
			if headers == nil {
				headers = map[string]string{}
			}
			headers[k] = string(v)
		}
		out = append(out, judge.ProviderConfig{Name: name, Type: p.Type, BaseURL: p.BaseURL, APIKey: string(p.APIKey),
			Timeout: p.Timeout, MaxConcurrency: p.MaxConcurrency, MaxRetries: retries, MaxRetryWait: p.MaxRetryWait,
			MaxResponseBytes: p.MaxResponseBytes, Headers: headers,
			RequestsPerMinute: p.RequestsPerMinute, TokensPerMinute: p.TokensPerMinute})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}
