//go:build windows

package download

import (
	"errors"
	"os"

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

// tryLock takes an exclusive lock on f without waiting, reporting false
// when another handle holds it.
func tryLock(f *os.File) (bool, error) {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}
