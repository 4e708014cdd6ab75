//go:build race

package quant_test

// raceEnabled reports a -race build, in which the conformance tests check
// only part of each tensor to stay fast.
const raceEnabled = true
