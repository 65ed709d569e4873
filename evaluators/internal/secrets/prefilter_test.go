package secrets

import (
	"strings"
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/secrets/fixtures"
)

// differentialTexts are texts on which the rule-by-rule gitleaks scan and
// the assignment prefilter must agree with their full forms: the generated
// fixtures plus edge cases of the prefilters.
func differentialTexts() []string {
	texts := []string{
		"",
		prose1KB,
		"The token is s.Ab3dEf7hIj9kLm1nOp3qRs5t here",
		"vault: s.Ab3dEf7hIj9kLm1nOp3qRs5t",
		"VAULT_TOKEN=s.ABCDEFGHIJKLMNOPQRSTUVWX\n",
		"token hvs." + strings.Repeat("aB3_-", 20) + " end",
		"Ends with s.",
		"s.\u017fbcdefghijklmnopqrstuvwx ok",
		"s.\u212abcdefghijklmnopqrstuvwx ok",
		"İSTANBUL KEY=AKIAIOSFODNN7EXAMPLE",
		"\u212aEY aws AKIA2OGYBAH6STMJGFJQ \n",
		"Please reset your password and keep the secret token safe in the vault.",
		"db_pass = hunter2Secret9",
		"pa\u017f\u017f = Xy7sdfkj3kjh",
		"api_\u212aey: \"AbCd1234EfGh5678\"",
		"PASSWORD\t:= 'Sup3r$ecret'",
		`{"client_secret": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}`,
		"auth => Bearer abcDEF123456ghi\n",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
		"ghp_" + strings.Repeat("aB3dE", 8)[:36],
		"twilio SK0123456789abcdef0123456789ABCDEF done",
		"ASK SKY: SKabc",
		"a.eyJhbGciOiJIUzI1NiJ9x.eyJ only",
		"xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	}
	for _, s := range fixtures.Generate(7, 20, 100) {
		texts = append(texts, s.Text, strings.ToUpper(s.Text), "Note: "+s.Text+" s.")
	}
	return texts
}

// TestRuleSetMatchesDetector checks that the rule-by-rule scan finds a
// secret exactly when gitleaks' full detector does.
func TestRuleSetMatchesDetector(t *testing.T) {
	full, err := gitleaksDetector()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := gitleaksRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range differentialTexts() {
		want := len(full.DetectString(text)) > 0
		if got := rs.has(text, []byte(strings.ToLower(text))); got != want {
			t.Errorf("rule-by-rule scan = %v, full detector = %v on %q", got, want, text)
		}
	}
}

// TestMayBeAssignmentNecessary checks that the assignment prefilter never
// rejects a window the assignment expression matches.
func TestMayBeAssignmentNecessary(t *testing.T) {
	matched := 0
	for _, text := range differentialTexts() {
		for i := range text {
			window := text[i:min(len(text), i+maxAssignment)]
			if assignment.MatchString(window) {
				matched++
				if !mayBeAssignment(window) {
					t.Errorf("mayBeAssignment rejects a matching window %q", window)
				}
			}
		}
	}
	if matched == 0 {
		t.Fatal("no window matched the assignment expression; the test checks nothing")
	}
}

// TestRuleGatesApplied checks that every gate still matches the gitleaks
// rule it was derived from (after a gitleaks upgrade that changes one, the
// gate is dropped and this test says which to re-derive).
func TestRuleGatesApplied(t *testing.T) {
	rs, err := gitleaksRules()
	if err != nil {
		t.Fatal(err)
	}
	applied := map[string]bool{}
	for ri, d := range rs.detectors {
		if rs.gates[ri] != nil {
			for id := range d.Config.Rules {
				applied[id] = true
			}
		}
	}
	for id := range ruleGates {
		t.Run(id, func(t *testing.T) {
			if !applied[id] {
				t.Errorf("gate for %s not applied: the rule's regular expression changed", id)
			}
		})
	}
}

func TestHasHexAfterSK(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"prose", "I ASK you", false},
		{"at end", "ASK", false},
		{"lower case sk", "sk0123", false},
		{"key", "SK0123456789abcdef", true},
		{"second occurrence", "ASK SKf", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hasHexAfterSK(tt.text); got != tt.want {
				t.Errorf("hasHexAfterSK(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestHasTokenAfterSDot checks the vault-service-token gate on the cases it
// must let through and the prose it may skip.
func TestHasTokenAfterSDot(t *testing.T) {
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"prose", "It was the end of the plans. Then it rained.", false},
		{"at end", "plans s.", false},
		{"empty", "", false},
		{"service token", "s.Ab3dEf7hIj9kLm1nOp3qRs5t", true},
		{"hvs token with underscore", "hvs._abc", true},
		{"hvs token with dash", "hvs.-abc", true},
		{"folded long s", "s.\u017fabc", true},
		{"folded kelvin", "s.\u212aabc", true},
		{"second occurrence", "plans. Then s.x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hasTokenAfterSDot(tt.text); got != tt.want {
				t.Errorf("hasTokenAfterSDot(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func BenchmarkHasFixtures(b *testing.B) {
	samples := fixtures.Generate(2026, 30, 300)
	if _, err := Has(""); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range samples {
			if _, err := Has(s.Text); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkRuleSetBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = gitleaksRules()
	}
}
