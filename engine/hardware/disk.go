package hardware

import "errors"

// ErrDiskFreeUnknown is returned by DiskFree where the platform cannot
// tell the free space; callers then skip their check and rely on the
// writes failing on a full disk.
var ErrDiskFreeUnknown = errors.New("hardware: the free disk space is unknown on this platform")

// DiskFree returns the bytes an unprivileged user may still write on the
// file system (or volume) holding dir: statfs's available blocks on Unix,
// GetDiskFreeSpaceEx's bytes available to the caller on Windows. It is
// the one free-space check of the library's imports, the downloads and
// quantization.
func DiskFree(dir string) (uint64, error) { return diskFree(dir) }
