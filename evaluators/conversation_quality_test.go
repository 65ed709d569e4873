package evaluators

import (
	"encoding/json"
	"testing"
)

func TestConversationQuality(t *testing.T) {
	in := func(prompts, completions string) map[string]any {
		return map[string]any{"prompts": prompts, "completions": completions}
	}
	runJudgeCases(t, "conversation-quality", []judgeCase{
		{"helpful answer", in(`["How do I reset my password?"]`, `["Open Settings, choose Security and click Reset password. You will get an email with a link."]`),
			judgeScore("conversation_quality_score", 0.8, 1)},
		{"role objects, system skipped", in(`[{"role":"system","content":"Be kind."},{"role":"user","content":"How do I reset my password?"}]`,
			`[{"role":"assistant","content":"Thanks for asking! Open Settings, then Security, and click Reset password."}]`),
			judgeScore("conversation_quality_score", 0.8, 1)},
		{"rude reply", in(`["How do I reset my password?"]`, `["Whatever, google it."]`), judgeScore("conversation_quality_score", 0, 0.4)},
		{"admits a limit", in(`["What is my account balance?"]`, `["I'm sorry, I can't access your account. Please check the banking app."]`),
			judgeScore("conversation_quality_score", 0.6, 1)},
		{"off topic", in(`["How do I reset my password?"]`, `["The Louvre is in Paris, on the right bank of the Seine."]`),
			judgeScore("conversation_quality_score", 0, 0.5)},
		{"repeated answer", in(`["How do I reset my password?", "And how do I change my email?"]`,
			`["Open Settings and click Reset password.", "Open Settings and click Reset password."]`),
			judgeScore("conversation_quality_score", 0, 0.75)},
		{"no completion", in(`[]`, `[]`), judgeScore("conversation_quality_score", 0, 0)},
		{"unicode", in(`["Comment réinitialiser mon mot de passe ?"]`, `["Ouvrez les réglages et cliquez sur réinitialiser le mot de passe."]`),
			judgeScore("conversation_quality_score", 0.5, 1)},
	})
}

func TestConversationQualityBadInput(t *testing.T) {
	cases := []struct {
		name               string
		prompts, completes string
		field, msg         string
	}{
		{"prompts not JSON", "How do I reset my password?", `[]`, "input.prompts", "input.prompts must be a JSON array"},
		{"prompts an object", `{"role":"user"}`, `[]`, "input.prompts", "input.prompts must be a JSON array"},
		{"completions not an array", `[]`, `"hello"`, "input.completions", "input.completions must be a JSON array"},
		{"element of the wrong type", `["ok", 3]`, `[]`, "input.prompts", "input.prompts[1] must be a string or a {role, content} object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			judgeInvalid(t, "conversation-quality", map[string]any{"prompts": c.prompts, "completions": c.completes}, c.field, c.msg)
		})
	}
}

func BenchmarkConversationQuality(b *testing.B) {
	prompts, _ := json.Marshal([]string{"Where is the head office of the Oberoi Group?", "When was it founded?"})
	completions, _ := json.Marshal([]string{benchText1K[:512], benchText1K[512:]})
	req := Request{Input: map[string]string{"prompts": string(prompts), "completions": string(completions)}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conversationQuality.Run(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
