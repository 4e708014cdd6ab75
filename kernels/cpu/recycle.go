package cpu

import (
	"sync"
	"unsafe"

	"saji/kernels"
)

// freeListCap bounds the bytes a backend keeps for reuse; buffers recycled
// beyond it are left to the garbage collector.
const freeListCap = 512 << 20

// freeList holds recycled F32 activation buffers by length.
type freeList struct {
	mu    sync.Mutex
	bufs  map[int][][]float32
	bytes int
}

// get returns a zeroed buffer of n values, recycled when one of that
// length is free.
func (l *freeList) get(n int) []float32 {
	l.mu.Lock()
	if s := l.bufs[n]; len(s) > 0 {
		buf := s[len(s)-1]
		l.bufs[n] = s[:len(s)-1]
		l.bytes -= 4 * n
		l.mu.Unlock()
		clear(buf)
		return buf
	}
	l.mu.Unlock()
	return make([]float32, n)
}

// put keeps buf for reuse, within freeListCap.
func (l *freeList) put(buf []float32) {
	n := len(buf)
	if n == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bytes+4*n > freeListCap {
		return
	}
	if l.bufs == nil {
		l.bufs = map[int][][]float32{}
	}
	l.bufs[n] = append(l.bufs[n], buf)
	l.bytes += 4 * n
}

// getBlocks returns a zeroed buffer of n activation blocks of type T (a
// block type without pointers, such as q8Block, whose size is a multiple
// of a float32's and whose alignment a float32's satisfies) from l's
// float32 buffers, recycled as get's are: the quantized activations of a
// product are a few kilobytes a call, dozens of calls a token, and made
// fresh they were most of a decode step's garbage. putBlocks gives the
// buffer back.
func getBlocks[T any](l *freeList, n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if n == 0 || size%4 != 0 || unsafe.Alignof(z) > 4 {
		return make([]T, n)
	}
	f := l.get(n * size / 4)
	return unsafe.Slice((*T)(unsafe.Pointer(&f[0])), n)
}

// putBlocks keeps a buffer from getBlocks for reuse (put). Nothing may
// use buf afterwards.
func putBlocks[T any](l *freeList, buf []T) {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(buf) == 0 || size%4 != 0 || unsafe.Alignof(z) > 4 {
		return
	}
	l.put(unsafe.Slice((*float32)(unsafe.Pointer(&buf[0])), len(buf)*size/4))
}

// Recycle implements kernels.Recycler: the memory of the F32 tensors among
// ts that this backend allocated with New is reused by later calls of New.
// Weights and tensors of other types or backends are ignored.
func (b *Backend) Recycle(ts ...kernels.Tensor) {
	for _, t := range ts {
		c, ok := t.(*tensor)
		if !ok || c == nil || c.b != b || c.f == nil || !c.owned {
			continue
		}
		b.free.put(c.f)
		c.f, c.data, c.owned = nil, nil, false
	}
}
