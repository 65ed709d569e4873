//go:build race

package sqlite

// raceEnabled: the race detector slows SQLite (translated C) about
// thirtyfold, so the randomised tests draw fewer queries under it.
const raceEnabled = true
