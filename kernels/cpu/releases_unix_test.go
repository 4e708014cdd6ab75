//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cpu

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestReleases checks which bytes Releases drops (anonymous memory reads
// as zeros after the drop) as released ranges come in, over three huge
// pages: a range's whole huge pages at once, the pieces at its ends only
// once their huge page is released but for hugeSliver, bytes never
// released never, and everything at once for a nil Releases.
func TestReleases(t *testing.T) {
	const mb = 1 << 20
	type step struct {
		lo, hi  int   // the released range, in bytes from the first huge page
		dropped []int // the MiB (of six) whose released bytes read as zeros after it
	}
	cases := []struct {
		name  string
		nilR  bool
		steps []step
	}{
		{"whole pages at once, pieces wait", false, []step{
			{mb / 2, 9 * mb / 2, []int{2, 3}},
			{0, mb / 2, []int{0, 1, 2, 3}},
			{9 * mb / 2, 6*mb - 200<<10, []int{0, 1, 2, 3, 4, 5}}, // 200 KiB of page 2 still in use
		}},
		{"a piece short of its page by more than the sliver waits", false, []step{
			{0, mb, nil},
			{3 * mb / 2, 2 * mb, nil},
			{mb, 3 * mb / 2, []int{0, 1}},
		}},
		{"nil drops at once", true, []step{
			{mb / 2, 9 * mb / 2, []int{0, 1, 2, 3, 4}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := unix.Mmap(-1, 0, 8*mb, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
			if err != nil {
				t.Skip("no anonymous mapping:", err)
			}
			defer unix.Munmap(raw)
			off := int((hugePage - uintptr(unsafe.Pointer(&raw[0]))%hugePage) % hugePage)
			mem := raw[off : off+6*mb]
			for i := range mem {
				mem[i] = 1
			}
			var rel *Releases
			if !c.nilR {
				rel = &Releases{}
			}
			released := make([]bool, len(mem))
			for _, s := range c.steps {
				rel.drop(mem[s.lo:s.hi])
				for i := s.lo; i < s.hi; i++ {
					released[i] = true
				}
				want := make([]bool, 6)
				for _, m := range s.dropped {
					want[m] = true
				}
				for i := 0; i < len(mem); i += 4096 {
					zero := mem[i] == 0
					if zero && !released[i] {
						t.Fatalf("after [%d, %d): byte %d, never released, was dropped", s.lo, s.hi, i)
					}
					if released[i] && zero != want[i/mb] {
						t.Fatalf("after [%d, %d): page at %d dropped %v, want %v", s.lo, s.hi, i, zero, want[i/mb])
					}
				}
			}
		})
	}
}
