//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cpu

// canDrop reports whether dropPages releases memory on this system.
const canDrop = false

// dropPages does nothing where the system has no madvise.
func dropPages([]byte) {}

// allocPacked returns size bytes on the Go heap for a weight's interleaved
// copy (Repack): this system has no anonymous mappings to advise.
func allocPacked(size int) ([]byte, func()) { return make([]byte, size), nil }
