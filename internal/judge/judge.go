// Package judge calls an LLM judge: it renders a custom evaluator's prompt
// templates with an input, asks a configured provider (OpenAI's Chat
// Completions API, spoken by OpenAI, Azure and self-hosted servers, or
// Anthropic's Messages API) for a JSON object that fits the evaluator's
// output schema, and checks the answer. A call is a function of (the
// evaluator version's Spec, the input) to a Result; nothing else is kept
// between calls but which structured-output mode each model accepts.
//
// Endpoints and keys come only from the ProviderConfigs the operator gave
// New; a Spec names a provider, never a URL.
package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Provider types.
const (
	TypeOpenAI    = "openai"
	TypeAnthropic = "anthropic"
)

// Defaults of a ProviderConfig's zero fields.
const (
	DefaultTimeout          = 60 * time.Second
	DefaultMaxConcurrency   = 4
	DefaultMaxRetryWait     = 10 * time.Second
	DefaultMaxResponseBytes = 1 << 20
	// DefaultOpenAIBaseURL and DefaultAnthropicBaseURL are the official
	// endpoints.
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

// ProviderConfig is one configured provider.
type ProviderConfig struct {
	// Name is what evaluators call it (their provider field).
	Name string
	// Type is TypeOpenAI or TypeAnthropic.
	Type string
	// BaseURL is the API's base URL: for openai up to /v1
	// (http://localhost:11434/v1), for anthropic without it.
	BaseURL string
	// APIKey is sent as the protocol's credential; empty sends none.
	APIKey string
	// Timeout bounds one HTTP attempt, and the wait for a free slot.
	Timeout time.Duration
	// MaxConcurrency caps the calls in flight to this provider.
	MaxConcurrency int
	// MaxRetries is how many times a 429, a 5xx or a failed connection is
	// retried (with exponential backoff, or the wait the provider's
	// Retry-After asks for).
	MaxRetries int
	// MaxRetryWait is the longest wait before a retry; a provider asking
	// for longer gets no retry (the caller gets KindRateLimited and the
	// wait).
	MaxRetryWait time.Duration
	// MaxResponseBytes bounds an answer's body; a larger one fails.
	MaxResponseBytes int64
	// Headers are sent with every request (e.g. Azure's api-key); their
	// values are redacted from error messages like the key.
	Headers map[string]string
	// RequestsPerMinute and TokensPerMinute rate-limit the calls (0: no
	// limit). A call waits for the limits at most Timeout; the tokens a
	// call used are counted after it, so that the next calls wait for
	// them.
	RequestsPerMinute int
	TokensPerMinute   int
}

// Message is one message of a prompt; its Content is a template.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Params are the sampling parameters of a call; nil ones are not sent,
// except Temperature, which is 0 when not set.
type Params struct {
	Temperature      *float64 `json:"temperature,omitempty"`
	MaxTokens        *int     `json:"max_tokens,omitempty"`
	TopP             *float64 `json:"top_p,omitempty"`
	FrequencyPenalty *float64 `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64 `json:"presence_penalty,omitempty"`
}

// Spec is what a call needs of an evaluator version.
type Spec struct {
	Provider     string
	Model        string
	Messages     []Message
	InputSchema  []Field
	OutputSchema []Field
	Params       Params
}

// Result is a judge's answer.
type Result struct {
	// Output is the answer: exactly the output schema's fields.
	Output  map[string]any
	Verdict Verdict
	// Mode is how the answer was asked for: json_schema, tool or text.
	Mode     string
	Usage    Usage
	Attempts int
	Duration time.Duration
}

// Client calls the configured providers. It is safe for concurrent use.
type Client struct {
	providers map[string]*provider
	http      *http.Client
}

type provider struct {
	cfg   ProviderConfig
	proto protocol
	slots chan struct{}
	// requests and tokens are the per-minute rate limits (nil: none).
	requests, tokens *rate.Limiter

	// firstMode remembers, per model, the first structured-output mode
	// worth trying (after a server refused a better one).
	mu        sync.Mutex
	firstMode map[string]int
}

// maxRememberedModels bounds firstMode.
const maxRememberedModels = 1024

// New returns a client of the providers. Zero fields take the defaults.
func New(providers []ProviderConfig) (*Client, error) {
	c := &Client{providers: map[string]*provider{}, http: &http.Client{
		Transport: http.DefaultTransport.(*http.Transport).Clone(),
		// A redirect is an error: the collector talks to the configured
		// URL only.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	for _, p := range providers {
		if _, dup := c.providers[p.Name]; dup {
			return nil, fmt.Errorf("judge: provider %q is configured twice", p.Name)
		}
		var proto protocol
		switch p.Type {
		case TypeOpenAI:
			proto = openAI{}
			if p.BaseURL == "" {
				p.BaseURL = DefaultOpenAIBaseURL
			}
		case TypeAnthropic:
			proto = anthropic{}
			if p.BaseURL == "" {
				p.BaseURL = DefaultAnthropicBaseURL
			}
		default:
			return nil, fmt.Errorf("judge: provider %q: unknown type %q (use %s or %s)", p.Name, p.Type, TypeOpenAI, TypeAnthropic)
		}
		p.BaseURL = strings.TrimRight(p.BaseURL, "/")
		if p.Timeout <= 0 {
			p.Timeout = DefaultTimeout
		}
		if p.MaxConcurrency <= 0 {
			p.MaxConcurrency = DefaultMaxConcurrency
		}
		if p.MaxRetryWait <= 0 {
			p.MaxRetryWait = DefaultMaxRetryWait
		}
		if p.MaxResponseBytes <= 0 {
			p.MaxResponseBytes = DefaultMaxResponseBytes
		}
		p.MaxRetries = max(p.MaxRetries, 0)
		pr := &provider{cfg: p, proto: proto, slots: make(chan struct{}, p.MaxConcurrency), firstMode: map[string]int{}}
		if p.RequestsPerMinute > 0 {
			pr.requests = rate.NewLimiter(rate.Limit(float64(p.RequestsPerMinute)/60), p.RequestsPerMinute)
		}
		if p.TokensPerMinute > 0 {
			pr.tokens = rate.NewLimiter(rate.Limit(float64(p.TokensPerMinute)/60), p.TokensPerMinute)
		}
		c.providers[p.Name] = pr
	}
	return c, nil
}

// Has reports whether name is a configured provider.
func (c *Client) Has(name string) bool {
	_, ok := c.providers[name]
	return ok
}

// Providers returns the names of the configured providers, sorted.
func (c *Client) Providers() []string {
	out := make([]string, 0, len(c.providers))
	for n := range c.providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Run renders spec's messages with input, asks the provider and returns
// the checked answer. Errors are *Error.
func (c *Client) Run(ctx context.Context, spec Spec, input map[string]any) (Result, error) {
	start := time.Now()
	p, ok := c.providers[spec.Provider]
	if !ok {
		return Result{}, &Error{Kind: KindConfig, Msg: fmt.Sprintf("provider %q is not configured on this collector (configured: %s)", spec.Provider, strings.Join(c.Providers(), ", "))}
	}
	if err := CheckInput(spec.InputSchema, input); err != nil {
		return Result{}, &Error{Kind: KindInput, Msg: err.Error(), err: err}
	}
	cl := call{model: spec.Model, params: spec.Params, schema: JSONSchema(spec.OutputSchema), outputs: spec.OutputSchema}
	if cl.params.Temperature == nil {
		zero := 0.0
		cl.params.Temperature = &zero
	}
	for i, m := range spec.Messages {
		text, err := Render(m.Content, input)
		if err != nil {
			return Result{}, &Error{Kind: KindInput, Msg: fmt.Sprintf("messages[%d]: %v", i, err), err: err}
		}
		cl.messages = append(cl.messages, Message{Role: m.Role, Content: text})
	}

	if err := p.acquire(ctx); err != nil {
		return Result{}, err
	}
	defer p.release()
	if err := p.waitRate(ctx); err != nil {
		return Result{}, err
	}

	modes := p.proto.modes()
	attempts := 0
	var lastRefusal *Error
	first := p.startMode(spec.Model)
	for i := first; i < len(modes); i++ {
		m := modes[i]
		ans, n, err := c.send(ctx, p, cl, m)
		attempts += n
		if err != nil {
			var je *Error
			// A 400 or 422 to a structured-output request: the server
			// does not take that mode; try the next one.
			if errors.As(err, &je) && je.Kind == KindUpstream && (je.Status == http.StatusBadRequest || je.Status == http.StatusUnprocessableEntity) && i+1 < len(modes) {
				lastRefusal = je
				continue
			}
			if lastRefusal != nil && errors.As(err, &je) && je.Kind == KindUpstream {
				je.Msg += fmt.Sprintf(" (after %s was refused: %s)", modes[i-1], lastRefusal.Msg)
			}
			return Result{}, err
		}
		if i > first {
			// The server refused the better modes and took this one:
			// start here next time. (Refusals followed by no success,
			// such as a prompt too long for every mode, teach nothing.)
			p.rememberMode(spec.Model, i)
		}
		p.spend(ans.usage)
		out, err := decodeAnswer(ans, spec.OutputSchema)
		if err != nil {
			raw := ans.text
			if len(ans.toolArgs) > 0 {
				raw = string(ans.toolArgs)
			}
			return Result{}, &Error{Kind: KindOutput, Provider: p.cfg.Name, Msg: fmt.Sprintf("model %s (%s mode): %v", spec.Model, m, err),
				Raw: bounded(raw, RawLimit), Usage: ans.usage, err: err}
		}
		return Result{Output: out, Verdict: VerdictOf(spec.OutputSchema, out), Mode: string(m), Usage: ans.usage,
			Attempts: attempts, Duration: time.Since(start)}, nil
	}
	return Result{}, lastRefusal // not reached: the last mode returns
}

// decodeAnswer finds the output object in an answer: the tool call's
// arguments, else the text as JSON, else the first JSON object in the
// text; then checks it against the output schema.
func decodeAnswer(a answer, fs []Field) (map[string]any, error) {
	var obj map[string]any
	switch {
	case len(a.toolArgs) > 0:
		if err := json.Unmarshal(a.toolArgs, &obj); err != nil || obj == nil {
			return nil, errors.New("the tool call's arguments are not a JSON object")
		}
	default:
		text := strings.TrimSpace(a.text)
		if err := json.Unmarshal([]byte(text), &obj); err != nil || obj == nil {
			var ok bool
			if obj, ok = firstJSONObject(text); !ok {
				if text == "" {
					return nil, errors.New("the answer is empty")
				}
				return nil, errors.New("the answer holds no JSON object")
			}
		}
	}
	return validateOutput(fs, obj)
}

// acquire takes a slot of the provider's concurrency cap, waiting at most
// the provider's timeout.
func (p *provider) acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(p.cfg.Timeout)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-t.C:
		return &Error{Kind: KindBusy, Provider: p.cfg.Name, RetryAfter: time.Second,
			Msg: fmt.Sprintf("all %d slots (max_concurrency) stayed busy for %s", p.cfg.MaxConcurrency, p.cfg.Timeout)}
	case <-ctx.Done():
		return &Error{Kind: KindTimeout, Provider: p.cfg.Name, Msg: "gave up waiting for a free slot: " + ctx.Err().Error(), err: ctx.Err()}
	}
}

func (p *provider) release() { <-p.slots }

// waitRate waits for the provider's rate limits, at most its timeout: a
// request, and the tokens earlier calls spent past the per-minute budget.
func (p *provider) waitRate(ctx context.Context) error {
	if p.requests == nil && p.tokens == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	for _, l := range []*rate.Limiter{p.requests, p.tokens} {
		if l == nil {
			continue
		}
		if err := l.Wait(wctx); err != nil {
			if ctx.Err() != nil {
				return &Error{Kind: KindTimeout, Provider: p.cfg.Name, Msg: "gave up waiting for the rate limit: " + ctx.Err().Error(), err: ctx.Err()}
			}
			return &Error{Kind: KindRateLimited, Provider: p.cfg.Name, RetryAfter: time.Minute,
				Msg: fmt.Sprintf("the provider's rate limit (requests_per_minute %d, tokens_per_minute %d) leaves no room within %s", p.cfg.RequestsPerMinute, p.cfg.TokensPerMinute, p.cfg.Timeout)}
		}
	}
	return nil
}

// spend counts the tokens of a call against the tokens-per-minute limit;
// the next calls wait until the minute's budget has room again.
func (p *provider) spend(u Usage) {
	if p.tokens == nil {
		return
	}
	n := int(min(u.InputTokens+u.OutputTokens, int64(p.cfg.TokensPerMinute)))
	if n > 1 {
		p.tokens.ReserveN(time.Now(), n-1) // Wait took one already
	}
}

func (p *provider) startMode(model string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.firstMode[model]
}

func (p *provider) rememberMode(model string, i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.firstMode[model]; ok || len(p.firstMode) < maxRememberedModels {
		p.firstMode[model] = max(p.firstMode[model], i)
	}
}

// send posts one call in mode m, retrying 429, 5xx and failed connections.
// It returns the answer and the number of HTTP attempts.
func (c *Client) send(ctx context.Context, p *provider, cl call, m mode) (answer, int, error) {
	body, err := json.Marshal(p.proto.body(cl, m))
	if err != nil {
		return answer{}, 0, &Error{Kind: KindInput, Msg: "encode the request: " + err.Error(), err: err}
	}
	for attempt := 0; ; attempt++ {
		ans, retryAfter, err := c.attempt(ctx, p, body)
		if err == nil {
			return ans, attempt + 1, nil
		}
		je, _ := AsError(err)
		retryable := je != nil && (je.Kind == KindRateLimited || je.Kind == KindUpstream && (je.Status >= 500 || je.Status == 0))
		if !retryable || attempt >= p.cfg.MaxRetries {
			return answer{}, attempt + 1, err
		}
		wait := backoff(attempt)
		if retryAfter > 0 {
			wait = retryAfter
		}
		if wait > p.cfg.MaxRetryWait {
			je.Msg += fmt.Sprintf(" (the provider asks to wait %s, more than max_retry_wait %s)", wait.Round(time.Millisecond), p.cfg.MaxRetryWait)
			return answer{}, attempt + 1, err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return answer{}, attempt + 1, &Error{Kind: KindTimeout, Provider: p.cfg.Name, Msg: "gave up while waiting to retry: " + ctx.Err().Error(), err: ctx.Err()}
		}
	}
}

// backoff is the wait before retry attempt+1: 250 ms doubling, with ±20 %
// jitter.
func backoff(attempt int) time.Duration {
	d := 250 * time.Millisecond << min(attempt, 8)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// attempt makes one HTTP request; on failure it also returns the wait the
// provider asked for (Retry-After), if any.
func (c *Client) attempt(ctx context.Context, p *provider, body []byte) (answer, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, p.cfg.BaseURL+p.proto.endpoint(), bytes.NewReader(body))
	if err != nil {
		return answer{}, 0, &Error{Kind: KindUpstream, Provider: p.cfg.Name, Msg: "build the request: " + p.redact(err.Error()), err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range p.cfg.Headers {
		req.Header.Set(k, v)
	}
	p.proto.authorize(req.Header, p.cfg.APIKey)
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, 0, p.transportError(ctx, actx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, p.cfg.MaxResponseBytes+1))
	if err != nil {
		return answer{}, 0, p.transportError(ctx, actx, err)
	}
	if int64(len(data)) > p.cfg.MaxResponseBytes {
		return answer{}, 0, &Error{Kind: KindUpstream, Provider: p.cfg.Name, Status: resp.StatusCode,
			Msg: fmt.Sprintf("the answer is larger than max_response_bytes (%d bytes); it was not read", p.cfg.MaxResponseBytes)}
	}
	if resp.StatusCode/100 != 2 {
		msg := p.proto.errorMessage(data)
		if msg == "" {
			msg = strings.TrimSpace(string(data))
		}
		msg = bounded(p.redact(msg), 512)
		retryAfter := parseRetryAfter(resp.Header, time.Now())
		kind := KindUpstream
		if resp.StatusCode == http.StatusTooManyRequests {
			kind = KindRateLimited
		}
		return answer{}, retryAfter, &Error{Kind: kind, Provider: p.cfg.Name, Status: resp.StatusCode, RetryAfter: retryAfter,
			Msg: fmt.Sprintf("answered HTTP %d: %s", resp.StatusCode, msg)}
	}
	ans, err := p.proto.parse(data)
	if err != nil {
		return answer{}, 0, &Error{Kind: KindOutput, Provider: p.cfg.Name, Status: resp.StatusCode, Msg: err.Error(),
			Raw: bounded(string(data), RawLimit), err: err}
	}
	return ans, 0, nil
}

// transportError classifies a failed request: a timeout of the attempt,
// the caller's context ending, or a failed connection.
func (p *provider) transportError(ctx, actx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return &Error{Kind: KindTimeout, Provider: p.cfg.Name, Msg: "the request ended: " + ctx.Err().Error(), err: err}
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return &Error{Kind: KindTimeout, Provider: p.cfg.Name, Msg: fmt.Sprintf("no answer within the timeout (%s)", p.cfg.Timeout), err: err}
	}
	var ne net.Error
	msg := "cannot reach the provider"
	if errors.As(err, &ne) && ne.Timeout() {
		msg = "the connection timed out"
	}
	return &Error{Kind: KindUpstream, Provider: p.cfg.Name, Msg: msg + ": " + p.redact(err.Error()), err: err}
}

// redact removes the provider's key and header values from a message
// (some servers echo them).
func (p *provider) redact(s string) string {
	if len(p.cfg.APIKey) >= 4 {
		s = strings.ReplaceAll(s, p.cfg.APIKey, "[redacted]")
	}
	for _, v := range p.cfg.Headers {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}

// maxRetryAfter caps the wait a provider may ask for (beyond it a
// duration would be absurd, or overflow).
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds
// or an HTTP date); 0 when absent or unreadable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}
