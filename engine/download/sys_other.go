//go:build !unix && !windows

package download

import "os"

// isCrossDevice reports false: renames are not retried as copies here.
func isCrossDevice(error) bool { return false }

// isDiskFull reports false: the platform's error for a full disk is not
// known here.
func isDiskFull(error) bool { return false }

// syncDir does nothing on this platform.
func syncDir(string) error { return nil }

// tryLock takes no lock on this platform: jobs of two processes are not
// kept apart.
func tryLock(*os.File) (bool, error) { return true, nil }
