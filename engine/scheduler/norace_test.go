//go:build !race

package scheduler

// raceEnabled is set when the race detector is on.
const raceEnabled = false
