package evaluators

import (
	"context"
	"testing"
)

func TestSecretsDetector(t *testing.T) {
	cases := []struct {
		name string
		text string
		want bool
	}{
		{"aws access key id", "aws_access_key_id = AKIA" + "QX7ZKD2MPLT4WB6N", true},
		{"password assignment", `DB_PASSWORD="Zx8!kqPLm2w9"`, true},
		{"pem private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7vB9zq3Lx0pY2mW8rT4kN6hJ1sD5fG0aQ2wE3rT6yU8iO9pL\nZx1cV4bN7mK0jH3gF6dS9aP2oI5uY8tR1eW4qQ7zX0cV3bN6mL9kJ2hG5fD8sA1p\n-----END RSA PRIVATE KEY-----", true},
		{"empty password", `password = ""`, false},
		{"environment lookup", `password = os.Getenv("DB_PASSWORD")`, false},
		{"placeholder", `api_key: "<your-api-key>"`, false},
		{"prose", "Remember to change your password and never share the secret with anyone.", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Evaluate(context.Background(), "secrets-detector", map[string]any{"text": c.text}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := res["has_secret"]; got != c.want {
				t.Errorf("has_secret = %v, want %v", got, c.want)
			}
		})
	}
}

func TestSecretsDetectorMissingText(t *testing.T) {
	_, err := Evaluate(context.Background(), "secrets-detector", map[string]any{}, nil)
	if KindOf(err) != KindInvalidInput || err.Error() != "input.text is required" {
		t.Fatalf("err = %v, want invalid input %q", err, "input.text is required")
	}
}

func BenchmarkSecretsDetectorProse(b *testing.B) {
	input := map[string]any{"text": prose1KB}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(ctx, "secrets-detector", input, nil); err != nil {
			b.Fatal(err)
		}
	}
}
