package gpu

import (
	"bytes"
	"fmt"
	"unsafe"
)

// arenaMin is the first size of the host-array arena.
const arenaMin = 1 << 20

// arena holds the small host arrays that launches read (token ids,
// positions, cache cell maps) in one device buffer. Arrays are appended
// until it is full, then it starts over: an Upload is queued after the
// launches before it, so overwriting a region never changes what an
// earlier launch reads.
//
// Most of these arrays repeat within a forward pass (every layer reads the
// same positions and cells), so an array that is still in the arena with
// the same contents is reused instead of copied again, which saves a copy
// per launch.
type arena struct {
	buf    Buf
	used   int
	cached []arrayCopy
}

// arrayCopy is an array in the arena: the host slice it came from, a
// copy of its contents, and its offset.
type arrayCopy struct {
	ptr  uintptr
	data []byte
	off  int
}

// hostArrays returns device copies of arrays, valid for the launches
// queued before the next call. They are placed together: when the misses
// do not fit after what the arena holds, it starts over with all of them.
func (b *Backend) hostArrays(arrays ...[]byte) ([]Arg, error) {
	a := &b.arena
	if a.buf.Handle == 0 {
		if err := b.growArena(arenaMin); err != nil {
			return nil, err
		}
	}
	args := make([]Arg, len(arrays))
	found := make([]bool, len(arrays))
	need, all := 0, 0
	for i, data := range arrays {
		n := (len(data) + 255) &^ 255
		all += n
		if len(data) == 0 {
			// Kernels never read an empty array, but the argument must be
			// a valid address.
			args[i], found[i] = P(a.buf, 0), true
			continue
		}
		ptr := uintptr(unsafe.Pointer(&data[0]))
		for _, c := range a.cached {
			if c.ptr == ptr && bytes.Equal(c.data, data) {
				args[i], found[i] = P(a.buf, c.off), true
				break
			}
		}
		if !found[i] {
			need += n
		}
	}
	if need == 0 {
		return args, nil
	}
	if a.used+need > a.buf.Size {
		if all > a.buf.Size {
			if err := b.growArena(max(2*a.buf.Size, all)); err != nil {
				return nil, err
			}
		}
		a.used, a.cached = 0, a.cached[:0]
		clear(found)
	}
	for i, data := range arrays {
		if len(data) == 0 {
			args[i] = P(a.buf, 0)
			continue
		}
		if found[i] {
			continue
		}
		off := a.used
		if err := b.dev.Upload(a.buf, off, data); err != nil {
			return nil, fmt.Errorf("gpu: copying launch arguments: %w", err)
		}
		a.used += (len(data) + 255) &^ 255
		args[i] = P(a.buf, off)
		a.cached = append(a.cached, arrayCopy{ptr: uintptr(unsafe.Pointer(&data[0])), data: bytes.Clone(data), off: off})
	}
	if len(a.cached) > 64 {
		a.cached = append(a.cached[:0], a.cached[len(a.cached)-64:]...)
	}
	return args, nil
}

// growArena replaces the arena's buffer with one of n bytes, after the
// queued launches that read the old one.
func (b *Backend) growArena(n int) error {
	if old := b.arena.buf; old.Handle != 0 {
		if err := b.dev.Sync(); err != nil {
			return fmt.Errorf("gpu: %w", err)
		}
		b.free(old)
	}
	buf, err := b.alloc(n, false)
	if err != nil {
		return err
	}
	b.arena = arena{buf: buf}
	return nil
}
