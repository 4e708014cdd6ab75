//go:build !linux && !darwin

package hardware

// physicalCores returns 0 (unknown): PhysicalCores then counts logical
// CPUs.
func physicalCores() int { return 0 }
