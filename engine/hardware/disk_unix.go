//go:build unix

package hardware

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// diskFree is DiskFree on Unix: the blocks available to an unprivileged
// user (Bavail, not Bfree, which counts root's reserve).
func diskFree(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("hardware: free space of %s: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
