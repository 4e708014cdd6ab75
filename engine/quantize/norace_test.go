//go:build !race

package quantize_test

// raceEnabled reports a -race build, in which the slow reference
// quantizers make the tests check fewer models and types.
const raceEnabled = false
