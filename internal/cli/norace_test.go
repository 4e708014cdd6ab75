//go:build !race

package cli

// raceEnabled is set when the race detector is on: the tests whose time is
// single-threaded arithmetic (quantizing, the GPU emulator, one model per
// template) do less under it, as make race leaves out the packages that
// only do such arithmetic.
const raceEnabled = false
