package alerting

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Webhook formats.
const (
	FormatJSON  = "json"
	FormatSlack = "slack"
)

// Signature headers of JSON webhooks: the signature is
// "sha256=" + hex(HMAC-SHA256(secret, timestamp + "." + body)).
const (
	HeaderSignature = "X-Evalcol-Signature"
	HeaderTimestamp = "X-Evalcol-Timestamp"
)

// Webhook is a notification target of the operator's configuration.
type Webhook struct {
	URL    string
	Secret string
	Format string // FormatJSON (default) or FormatSlack
	// Timeout bounds one attempt (default 10 s).
	Timeout time.Duration
}

// Notifier sends notifications to the configured webhooks with retries.
type Notifier struct {
	Webhooks map[string]Webhook
	Client   *http.Client
	// Attempts per webhook (default 3); Backoff before the second (default
	// 1 s), doubling.
	Attempts int
	Backoff  time.Duration
	// ConsoleURL, when set, is linked from notifications.
	ConsoleURL string
}

// Payload is the JSON body of a notification.
type Payload struct {
	Status      string  `json:"status"` // firing or resolved
	Event       string  `json:"event"`  // fired, repeated, resolved, test
	RuleID      string  `json:"rule_id"`
	RuleName    string  `json:"rule_name"`
	Condition   string  `json:"condition"`
	Environment string  `json:"environment"`
	Value       float64 `json:"value"`
	Count       int64   `json:"count"`
	Threshold   float64 `json:"threshold"`
	Time        string  `json:"time"`
	Link        string  `json:"link,omitempty"`
}

// NewPayload describes ev of rule r in environment env.
func (n *Notifier) NewPayload(r Rule, env string, ev Event) Payload {
	p := Payload{Status: StatusFiring, Event: ev.Kind, RuleID: r.ID, RuleName: r.Name, Condition: r.Condition(), Environment: env,
		Value: ev.Value, Count: ev.Count, Threshold: r.Threshold, Time: ev.Time.UTC().Format(time.RFC3339)}
	if ev.Kind == EventResolved {
		p.Status = "resolved"
	}
	if n.ConsoleURL != "" {
		p.Link = n.ConsoleURL + "/ui/alerts"
	}
	return p
}

// text is the one-line message of a Slack-compatible payload.
func (p Payload) text() string {
	icon := ":red_circle:"
	if p.Status == "resolved" {
		icon = ":large_green_circle:"
	}
	msg := fmt.Sprintf("%s [%s] %s (%s): %s; now %.4g over %d in %s", icon, p.Status, p.RuleName, p.Event, p.Condition, p.Value, p.Count, p.Environment)
	if p.Link != "" {
		msg += " <" + p.Link + "|open>"
	}
	return msg
}

// Send posts p to each named webhook and reports each one's delivery. A
// name that is not configured (any more) is a failed delivery.
func (n *Notifier) Send(ctx context.Context, names []string, p Payload) []Delivery {
	out := make([]Delivery, 0, len(names))
	for _, name := range names {
		wh, ok := n.Webhooks[name]
		if !ok {
			out = append(out, Delivery{Webhook: name, Error: "no such webhook in the configuration"})
			continue
		}
		out = append(out, n.deliver(ctx, name, wh, p))
	}
	return out
}

func (n *Notifier) deliver(ctx context.Context, name string, wh Webhook, p Payload) Delivery {
	var body []byte
	if wh.Format == FormatSlack {
		body, _ = json.Marshal(map[string]string{"text": p.text()})
	} else {
		body, _ = json.Marshal(p)
	}
	attempts, backoff := n.Attempts, n.Backoff
	if attempts <= 0 {
		attempts = 3
	}
	if backoff <= 0 {
		backoff = time.Second
	}
	d := Delivery{Webhook: name}
	for d.Attempts < attempts {
		if d.Attempts > 0 {
			select {
			case <-ctx.Done():
				d.Error = ctx.Err().Error()
				return d
			case <-time.After(backoff):
			}
			backoff *= 2
		}
		d.Attempts++
		status, err := n.post(ctx, wh, body)
		d.Status, d.Error = status, ""
		if err != nil {
			d.Error = err.Error()
			continue
		}
		if status >= 200 && status < 300 {
			return d
		}
		d.Error = "answered " + strconv.Itoa(status)
		if status != http.StatusTooManyRequests && status < 500 {
			return d // the receiver refuses it: retrying will not help
		}
	}
	return d
}

func (n *Notifier) post(ctx context.Context, wh Webhook, body []byte) (int, error) {
	timeout := wh.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "evalcol-alerts")
	if wh.Secret != "" && wh.Format != FormatSlack {
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		req.Header.Set(HeaderTimestamp, ts)
		req.Header.Set(HeaderSignature, Sign(wh.Secret, ts, body))
	}
	client := n.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// Sign is the signature header value of body sent at timestamp ts.
func Sign(secret, ts string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}
