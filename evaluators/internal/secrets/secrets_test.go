package secrets

import (
	"strings"
	"sync"
	"testing"

	"github.com/evalcol/evalcol/evaluators/internal/secrets/fixtures"
)

// TestFamiliesDetected checks that every credential family of the fixtures
// is found in every generated sample.
func TestFamiliesDetected(t *testing.T) {
	byKind := map[string][]fixtures.Sample{}
	for _, s := range fixtures.Generate(2026, 30, 0) {
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	for kind, samples := range byKind {
		t.Run(kind, func(t *testing.T) {
			missed := 0
			for _, s := range samples {
				has, err := Has(s.Text)
				if err != nil {
					t.Fatal(err)
				}
				if !has {
					missed++
					t.Logf("missed: %q", s.Text)
				}
			}
			if missed > 0 {
				t.Errorf("%d of %d %s samples not detected", missed, len(samples), kind)
			}
		})
	}
}

// TestNegativesFixtures bounds false positives on generated prose and code.
func TestNegativesFixtures(t *testing.T) {
	var fp, n int
	for _, s := range fixtures.Generate(11, 0, 300) {
		has, err := Has(s.Text)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if has {
			fp++
			t.Logf("false positive (%s): %q", s.Kind, s.Text)
		}
	}
	if rate := float64(fp) / float64(n); rate > 0.02 {
		t.Errorf("false positive rate %.3f (%d of %d), want <= 0.02", rate, fp, n)
	}
}

// TestGitleaksRules checks that the detector keeps every default rule but
// the generic one, and that gitleaks alone finds keyword-free credentials.
func TestGitleaksRules(t *testing.T) {
	d, err := gitleaksDetector()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Config.Rules[genericRule]; ok {
		t.Errorf("rule %s still present", genericRule)
	}
	if n := len(d.Config.Rules); n != 221 {
		t.Errorf("%d rules, want 221 (the 222 defaults minus %s)", n, genericRule)
	}
	cases := map[string]string{
		"github":     "see ghp_" + "Q3kZ9xLm2Pw8Rt5Vy1Bc4Dn7Fh0Jk6Gs3Ha9",
		"aws":        "use AKIA" + "QX7ZKD2MPLT4WB6N please",
		"slack hook": "post to https://hooks.slack.com/services/T" + "0A1B2C3D4E/B5F6G7H8I9/" + "aB3dE5gH7jK9mN1pQ3sT5vW7",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			fs, err := gitleaksFindings(text)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) == 0 {
				t.Errorf("gitleaks found nothing in %q", text)
			}
		})
	}
}

func TestNotSecrets(t *testing.T) {
	cases := map[string]string{
		"empty password":       `password = ""`,
		"getenv":               `password = os.Getenv("DB_PASSWORD")`,
		"environ":              `api_key = os.environ["API_KEY"]`,
		"shell placeholder":    `DB_PASSWORD=${DB_PASSWORD}`,
		"template placeholder": `api_key: "<your-api-key>"`,
		"helm template":        `password: "{{ .Values.password }}"`,
		"all same":             `secret = "aaaaaaaaaaaaaaaaaaaaaaaa"`,
		"uuid without keyword": `request_id = "3f2b8c1e-9d4a-4b7e-8f21-6c0d9e5a1b34"`,
		"token type":           `token_type = "bearer"`,
		"max tokens":           `max_tokens = 4096`,
		"prose":                "Please remember to reset your password every ninety days. The secret ingredient is paprika.",
		"prose with colon":     "The secret: patience and practice.",
		"function argument":    `self.password = password`,
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			fs, err := Scan(text)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) > 0 {
				t.Errorf("Scan(%q) = %v, want no finding", text, fs)
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	cases := []struct {
		name, text, rule string
	}{
		{"quoted password", `password = "Zx8!kqPLm2w9"`, "keyword"},
		{"yaml password", "db:\n  password: Tr0ub4dor&3x", "keyword"},
		{"json secret", `{"client_secret": "q8Jd2LmX0pWz"}`, "keyword"},
		{"env token", "API_TOKEN=9f8e7d6c5b4a3f2e1d0c", "keyword"},
		{"entropy near keyword", "the auth header carries 8fJ2kQ9xL3mN7pR1sT5vW0yZ4bC6dE8gH", "high-entropy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := Scan(c.text)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range fs {
				if f.Rule == c.rule {
					found = true
				}
			}
			if !found {
				t.Errorf("Scan(%q) = %v, want a %s finding", c.text, fs, c.rule)
			}
		})
	}
}

func TestShannon(t *testing.T) {
	cases := []struct {
		s    string
		want float64
	}{
		{"aaaa", 0},
		{"abab", 1},
		{"abcd", 2},
		{"0123456789abcdef", 4},
	}
	for _, c := range cases {
		t.Run(c.s, func(t *testing.T) {
			if got := shannon(c.s); got != c.want {
				t.Errorf("shannon(%q) = %v, want %v", c.s, got, c.want)
			}
		})
	}
}

// TestConcurrentScan runs the shared gitleaks detector from several
// goroutines (run with -race).
func TestConcurrentScan(t *testing.T) {
	samples := fixtures.Generate(3, 2, 5)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, s := range samples {
				has, err := Has(s.Text)
				if err != nil {
					t.Error(err)
					return
				}
				if has != s.Secret {
					t.Errorf("Has(%q) = %v, want %v", s.Text, has, s.Secret)
				}
			}
		})
	}
	wg.Wait()
}

var prose1KB = strings.Repeat("The committee met on Tuesday to review the annual budget and the new office plans. ", 12)

func BenchmarkHasProse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Has(prose1KB); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHasKeywordProse(b *testing.B) {
	text := strings.Repeat("Please reset your password and keep the secret token safe in the vault. ", 14)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Has(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGitleaksOnlyKeywordProse(b *testing.B) {
	text := strings.Repeat("Please reset your password and keep the secret token safe in the vault. ", 14)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gitleaksFindings(text); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGitleaksOnlyProse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gitleaksFindings(prose1KB); err != nil {
			b.Fatal(err)
		}
	}
}
