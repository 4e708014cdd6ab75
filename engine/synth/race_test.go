//go:build race

package synth

// raceEnabled is set when the race detector is on: the tests then write
// fewer models, as the detector slows the quantizers tenfold.
const raceEnabled = true
