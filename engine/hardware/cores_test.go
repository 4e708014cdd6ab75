package hardware

import (
	"runtime"
	"testing"
)

func TestPhysicalCores(t *testing.T) {
	n := PhysicalCores()
	if n < 1 || n > runtime.NumCPU() {
		t.Fatalf("PhysicalCores() = %d with %d logical CPUs", n, runtime.NumCPU())
	}
	t.Logf("%d physical cores, %d logical CPUs", n, runtime.NumCPU())
}

func TestThreads(t *testing.T) {
	for _, tt := range []struct{ in, want int }{
		{0, DefaultThreads()},
		{-3, DefaultThreads()},
		{1, 1},
		{7, 7},
	} {
		if got := Threads(tt.in); got != tt.want {
			t.Errorf("Threads(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
