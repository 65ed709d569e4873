package judge

// Environment variables the official SDKs read, and evalcol reads when the
// configuration names no provider.
const (
	EnvOpenAIAPIKey     = "OPENAI_API_KEY"
	EnvOpenAIBaseURL    = "OPENAI_BASE_URL"
	EnvAnthropicAPIKey  = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"
)

// DefaultMaxRetries is the retries of a provider taken from the
// environment (as the official SDKs do: 2).
const DefaultMaxRetries = 2

// FromEnvironment returns the providers the official SDKs would reach with
// the environment getenv reads: "openai" when OPENAI_API_KEY or
// OPENAI_BASE_URL is set, "anthropic" when ANTHROPIC_API_KEY or
// ANTHROPIC_BASE_URL is set. Other fields take the defaults.
func FromEnvironment(getenv func(string) string) []ProviderConfig {
	var out []ProviderConfig
	if key, base := getenv(EnvOpenAIAPIKey), getenv(EnvOpenAIBaseURL); key != "" || base != "" {
		out = append(out, ProviderConfig{Name: TypeOpenAI, Type: TypeOpenAI, BaseURL: base, APIKey: key, MaxRetries: DefaultMaxRetries})
	}
	if key, base := getenv(EnvAnthropicAPIKey), getenv(EnvAnthropicBaseURL); key != "" || base != "" {
		out = append(out, ProviderConfig{Name: TypeAnthropic, Type: TypeAnthropic, BaseURL: base, APIKey: key, MaxRetries: DefaultMaxRetries})
	}
	return out
}
