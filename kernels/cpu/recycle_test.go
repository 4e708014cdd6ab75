package cpu

import (
	"testing"
	"unsafe"
)

// TestBlocksRecycled checks that getBlocks hands out zeroed buffers of
// the length asked, takes back through putBlocks what it gave, and leaves
// to the Go heap the types a float32 buffer cannot hold.
func TestBlocksRecycled(t *testing.T) {
	var l freeList
	a := getBlocks[q8Block](&l, 5)
	if len(a) != 5 {
		t.Fatalf("getBlocks: %d blocks, want 5", len(a))
	}
	a[3].d, a[4].q[31] = 2, 7
	putBlocks(&l, a)
	b := getBlocks[q8Block](&l, 5)
	if &b[0] != &a[0] {
		t.Error("getBlocks did not reuse the buffer putBlocks gave back")
	}
	if b[3].d != 0 || b[4].q[31] != 0 {
		t.Error("a recycled buffer is not zeroed")
	}
	putBlocks(&l, b)

	k := getBlocks[q8KBlock](&l, 2)
	if len(k) != 2 || uintptr(unsafe.Pointer(&k[0]))%unsafe.Alignof(k[0]) != 0 {
		t.Fatalf("getBlocks[q8KBlock]: %d blocks at a misaligned address", len(k))
	}
	putBlocks(&l, k)

	type wide struct{ v int64 } // alignment 8: not from float32 buffers
	before := l.bytes
	w := getBlocks[wide](&l, 4)
	w[3].v = 1
	putBlocks(&l, w)
	if len(w) != 4 || l.bytes != before {
		t.Errorf("getBlocks[wide]: %d values, free list %d → %d bytes, want 4 values and no change", len(w), before, l.bytes)
	}
	if got := getBlocks[q8Block](&l, 0); len(got) != 0 {
		t.Errorf("getBlocks(0) = %d blocks", len(got))
	}
}
