// Package injection detects prompt injection and jailbreak attempts.
//
// Two kinds of evidence are combined (Detector.Score):
//
//   - Rules (MatchRules): chat-template tokens and role headers
//     ("<|im_start|>system", "[INST]", "<<SYS>>", "### System:", ...);
//     instruction-override, prompt-reveal, persona ("DAN", "developer mode")
//     and restriction-removal phrasings in English, German, French,
//     Spanish, Italian, Portuguese, Dutch, Chinese and Russian; and the
//     same rules applied to text hidden with zero-width characters, spelled
//     in invisible Unicode tag characters, or encoded as base64. Each rule
//     carries a confidence score.
//   - A textclass model (hashed word and character n-grams, logistic
//     regression, calibrated) trained by Train on the deepset
//     prompt-injections and jailbreak-classification train sets. It scores
//     sliding windows of 48 words and keeps the highest, so a long prompt
//     is judged by its most suspicious passage, not by its length, and an
//     injection appended to a long benign prompt stays visible.
//
// The combined value is the noisy-OR 1 − (1 − rule)(1 − model), a
// probability-like number in 0..1 that the evaluator compares with its
// threshold.
package injection
