//go:build race

package vision

// raceEnabled: the race detector slows the encoder tenfold, so -short
// checks one reference picture under it.
const raceEnabled = true
