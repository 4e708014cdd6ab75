//go:build unix

package app

import "golang.org/x/sys/unix"

// diskFree returns the bytes available to an unprivileged user on the
// file system holding dir.
func diskFree(dir string) (uint64, bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true, nil
}
