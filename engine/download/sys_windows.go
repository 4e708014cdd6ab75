//go:build windows

package download

import (
	"errors"

	"golang.org/x/sys/windows"
)

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
