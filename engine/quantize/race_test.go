//go:build race

package quantize

// raceEnabled reports a -race build, in which the slow reference
// quantizers make the tests check fewer models and types.
const raceEnabled = true
