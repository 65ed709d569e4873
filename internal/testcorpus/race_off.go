//go:build !race

package testcorpus

// raceStride: without the race detector Texts is the whole corpus.
const raceStride = 1
