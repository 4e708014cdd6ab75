//go:build !race

package model

// raceEnabled is set when the race detector is on.
const raceEnabled = false
