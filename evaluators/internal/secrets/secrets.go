// Package secrets finds credentials in text: the default rules of gitleaks
// v8 (cloud and SaaS keys, tokens, private keys; 221 of its 222 rules, all
// but the generic one) plus two detect-secrets style checks: a keyword
// detector for secrets assigned to password/secret/token/api_key-like names
// in code, YAML, JSON and env files, and a high-entropy string detector
// for base64 or hex strings next to a secret keyword.
//
// The gitleaks detector is built once and only read afterwards
// (DetectString touches no shared state but an atomic byte counter), so
// Scan is safe for concurrent use.
package secrets

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// Finding is one secret found: the rule that found it ("gitleaks:<id>",
// "keyword" or "high-entropy") and its byte offsets when known (gitleaks
// reports lines, so its findings have Start = End = -1).
type Finding struct {
	Rule       string
	Start, End int
}

// genericRule is gitleaks' catch-all "keyword = value" rule. It is left
// out: its regular expression costs ~0.6 ms per KB of text that merely
// mentions a password or a token (the other 220 rules together cost a
// fraction of that), and keywordFindings and entropyFindings cover the
// same ground with placeholder and reference filtering.
const genericRule = "generic-api-key"

// gitleaksDetector is the default-config gitleaks detector without
// genericRule, built once and only read afterwards.
var gitleaksDetector = sync.OnceValues(func() (*detect.Detector, error) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("build gitleaks default detector: %w", err)
	}
	cfg := d.Config
	rules := make(map[string]config.Rule, len(cfg.Rules))
	keywords := make(map[string]struct{}, len(cfg.Keywords))
	var ordered []string
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || id == genericRule {
			continue
		}
		rules[id] = r
		ordered = append(ordered, id)
		for _, k := range r.Keywords {
			keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	cfg.Rules, cfg.Keywords, cfg.OrderedRules = rules, keywords, ordered
	return detect.NewDetector(cfg), nil
})

// Scan returns every secret found in text.
func Scan(text string) ([]Finding, error) {
	out := keywordFindings(text, false)
	out = append(out, entropyFindings(text, false)...)
	gl, err := gitleaksFindings(text)
	if err != nil {
		return nil, err
	}
	return append(out, gl...), nil
}

// Has reports whether text holds a secret; it stops at the first one.
func Has(text string) (bool, error) {
	if len(keywordFindings(text, true)) > 0 || len(entropyFindings(text, true)) > 0 {
		return true, nil
	}
	gl, err := gitleaksFindings(text)
	return len(gl) > 0, err
}

func gitleaksFindings(text string) ([]Finding, error) {
	d, err := gitleaksDetector()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range d.DetectString(text) {
		out = append(out, Finding{Rule: "gitleaks:" + f.RuleID, Start: -1, End: -1})
	}
	return out, nil
}

// secretKeywords are the words that make a name a secret's name; matching
// is on the lower-cased text.
var secretKeywords = []string{"pass", "pwd", "secret", "token", "api_key", "apikey", "api-key",
	"access_key", "accesskey", "private_key", "privatekey", "credential", "auth", "bearer", "client_secret"}

// hasSecretKeyword is the cheap prefilter of the keyword and entropy
// detectors.
func hasSecretKeyword(lower string) bool {
	for _, k := range secretKeywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// assignment matches, at the start of its input, name = value, name:
// value, name := value, "name": "value", name => value; group 1 is the
// name, 2 a double-quoted value, 3 a single-quoted value, 4 a bare value.
var assignment = regexp.MustCompile(`^(?i)([a-z0-9_.\-]*(?:pass|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth)[a-z0-9_.\-]*)["']?[ \t]*(?::=|=>|=|:)[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"',;]+))`)

// assignmentKeywords start the search for assignments; each hit is
// extended back to the start of its name.
var assignmentKeywords = []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"}

// maxAssignment bounds the bytes an assignment may span.
const maxAssignment = 400

// nonSecretNameSuffixes end names that hold metadata about a secret, not
// the secret.
var nonSecretNameSuffixes = []string{"type", "name", "id", "field", "hint", "length", "len", "url", "uri", "path", "file",
	"count", "limit", "size", "expiry", "expires", "expires_in", "ttl", "prefix", "header", "label", "policy", "required",
	"min", "max", "endpoint", "reset", "version", "format", "method", "mode", "enabled", "tokens", "usage", "index"}

// keywordFindings finds secrets assigned to secret-like names (stops after
// the first when first is true).
func keywordFindings(text string, first bool) []Finding {
	lower := asciiLower(text)
	if !hasSecretKeyword(lower) {
		return nil
	}
	var out []Finding
	var starts []int // names already tried
	for _, k := range assignmentKeywords {
		for from := 0; ; {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			i += from
			from = i + len(k)
			start := i
			for start > 0 && isNameByte(lower[start-1]) {
				start--
			}
			if slices.Contains(starts, start) {
				continue
			}
			starts = append(starts, start)
			window := text[start:min(len(text), start+maxAssignment)]
			if nl := strings.IndexByte(window, '\n'); nl >= 0 {
				window = window[:nl]
			}
			if f, ok := matchAssignment(window, start); ok {
				out = append(out, f)
				if first {
					return out
				}
			}
		}
	}
	return out
}

// matchAssignment judges the assignment at the start of window (which
// begins at offset base of the text).
func matchAssignment(window string, base int) (Finding, bool) {
	m := assignment.FindStringSubmatchIndex(window)
	if m == nil || !secretName(strings.ToLower(window[m[2]:m[3]])) {
		return Finding{}, false
	}
	var value string
	quoted := true
	switch {
	case m[4] >= 0:
		value = window[m[4]:m[5]]
	case m[6] >= 0:
		value = window[m[6]:m[7]]
	default:
		value = window[m[8]:m[9]]
		quoted = false
	}
	if !secretValue(value, quoted) {
		return Finding{}, false
	}
	return Finding{Rule: "keyword", Start: base + m[0], End: base + m[1]}, true
}

func isNameByte(b byte) bool {
	return b == '_' || b == '.' || b == '-' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z')
}

// asciiLower lower-cases the ASCII letters of s, keeping every offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// secretName reports whether a lower-case name names a secret (not, e.g.,
// token_type, max_tokens or password_hint).
func secretName(name string) bool {
	name = strings.Trim(name, "._-")
	if !strongName(name) {
		return false
	}
	for _, s := range nonSecretNameSuffixes {
		if name == s || strings.HasSuffix(name, "_"+s) || strings.HasSuffix(name, "-"+s) || strings.HasSuffix(name, "."+s) {
			return false
		}
	}
	return !strings.Contains(name, "tokeniz") && !strings.HasSuffix(name, "tokens")
}

// strongKeywords name a secret wherever they appear in a name.
var strongKeywords = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "api_key", "api-key",
	"accesskey", "access_key", "access-key", "privatekey", "private_key", "private-key", "credential", "auth"}

// strongName reports whether a lower-case name holds a strong keyword, or
// "pass" or "pwd" as a whole segment (db_pass, PWD; not compass).
func strongName(name string) bool {
	for _, k := range strongKeywords {
		if strings.Contains(name, k) {
			return true
		}
	}
	for _, seg := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '.' || r == '-' }) {
		if seg == "pass" || seg == "pwd" {
			return true
		}
	}
	return false
}

// secretValue reports whether an assigned value looks like a real secret:
// long enough, not a placeholder, a reference or a variable, and (for a
// bare value, which could be prose) mixing letters with digits, symbols or
// inner capitals.
func secretValue(v string, quoted bool) bool {
	if len(v) < 6 || placeholder(v) {
		return false
	}
	if strings.ContainsAny(v, " \t") {
		return false
	}
	if quoted {
		return true
	}
	if strings.ContainsAny(v, "()[]{}") || strings.HasSuffix(v, ":") {
		return false // a call, an index or a label: code or prose, not a literal
	}
	letters, digits, others, innerUpper := 0, 0, 0, false
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'A' && r <= 'Z':
			letters++
			innerUpper = innerUpper || i > 0
		case r >= 'a' && r <= 'z':
			letters++
		default:
			others++
		}
	}
	return len(v) >= 8 && letters > 0 && (digits > 0 || others > 0 || innerUpper)
}

// placeholderWords mark example and template values.
var placeholderWords = []string{"your", "example", "placeholder", "changeme", "change_me", "dummy", "redacted", "xxxx",
	"****", "....", "<", ">", "todo", "fixme", "sample", "insert", "replace", "secret_here", "here", "env(", "getenv",
	"environ", "process.env", "os.", "config.", "settings.", "vault:", "none", "null", "undefined", "true", "false",
	"password", "secret", "token", "fake", "test"}

// placeholder reports whether v is an empty value, a reference (${VAR},
// {{ var }}, %(var)s, $VAR), a template (<your-api-key>), an example or
// one repeated character.
func placeholder(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "%(") || strings.HasPrefix(v, "%{") ||
		(len(v) > 2 && v[0] == '%' && v[len(v)-1] == '%') || strings.Contains(v, "{{") || strings.Contains(v, "${") {
		return true
	}
	if strings.Count(v, v[:1]) == len(v) {
		return true
	}
	lower := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// Entropy detector thresholds, as detect-secrets' defaults.
const (
	base64Limit      = 4.5
	hexLimit         = 3.0
	minEntropyLength = 20
	// keywordReach is how far before a string (in bytes, same line) a
	// secret keyword may be.
	keywordReach = 40
)

var (
	hexString  = regexp.MustCompile(`^[0-9a-fA-F]+$`)
	uuidString = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
)

// entropyFindings finds high-entropy strings (runs of at least
// minEntropyLength base64 or hex characters) with a secret keyword shortly
// before them on the same line.
func entropyFindings(text string, first bool) []Finding {
	lower := asciiLower(text)
	if !hasSecretKeyword(lower) {
		return nil
	}
	var out []Finding
	for i := 0; i < len(text); {
		if !isBase64Byte(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && isBase64Byte(text[i]) {
			i++
		}
		for j := 0; j < 2 && i < len(text) && text[i] == '='; j++ {
			i++
		}
		s := text[start:i]
		if len(s) < minEntropyLength || uuidString.MatchString(s) || placeholder(s) || !highEntropy(s) {
			continue
		}
		from := max(0, start-keywordReach)
		if nl := strings.LastIndexByte(lower[from:start], '\n'); nl >= 0 {
			from += nl + 1
		}
		if !hasSecretKeyword(lower[from:start]) {
			continue
		}
		out = append(out, Finding{Rule: "high-entropy", Start: start, End: i})
		if first {
			return out
		}
	}
	return out
}

func isBase64Byte(b byte) bool {
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '+' || b == '/' || b == '_' || b == '-'
}

// highEntropy reports whether s has more Shannon entropy per character
// than detect-secrets' limit for its alphabet (hex or base64).
func highEntropy(s string) bool {
	s = strings.TrimRight(s, "=")
	if len(s) < minEntropyLength {
		return false
	}
	if hexString.MatchString(s) {
		return shannon(s) > hexLimit
	}
	return shannon(s) > base64Limit
}

// shannon is the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
