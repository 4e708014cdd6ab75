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

// allocPacked returns size zeroed bytes for a weight's interleaved copy
// (Repack): anonymous memory outside the Go heap, starting on a huge-page
// boundary and advised to be backed by huge pages where the system has
// them (Linux with transparent huge pages set to madvise, the common
// default), and the function that unmaps it. The copies of a large model
// (gpt-oss-20b's experts: 10 GB, 4.4 MB an expert matrix, read at random
// by the router) otherwise sat in the Go heap's 4 KiB pages, one TLB miss
// per page a token reads; in mappings of their own at any page, about
// half of each copy could take huge pages. Where the mapping fails it
// falls back to the Go heap.
func allocPacked(size int) ([]byte, func()) {
	const huge = 2 << 20
	page := os.Getpagesize()
	if size == 0 {
		return []byte{}, nil
	}
	n := (size + page - 1) &^ (page - 1)
	m, err := unix.MmapPtr(-1, 0, nil, uintptr(n+huge), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return make([]byte, size), nil
	}
	// Keep the n bytes from the first huge-page boundary; give back the
	// rest of the reservation on either side.
	lo := int((uintptr(m)+huge-1)&^(huge-1) - uintptr(m))
	p := unsafe.Add(m, lo)
	if lo > 0 {
		_ = unix.MunmapPtr(m, uintptr(lo))
	}
	if tail := huge - lo; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(p, n), uintptr(tail))
	}
	b := unsafe.Slice((*byte)(p), n)
	adviseHugePages(b)
	return b[:size:size], func() { _ = unix.MunmapPtr(p, uintptr(n)) }
}

// adviseHugePages asks for b to be backed by huge pages where the system
// has them (set on Linux, huge_linux.go). It is advice: failure does not
// matter.
var adviseHugePages = func([]byte) {}
