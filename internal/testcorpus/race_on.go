//go:build race

package testcorpus

// raceStride: under the race detector Texts is every fourth text.
const raceStride = 4
