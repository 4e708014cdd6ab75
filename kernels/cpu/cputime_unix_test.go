//go:build unix

package cpu

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime runs loop (a b.Loop loop) and reports the process's CPU time per
// iteration (cpu-ns/op), which is steadier than the wall clock on a
// machine other work shares.
func cpuTime(b *testing.B, loop func()) {
	var r0, r1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	loop()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
