//go:build race

package model

// raceEnabled is set when the race detector is on: the conformance test
// then checks two models only, as the detector slows it tenfold.
const raceEnabled = true
