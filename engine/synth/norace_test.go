//go:build !race

package synth

// raceEnabled is set when the race detector is on.
const raceEnabled = false
