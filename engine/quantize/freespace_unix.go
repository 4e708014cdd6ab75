//go:build unix

package quantize

import "golang.org/x/sys/unix"

// diskFree returns the bytes an unprivileged user may still write on the
// file system holding dir; ok is false where that is unknown.
func diskFree(dir string) (free uint64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true
}
