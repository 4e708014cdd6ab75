//go:build windows

package hardware

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// diskFree is DiskFree on Windows: the bytes available to the user on
// the volume holding dir (quotas included).
func diskFree(dir string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, fmt.Errorf("hardware: free space of %s: %w", dir, err)
	}
	var avail, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &totalFree); err != nil {
		return 0, fmt.Errorf("hardware: free space of %s: %w", dir, err)
	}
	return avail, nil
}
