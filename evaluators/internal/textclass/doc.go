// Package textclass is the small text classifier shared by the trained
// evaluators (toxicity, sexism, prompt injection): logistic regression over
// signed, hashed word and character n-grams of normalised text, with a
// Platt-scaled (calibrated) probability.
//
// Training (Train) is deterministic: the same texts, labels and options give
// the same model bytes (MarshalBinary) on every run. Scoring (Probability)
// hashes n-grams with FNV-1a over byte ranges of a pooled normalisation
// buffer, so it does not allocate per call once warm; the weights are read
// from a float16 table. MaxWindowProbability scores overlapping windows of
// one text from prefix sums over its features (float16 weights sum exactly
// in whole units of 2^-24), bit for bit as scoring each window alone.
//
// Text holds one input's normal forms, computed once and shared by every
// classifier and rule set that reads it (through a TextCache in the
// context, see WithTextCache); Repairer undoes obfuscated spellings
// (deleted, swapped or added letters, split words) of a vocabulary before
// rules run.
package textclass
