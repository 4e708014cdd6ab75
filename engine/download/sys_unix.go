//go:build unix

package download

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// diskFree returns the bytes available to an unprivileged user on the file
// system holding dir.
func diskFree(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// isCrossDevice reports whether a rename failed because source and
// destination are on different file systems.
func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }

// isDiskFull reports whether a write failed because the disk is full (or
// the user's quota is spent).
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// syncDir makes a rename or removal in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
