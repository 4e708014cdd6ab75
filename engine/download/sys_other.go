//go:build !unix && !windows

package download

import "errors"

// diskFree reports that the free space is unknown on this platform; the
// download then relies on the writes failing on a full disk.
func diskFree(string) (uint64, error) {
	return 0, errors.New("download: free disk space is unknown on this platform")
}

// isCrossDevice reports false: renames are not retried as copies here.
func isCrossDevice(error) bool { return false }

// isDiskFull reports false: the platform's error for a full disk is not
// known here.
func isDiskFull(error) bool { return false }

// syncDir does nothing on this platform.
func syncDir(string) error { return nil }
