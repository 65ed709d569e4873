//go:build race

package pii

// raceDetector: the race detector makes these single-goroutine equivalence
// checks about ten times slower; under it they take a sample of the
// corpus (the README's test command, without it, takes all of it).
const raceDetector = true
