//go:build race

package scheduler

// raceEnabled is set when the race detector is on: the heavier hybrid
// test then skips, as the detector slows its forward passes tenfold and
// its scheduling runs on the loop goroutine alone.
const raceEnabled = true
