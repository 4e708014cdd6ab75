//go:build !unix

package cpu

import "testing"

// cpuTime runs loop (a b.Loop loop); this system reports no CPU time per
// iteration (see cputime_unix_test.go).
func cpuTime(b *testing.B, loop func()) { loop() }
