//go:build !race

package pii

// raceDetector: see race_on_test.go.
const raceDetector = false
