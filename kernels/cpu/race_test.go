//go:build race

package cpu

// raceEnabled is set when the race detector is on.
const raceEnabled = true
