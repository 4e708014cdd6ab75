//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cpu

import (
	"testing"
	"unsafe"
)

// TestAllocPacked checks the memory of a repacked copy: the size asked,
// zeroed and writable, starting on a huge-page boundary (where the
// mapping succeeded), and unmapped by its free function.
func TestAllocPacked(t *testing.T) {
	for _, size := range []int{0, 1, 4096, 3<<20 + 17, 8 << 20} {
		b, free := allocPacked(size)
		if len(b) != size {
			t.Fatalf("allocPacked(%d): %d bytes", size, len(b))
		}
		if size == 0 {
			continue
		}
		if free == nil {
			t.Fatalf("allocPacked(%d) fell back to the Go heap", size)
		}
		if addr := uintptr(unsafe.Pointer(&b[0])); addr%(2<<20) != 0 {
			t.Errorf("allocPacked(%d) starts at %#x, not on a 2 MiB boundary", size, addr)
		}
		for i := 0; i < size; i += 4096 {
			if b[i] != 0 {
				t.Fatalf("allocPacked(%d): byte %d is %d, not zero", size, i, b[i])
			}
			b[i] = 1
		}
		b[size-1] = 1
		free()
	}
}
