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
	buf, recycled := l.take(n)
	if recycled {
		clear(buf)
	}
	return buf
}

// scratch is get for a buffer its caller overwrites whole: a recycled
// one keeps its old values (clearing a product's 56 MB of rounded
// activations first took 1% of a picture's encoding).
func (l *freeList) scratch(n int) []float32 {
	buf, _ := l.take(n)
	return buf
}

// take returns a free buffer of n values and true, or a new zeroed one and
// false.
func (l *freeList) take(n int) ([]float32, bool) {
	l.mu.Lock()
	if s := l.bufs[n]; len(s) > 0 {
		buf := s[len(s)-1]
		l.bufs[n] = s[:len(s)-1]
		l.bytes -= 4 * n
		l.mu.Unlock()
		return buf, true
	}
	l.mu.Unlock()
	return make([]float32, n), false
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
	per, ok := floatsPerBlock[T]()
	if n == 0 || !ok {
		return make([]T, n)
	}
	f := l.get(n * per)
	return unsafe.Slice((*T)(unsafe.Pointer(&f[0])), n)
}

// putBlocks keeps a buffer from getBlocks for reuse (put). Nothing may
// use buf afterwards.
func putBlocks[T any](l *freeList, buf []T) {
	if per, ok := floatsPerBlock[T](); ok && len(buf) > 0 {
		l.put(unsafe.Slice((*float32)(unsafe.Pointer(&buf[0])), len(buf)*per))
	}
}

// floatsPerBlock returns how many float32s a value of T takes, and whether
// float32 buffers can hold values of T (a whole number of float32s, an
// alignment a float32's satisfies).
func floatsPerBlock[T any]() (int, bool) {
	var z T
	size := int(unsafe.Sizeof(z))
	return size / 4, size%4 == 0 && unsafe.Alignof(z) <= 4
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
