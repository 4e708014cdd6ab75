package cpu

import "runtime"

// PhysicalCores returns the number of physical cores of the machine
// (hyper-threads of one core count once), at most runtime.NumCPU() and at
// least 1. The matrix kernels saturate a core's multiply units, so a
// second thread on the same core only adds contention: this is the
// default number of threads.
func PhysicalCores() int {
	n := physicalCores()
	if n <= 0 || n > runtime.NumCPU() {
		n = runtime.NumCPU()
	}
	return max(1, n)
}
