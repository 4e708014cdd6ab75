package hardware

import "runtime"

// PhysicalCores returns the number of physical cores of the machine
// (hyper-threads of one core count once), at most runtime.NumCPU() and at
// least 1.
func PhysicalCores() int {
	n := physicalCores()
	if n <= 0 || n > runtime.NumCPU() {
		n = runtime.NumCPU()
	}
	return max(1, n)
}

// DefaultThreads returns the number of threads a CPU backend, a
// quantization or any other compute-bound job uses when nobody chose one:
// one per physical core. The matrix kernels saturate a core's multiply
// units, so a second thread on the same core only adds contention.
func DefaultThreads() int { return PhysicalCores() }

// Threads returns n when it is positive, and DefaultThreads otherwise: the
// thread count of a job whose options leave it at 0.
func Threads(n int) int {
	if n > 0 {
		return n
	}
	return DefaultThreads()
}
