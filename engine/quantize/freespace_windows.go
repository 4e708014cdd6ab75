//go:build windows

package quantize

import "golang.org/x/sys/windows"

// diskFree returns the bytes the user may still write on the volume
// holding dir; ok is false where that is unknown.
func diskFree(dir string) (free uint64, ok bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &totalFree); err != nil {
		return 0, false
	}
	return avail, true
}
