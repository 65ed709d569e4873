package customevaluators

import (
	"strings"
	"testing"
)

func TestSlugFromName(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"Refund Policy", "refund-policy"},
		{"  Tone -- of  voice!! ", "tone-of-voice"},
		{"Ünïcode Judge 2", "n-code-judge-2"},
		{"日本語", "evaluator"},
		{strings.Repeat("ab ", 40), strings.Repeat("ab-", 21) + "a"}, // cut at 64 bytes
	} {
		got := slugFromName(tc.name)
		if got != tc.want || checkSlug(got) != nil {
			t.Errorf("slugFromName(%q) = %q (valid: %v), want %q", tc.name, got, checkSlug(got), tc.want)
		}
	}
}

func TestApplyUpdateKeepsWhatIsNotNamed(t *testing.T) {
	d := Definition{Name: "a", Provider: "p", Model: "m1", Description: "d"}
	changed, err := applyUpdate(&d, []byte(`{"config": {"llm_config": {"max_tokens": 50}}}`))
	if err != nil || !changed || d.Model != "m1" || d.Provider != "p" || d.Description != "d" || d.Params.MaxTokens == nil || *d.Params.MaxTokens != 50 {
		t.Errorf("changed %v, err %v, definition %+v", changed, err, d)
	}
	if _, err := applyUpdate(&d, []byte(`{"config": {"llm_config": {"top_p": 2}}}`)); err == nil || err.Error() != "config.llm_config.top_p: must be between 0 and 1, got 2" {
		t.Errorf("bad top_p: %v", err)
	}
}
