//go:build !race

package fit

// raceEnabled: the race detector's shadow memory inflates the resident set.
const raceEnabled = false
