package cpu

import (
	"sync"
	"unsafe"
)

// hugePage is the size of a transparent huge page on x86-64 and on the
// common arm64 kernels (4 KiB base pages).
const hugePage = 2 << 20

// hugeSliver is how much of a huge page may still be in use when the
// released bytes in it are dropped: those bytes then sit in small pages,
// a few TLB entries, which costs nothing measurable.
const hugeSliver = 256 << 10

// Releases drops the file's bytes of the weights one model's load
// releases (Release) from memory without splitting the huge pages that
// other bytes, still read, share. A model read into memory (--no-mmap)
// lies in anonymous memory advised for huge pages; dropping part of a
// huge page splits it, and the rest of it (the bytes of a weight that is
// not repacked, a Q6_K matrix beside AVX2's repacked Q4_K ones) is then
// read through 4 KiB pages: measured on llama-1b Q4_K_M, that took 22%
// more time in the Q6_K decode kernel, and 2-3% off prompts and decode
// with the AVX-512 layouts. So the whole huge pages inside a released
// range are dropped at once, and the pieces at either end wait until the
// weights released through the same Releases cover all but hugeSliver of
// their huge page (for the file's mapping, whose pages are small, the
// pieces that never do stay resident but clean and reclaimable). The
// zero value is ready to use; one serves one load, whose bytes stay
// mapped while it is in use, and is safe for concurrent use.
type Releases struct {
	mu      sync.Mutex
	pending map[uintptr]*hugePieces // by huge page: released pieces not yet dropped
}

// hugePieces is the released bytes in one huge page that wait to be
// dropped.
type hugePieces struct {
	bytes  int
	pieces [][]byte
}

// drop drops b's whole huge pages now and the pieces of b at either end
// once the huge page each lies in is released but for hugeSliver. A nil r
// drops all of b now.
func (r *Releases) drop(b []byte) {
	if r == nil {
		dropPages(b)
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := start + uintptr(len(b))
	lo := min(end, (start+hugePage-1)&^(hugePage-1)) // the first whole huge page, or end
	hi := max(lo, end&^(hugePage-1))                 // after the last one
	if hi > lo {
		dropPages(b[lo-start : hi-start])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if lo > start {
		r.piece(b[:lo-start])
	}
	if end > hi {
		r.piece(b[hi-start:])
	}
}

// piece records released bytes p, which lie in one huge page, and drops
// the page's released pieces once they cover all but hugeSliver of it.
// r.mu is held.
func (r *Releases) piece(p []byte) {
	page := uintptr(unsafe.Pointer(unsafe.SliceData(p))) &^ (hugePage - 1)
	if r.pending == nil {
		r.pending = map[uintptr]*hugePieces{}
	}
	h := r.pending[page]
	if h == nil {
		h = &hugePieces{}
		r.pending[page] = h
	}
	h.bytes += len(p)
	h.pieces = append(h.pieces, p)
	if h.bytes < hugePage-hugeSliver {
		return
	}
	for _, p := range h.pieces {
		dropPages(p)
	}
	delete(r.pending, page)
}
