//go:build !unix && !windows

package hardware

// diskFree is DiskFree where the free space cannot be read.
func diskFree(string) (uint64, error) { return 0, ErrDiskFreeUnknown }
