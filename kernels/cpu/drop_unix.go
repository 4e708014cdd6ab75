//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cpu

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canDrop reports whether dropPages releases memory on this system.
const canDrop = true

// dropPages tells the system that the whole pages inside b will not be
// read again (madvise MADV_DONTNEED), so that they leave the process's
// resident memory: a mapped file's pages go back to the page cache, and
// would be read again from the file; anonymous memory's would read as
// zeros, so callers drop only bytes nothing reads any more. The bytes at
// either end that share a page with other data stay. It is advice:
// failure (locked memory, say) leaves the pages where they are.
func dropPages(b []byte) {
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo-start:hi-start], unix.MADV_DONTNEED)
}
