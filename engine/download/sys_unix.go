//go:build unix

package download

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

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

// tryLock takes an exclusive lock on f without waiting, reporting false
// when another open file holds it.
func tryLock(f *os.File) (bool, error) {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
