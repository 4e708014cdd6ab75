package hardware

import "golang.org/x/sys/unix"

// physicalCores asks the kernel for hw.physicalcpu, or returns 0.
func physicalCores() int {
	n, err := unix.SysctlUint32("hw.physicalcpu")
	if err != nil {
		return 0
	}
	return int(n)
}
