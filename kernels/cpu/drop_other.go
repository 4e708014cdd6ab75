//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cpu

// canDrop reports whether dropPages releases memory on this system.
const canDrop = false

// dropPages does nothing where the system has no madvise.
func dropPages([]byte) {}
