package evaluators

import "testing"

func TestCharCountRatio(t *testing.T) {
	runCases(t, "char-count-ratio", []evalCase{
		{name: "half", input: map[string]any{"numerator_text": "ab", "denominator_text": "abcd"}, want: Result{"char_ratio": 0.5}, pass: passes},
		{name: "code points, not bytes", input: map[string]any{"numerator_text": "héllo wörld", "denominator_text": "hello"}, want: Result{"char_ratio": 11.0 / 5}},
		{name: "longer numerator", input: map[string]any{"numerator_text": "abcdef", "denominator_text": "abc"}, want: Result{"char_ratio": 2.0}},
		{name: "empty denominator is 0", input: map[string]any{"numerator_text": "abc", "denominator_text": ""}, want: Result{"char_ratio": 0.0}},
		{name: "both empty is 0", input: map[string]any{"numerator_text": "", "denominator_text": ""}, want: Result{"char_ratio": 0.0}},
		{name: "spaces count", input: map[string]any{"numerator_text": "a b", "denominator_text": " "}, want: Result{"char_ratio": 3.0}},
		{name: "missing denominator", input: map[string]any{"numerator_text": "a"}, errField: "input.denominator_text", errMsg: "input.denominator_text is required"},
		{name: "numerator not a string", input: map[string]any{"numerator_text": 3.0, "denominator_text": "a"}, errField: "input.numerator_text", errMsg: "input.numerator_text must be a string, got number"},
	})
}

func TestWordCountRatio(t *testing.T) {
	runCases(t, "word-count-ratio", []evalCase{
		{name: "half", input: map[string]any{"numerator_text": "two words", "denominator_text": "four words right here"}, want: Result{"word_ratio": 0.5}, pass: passes},
		{name: "python split", input: map[string]any{"numerator_text": "a\u00a0b\tc\n", "denominator_text": "x"}, want: Result{"word_ratio": 3.0}},
		{name: "whitespace-only denominator is 0", input: map[string]any{"numerator_text": "a b", "denominator_text": " \n\t"}, want: Result{"word_ratio": 0.0}},
		{name: "empty numerator", input: map[string]any{"numerator_text": "", "denominator_text": "a b"}, want: Result{"word_ratio": 0.0}},
		{name: "missing numerator", input: map[string]any{"denominator_text": "a"}, errField: "input.numerator_text", errMsg: "input.numerator_text is required"},
		{name: "unknown config", input: map[string]any{"numerator_text": "a", "denominator_text": "a"}, config: map[string]any{"x": true}, errField: "config.x", errMsg: "config.x is not a config field of word-count-ratio (it takes no config)"},
	})
}
