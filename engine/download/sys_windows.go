//go:build windows

package download

import (
	"errors"

	"golang.org/x/sys/windows"
)

// diskFree returns the bytes available to the user on the volume holding
// dir.
func diskFree(dir string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var free, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree); err != nil {
		return 0, err
	}
	return free, nil
}

// isCrossDevice reports whether a rename failed because source and
// destination are on different volumes.
func isCrossDevice(err error) bool { return errors.Is(err, windows.ERROR_NOT_SAME_DEVICE) }

// isDiskFull reports whether a write failed because the disk is full.
func isDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}

// syncDir does nothing: Windows cannot sync a directory handle, and NTFS
// journals renames itself.
func syncDir(string) error { return nil }
