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
	"unicode/utf8"
	"unsafe"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// Finding is one secret found: the rule that found it ("gitleaks:<id>",
// "keyword" or "high-entropy") and its byte offsets (-1 when unknown:
// gitleaks reports lines and the secret, located by its first occurrence).
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

// ruleSet runs gitleaks rule by rule: the same keyword prefilter as
// gitleaks' own (an Aho-Corasick trie over the lower-cased text), then only
// the rules whose keywords occur, each through a detector of its own. A
// text that holds none of the keywords costs one trie walk instead of a
// full DetectString; the verdict is the same, because gitleaks runs a rule
// with keywords only when one of them occurs in the lower-cased text.
type ruleSet struct {
	trie *ahocorasick.Trie
	// keywordRules[i] are the indices in detectors of the rules with
	// keyword i (the trie's pattern i).
	keywordRules [][]int
	// always are the indices in detectors of the rules without keywords.
	always    []int
	detectors []*detect.Detector
	// gates[i], when not nil, is a necessary condition for rule i to
	// match: rule i is skipped when it reports false.
	gates []func(text string) bool
}

// vaultServiceToken is the regular expression of gitleaks' rule
// vault-service-token, whose keyword "s." occurs in nearly all prose.
const vaultServiceToken = `\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:[\x60'"\s;]|\\[nr]|$)`

// ruleGates are necessary conditions for rules whose keywords occur in
// ordinary prose, keyed by rule id and the regular expression they were
// derived from (a gate is dropped when gitleaks changes the rule).
var ruleGates = map[string]struct {
	regex string
	gate  func(text string) bool
}{
	"vault-service-token": {vaultServiceToken, hasTokenAfterSDot},
	// Both parts of a JWT but the first start with ".ey".
	"jwt": {jwtToken, func(text string) bool { return strings.Contains(text, ".ey") }},
	// A Twilio key is "SK" and 32 hex digits.
	"twilio-api-key": {twilioAPIKey, hasHexAfterSK},
}

// jwtToken and twilioAPIKey are the regular expressions of gitleaks'
// rules jwt and twilio-api-key, whose keywords "ey" and "sk" occur in
// nearly all prose.
const (
	jwtToken     = `\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)(?:[\x60'"\s;]|\\[nr]|$)`
	twilioAPIKey = `SK[0-9a-fA-F]{32}`
)

// hasHexAfterSK reports whether some "SK" in text is followed by a hex
// digit.
func hasHexAfterSK(text string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], "SK")
		if i < 0 {
			return false
		}
		i += from + 2
		if i < len(text) {
			c := text[i]
			if (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') {
				return true
			}
		}
		from = i
	}
}

// hasTokenAfterSDot reports whether some "s." in text is followed by a
// byte that can start vaultServiceToken's token: [\w-] after "hvs.", an
// ASCII letter or digit after "s." or, under (?i), a multi-byte letter
// that folds to one (U+017F, U+212A).
func hasTokenAfterSDot(text string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], "s.")
		if i < 0 {
			return false
		}
		i += from + 2
		if i < len(text) {
			c := text[i]
			if c == '_' || c == '-' || c >= utf8.RuneSelf || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') {
				return true
			}
		}
		from = i
	}
}

// gitleaksRules is the rule-by-rule form of gitleaksDetector, built once
// and only read afterwards.
var gitleaksRules = sync.OnceValues(func() (*ruleSet, error) {
	full, err := gitleaksDetector()
	if err != nil {
		return nil, err
	}
	cfg := full.Config
	rs := &ruleSet{}
	keywordIndex := map[string]int{}
	var keywords []string
	for _, id := range cfg.OrderedRules {
		r := cfg.Rules[id]
		if len(r.Keywords) == 0 && r.Regex == nil && r.Path != nil && !r.Path.MatchString("") {
			// A path-only rule: DetectString scans no path, so it
			// cannot match.
			continue
		}
		one := cfg
		one.Rules = map[string]config.Rule{id: r}
		one.OrderedRules = []string{id}
		one.Keywords = make(map[string]struct{}, len(r.Keywords))
		for _, k := range r.Keywords {
			one.Keywords[strings.ToLower(k)] = struct{}{}
		}
		ri := len(rs.detectors)
		rs.detectors = append(rs.detectors, detect.NewDetector(one))
		var gate func(string) bool
		if g, ok := ruleGates[id]; ok && r.Regex != nil && r.Regex.String() == g.regex {
			gate = g.gate
		}
		rs.gates = append(rs.gates, gate)
		if len(r.Keywords) == 0 {
			rs.always = append(rs.always, ri)
			continue
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			ki, ok := keywordIndex[k]
			if !ok {
				ki = len(keywords)
				keywordIndex[k] = ki
				keywords = append(keywords, k)
				rs.keywordRules = append(rs.keywordRules, nil)
			}
			if !slices.Contains(rs.keywordRules[ki], ri) {
				rs.keywordRules[ki] = append(rs.keywordRules[ki], ri)
			}
		}
	}
	rs.trie = ahocorasick.NewTrieBuilder().AddStrings(keywords).Build()
	return rs, nil
})

// has reports whether any rule finds a secret in text, whose lower-cased
// form (strings.ToLower, as gitleaks normalises it) is lower.
func (rs *ruleSet) has(text string, lower []byte) bool {
	var run [8]uint64 // a bit per detector; 8*64 > the 221 rules
	if len(rs.detectors) > len(run)*64 {
		panic("secrets: more gitleaks rules than the rule bitmap holds")
	}
	for _, ri := range rs.always {
		run[ri/64] |= 1 << (ri % 64)
	}
	rs.trie.Walk(lower, func(_, _, pattern int64) bool {
		for _, ri := range rs.keywordRules[pattern] {
			run[ri/64] |= 1 << (ri % 64)
		}
		return true
	})
	for ri, d := range rs.detectors {
		if run[ri/64]&(1<<(ri%64)) == 0 || (rs.gates[ri] != nil && !rs.gates[ri](text)) {
			continue
		}
		if len(d.DetectString(text)) > 0 {
			return true
		}
	}
	return false
}

// Scan returns every secret found in text.
func Scan(text string) ([]Finding, error) {
	lower := asciiLower(text)
	out := keywordFindings(text, lower, false)
	out = append(out, entropyFindings(text, lower, false)...)
	gl, err := gitleaksFindings(text)
	if err != nil {
		return nil, err
	}
	return append(out, gl...), nil
}

// Has reports whether text holds a secret; it stops at the first one.
func Has(text string) (bool, error) {
	rs, err := gitleaksRules()
	if err != nil {
		return false, err
	}
	bp := lowerBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledLower {
			lowerBuffers.Put(bp)
		}
	}()
	lowerBytes := appendASCIILower((*bp)[:0], text)
	*bp = lowerBytes
	// lowerBytes is not changed while lower is in use, and neither
	// outlives this call: the findings are only counted.
	lower := unsafe.String(unsafe.SliceData(lowerBytes), len(lowerBytes))
	if hasSecretKeyword(lower) {
		if len(keywordFindings(text, lower, true)) > 0 || len(entropyFindings(text, lower, true)) > 0 {
			return true, nil
		}
	}
	if !isASCII(text) {
		lowerBytes = []byte(strings.ToLower(text))
	}
	return rs.has(text, lowerBytes), nil
}

func gitleaksFindings(text string) ([]Finding, error) {
	d, err := gitleaksDetector()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range d.DetectString(text) {
		fd := Finding{Rule: "gitleaks:" + f.RuleID, Start: -1, End: -1}
		if f.Secret != "" {
			if i := strings.Index(text, f.Secret); i >= 0 {
				fd.Start, fd.End = i, i+len(f.Secret)
			}
		}
		out = append(out, fd)
	}
	return out, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// secretKeywords are the words that make a name a secret's name; matching
// is on the lower-cased text.
var secretKeywords = []string{"pass", "pwd", "secret", "token", "api_key", "apikey", "api-key",
	"access_key", "accesskey", "private_key", "privatekey", "credential", "auth", "bearer", "client_secret"}

// hasSecretKeyword is the cheap prefilter of the keyword and entropy
// detectors: whether lower holds one of secretKeywords. It reads lower
// once, trying at each byte pair only the keywords that start with it.
func hasSecretKeyword(lower string) bool {
	for i := 0; i+1 < len(lower); i++ {
		pair := uint16(lower[i])<<8 | uint16(lower[i+1])
		if keywordPairs[pair/64]&(1<<(pair%64)) == 0 {
			continue
		}
		for _, k := range secretKeywords {
			if strings.HasPrefix(lower[i:], k) {
				return true
			}
		}
	}
	return false
}

// keywordPairs has a bit for the first two bytes of every secretKeyword.
var keywordPairs = func() (t [1 << 16 / 64]uint64) {
	for _, k := range secretKeywords {
		pair := uint16(k[0])<<8 | uint16(k[1])
		t[pair/64] |= 1 << (pair % 64)
	}
	return t
}()

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
// the first when first is true); lower is asciiLower(text).
func keywordFindings(text, lower string, first bool) []Finding {
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
	if !mayBeAssignment(window) {
		return Finding{}, false
	}
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

// mayBeAssignment is a necessary condition for assignment to match
// window: the name (a maximal run of name characters, since none of them
// can follow it), an optional quote, blanks, then ':' or '='.
func mayBeAssignment(window string) bool {
	i := 0
	for i < len(window) {
		r, size := utf8.DecodeRuneInString(window[i:])
		if !isAssignmentNameRune(r) {
			break
		}
		i += size
	}
	if i < len(window) && (window[i] == '"' || window[i] == '\'') {
		i++
	}
	for i < len(window) && (window[i] == ' ' || window[i] == '\t') {
		i++
	}
	return i < len(window) && (window[i] == ':' || window[i] == '=')
}

// isAssignmentNameRune reports whether r is in assignment's name class
// [a-z0-9_.\-] under (?i), which also folds U+017F to s and U+212A to k.
func isAssignmentNameRune(r rune) bool {
	return r == '_' || r == '.' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') ||
		(r >= 'A' && r <= 'Z') || r == '\u017f' || r == '\u212a'
}

func isNameByte(b byte) bool {
	return b == '_' || b == '.' || b == '-' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z')
}

// asciiLower lower-cases the ASCII letters of s, keeping every offset.
func asciiLower(s string) string {
	return string(asciiLowerBytes(s))
}

// asciiLowerBytes is asciiLower as a fresh byte slice.
func asciiLowerBytes(s string) []byte {
	return appendASCIILower(nil, s)
}

// appendASCIILower appends asciiLower(s) to dst.
func appendASCIILower(dst []byte, s string) []byte {
	n := len(dst)
	dst = append(dst, s...)
	b := dst[n:]
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return dst
}

// lowerBuffers pools the lower-cased copies of Has.
var lowerBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledLower bounds the capacity of a pooled lower-cased copy.
const maxPooledLower = 64 << 10

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
// before them on the same line; lower is asciiLower(text).
func entropyFindings(text, lower string, first bool) []Finding {
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
