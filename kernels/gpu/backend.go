package gpu

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// ErrClosed is returned by the operations of a closed Backend.
var ErrClosed = errors.New("gpu: backend closed")

// Backend is a kernels.Backend whose tensors live in a Device's memory.
// Weights are uploaded once (or mapped, where the device reads host
// memory); activations and caches are device buffers; every operation is
// one or a few kernel launches, queued without waiting, so the host only
// waits where it reads a result (Read).
//
// A Backend serves one loaded model; several share a Device. Its methods
// may be called from any goroutine (they are serialized), and Close frees
// every buffer it allocated.
type Backend struct {
	mu     sync.Mutex
	dev    Device
	closed bool

	bufs   map[uintptr]Buf // every buffer allocated (or mapped) and not freed, by handle
	pool   []Buf           // recycled activation buffers
	bytes  int64           // bytes of device memory in bufs (mapped ones excluded)
	mapped int64           // bytes of the weights the device reads in place

	arena arena // host arrays (ids, positions, cells) copied for launches
}

// tensor is a Backend's tensor: a buffer (from byte off) holding a tensor
// of typ and shape.
type tensor struct {
	b     *Backend
	typ   quant.Type
	shape []int
	buf   Buf
	off   int
	// pooled marks activations from New, which Recycle may reuse.
	pooled bool
}

func (t *tensor) Backend() kernels.Backend { return t.b }
func (t *tensor) Type() quant.Type         { return t.typ }
func (t *tensor) Shape() []int             { return t.shape }

func (t *tensor) cols() int { return kernels.Cols(t) }
func (t *tensor) rows() int { return kernels.Rows(t) }

// rowBytes is the length of a row in bytes.
func (t *tensor) rowBytes() int { return t.cols() / t.typ.BlockSize() * t.typ.TypeSize() }

// bytes is the tensor's length in bytes.
func (t *tensor) bytes() int { return t.rowBytes() * t.rows() }

// ptr is the tensor as a kernel argument, optionally from byte off on.
func (t *tensor) ptr(off int) Arg { return P(t.buf, t.off+off) }

// New returns a Backend over dev.
func New(dev Device) (*Backend, error) {
	if dev == nil {
		return nil, errors.New("gpu: no device")
	}
	return &Backend{dev: dev, bufs: map[uintptr]Buf{}}, nil
}

// Name identifies the backend by its device ("cuda:0", "metal").
func (b *Backend) Name() string { return b.dev.Name() }

// Device returns the device the backend runs on.
func (b *Backend) Device() Device { return b.dev }

// Allocated returns the bytes of device memory the backend holds.
func (b *Backend) Allocated() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes
}

// Mapped returns the bytes of the weights the device reads in place from
// host memory (a GPU that shares the machine's RAM), which Allocated does
// not count: they are the GPU's to read, in the mapped file's pages.
func (b *Backend) Mapped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mapped
}

// Close frees every buffer of the backend. Its tensors must not be used
// afterwards.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	err := b.dev.Sync()
	for _, buf := range b.bufs {
		b.dev.Free(buf)
	}
	b.bufs, b.pool, b.bytes, b.mapped = nil, nil, 0, 0
	b.arena = arena{}
	return err
}

// lock takes the backend's lock, failing on a closed backend.
func (b *Backend) lock() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// alloc returns a zeroed device buffer of at least n bytes, from the pool
// when it holds one no more than twice as long. A failed allocation is
// retried once after the pool is given back to the device.
func (b *Backend) alloc(n int, pooled bool) (Buf, error) {
	if n == 0 {
		return Buf{}, nil
	}
	if pooled {
		if buf, ok := b.fromPool(n); ok {
			if err := b.dev.Zero(buf, 0, n); err != nil {
				return Buf{}, fmt.Errorf("gpu: %w", err)
			}
			return buf, nil
		}
	}
	size := (n + 255) &^ 255
	buf, err := b.dev.Alloc(size)
	if err != nil && len(b.pool) > 0 {
		b.drainPool()
		buf, err = b.dev.Alloc(size)
	}
	if err != nil {
		return Buf{}, fmt.Errorf("gpu: allocating %d bytes on %s: %w", size, b.dev.Name(), err)
	}
	b.bufs[buf.Handle] = buf
	b.bytes += int64(buf.Size)
	return buf, nil
}

// fromPool takes the smallest pooled buffer of n to 2n bytes, if any.
func (b *Backend) fromPool(n int) (Buf, bool) {
	best := -1
	for i, p := range b.pool {
		if p.Size >= n && p.Size <= 2*n && (best < 0 || p.Size < b.pool[best].Size) {
			best = i
		}
	}
	if best < 0 {
		return Buf{}, false
	}
	buf := b.pool[best]
	b.pool = append(b.pool[:best], b.pool[best+1:]...)
	return buf, true
}

// scratch returns a pooled buffer of at least n bytes whose contents are
// undefined, for a kernel that writes all of it before anything reads it;
// the caller puts it back in the pool when its launches are queued.
func (b *Backend) scratch(n int) (Buf, error) {
	if buf, ok := b.fromPool(n); ok {
		return buf, nil
	}
	return b.alloc(n, true)
}

// free gives a buffer back to the device.
func (b *Backend) free(buf Buf) {
	if buf.Handle == 0 {
		return
	}
	if _, ok := b.bufs[buf.Handle]; ok {
		delete(b.bufs, buf.Handle)
		b.bytes -= int64(buf.Size)
	}
	b.dev.Free(buf)
}

// drainPool frees the recycled buffers, after the queued work that may
// still use them.
func (b *Backend) drainPool() {
	if err := b.dev.Sync(); err != nil {
		return
	}
	for _, buf := range b.pool {
		b.free(buf)
	}
	b.pool = nil
}

// Recycle implements kernels.Recycler: the buffers of activations from New
// go back to a pool that later calls of New draw from.
func (b *Backend) Recycle(ts ...kernels.Tensor) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	for _, t := range ts {
		g, ok := t.(*tensor)
		if !ok || g == nil || g.b != b || !g.pooled || g.buf.Handle == 0 {
			continue
		}
		b.pool = append(b.pool, g.buf)
		g.buf, g.pooled = Buf{}, false
	}
}

// hasKernels reports whether typ has get_rows and matmul kernels.
func hasKernels(typ quant.Type) bool {
	for _, t := range WeightTypes {
		if t == typ {
			return true
		}
	}
	return false
}

// Weight copies a weight to device memory (or maps it where the device
// reads host memory). Types without kernels are converted to F16 first,
// so the tensor's Type is then F16.
func (b *Backend) Weight(typ quant.Type, shape []int, data []byte) (kernels.Tensor, error) {
	n, err := kernels.CheckWeight(typ, shape, data)
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	if !hasKernels(typ) {
		if !quant.Supported(typ) {
			return nil, fmt.Errorf("gpu: %v weights are not supported", typ)
		}
		f := make([]float32, n)
		if err := quant.Dequantize(typ, data, f); err != nil {
			return nil, fmt.Errorf("gpu: converting %v to F16: %w", typ, err)
		}
		data = make([]byte, 2*n)
		if err := quant.Quantize(quant.TypeF16, f, data); err != nil {
			return nil, fmt.Errorf("gpu: converting %v to F16: %w", typ, err)
		}
		typ = quant.TypeF16
	}
	if err := b.lock(); err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	t := &tensor{b: b, typ: typ, shape: append([]int(nil), shape...)}
	if len(data) == 0 {
		return t, nil
	}
	if buf, off, ok, err := b.dev.Map(data); err != nil {
		return nil, fmt.Errorf("gpu: mapping a weight: %w", err)
	} else if ok {
		b.bufs[buf.Handle] = buf // freed with the backend, not counted as device memory
		b.mapped += int64(len(data))
		t.buf, t.off = buf, off
		return t, nil
	}
	buf, err := b.alloc(len(data), false)
	if err != nil {
		return nil, err
	}
	if err := b.dev.Upload(buf, 0, data); err != nil {
		b.free(buf)
		return nil, fmt.Errorf("gpu: uploading a weight: %w", err)
	}
	t.buf = buf
	return t, nil
}

// New allocates a zeroed F32, F16 or Q8_0 tensor.
func (b *Backend) New(typ quant.Type, shape ...int) (kernels.Tensor, error) {
	n, err := kernels.CheckNew(typ, shape)
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	if err := b.lock(); err != nil {
		return nil, err
	}
	defer b.mu.Unlock()
	t := &tensor{b: b, typ: typ, shape: append([]int(nil), shape...), pooled: typ == quant.TypeF32}
	buf, err := b.alloc(n/typ.BlockSize()*typ.TypeSize(), t.pooled)
	if err != nil {
		return nil, err
	}
	t.buf = buf
	return t, nil
}

// Write copies src into dst, converting it to dst's type.
func (b *Backend) Write(dst kernels.Tensor, src []float32) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.own(dst)
	if err != nil {
		return err
	}
	if err := kernels.CheckWrite(d, src); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	var data []byte
	if d.typ == quant.TypeF32 {
		data = f32Bytes(src)
	} else {
		data = make([]byte, d.bytes())
		if err := quant.Quantize(d.typ, src, data); err != nil {
			return fmt.Errorf("gpu: write: %w", err)
		}
	}
	if len(data) == 0 {
		return nil
	}
	if err := b.dev.Upload(d.buf, d.off, data); err != nil {
		return fmt.Errorf("gpu: write: %w", err)
	}
	return nil
}

// Read waits for the queued work and copies src's values to dst as
// float32, dequantizing them if needed.
func (b *Backend) Read(src kernels.Tensor, dst []float32) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	s, err := b.own(src)
	if err != nil {
		return err
	}
	if err := kernels.CheckRead(s, dst); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if len(dst) == 0 {
		return nil
	}
	if s.typ == quant.TypeF32 {
		if err := b.dev.Download(s.buf, s.off, f32Bytes(dst)); err != nil {
			return fmt.Errorf("gpu: read: %w", err)
		}
		return nil
	}
	data := make([]byte, s.bytes())
	if err := b.dev.Download(s.buf, s.off, data); err != nil {
		return fmt.Errorf("gpu: read: %w", err)
	}
	if err := quant.Dequantize(s.typ, data, dst); err != nil {
		return fmt.Errorf("gpu: read: %w", err)
	}
	return nil
}

// Sync waits for the queued work and reports a kernel's failure.
func (b *Backend) Sync() error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	return b.dev.Sync()
}

// own returns t as a tensor of this backend.
func (b *Backend) own(t kernels.Tensor) (*tensor, error) {
	g, ok := t.(*tensor)
	if !ok || g == nil {
		return nil, fmt.Errorf("gpu: operand is not a %s tensor (%T)", b.dev.Name(), t)
	}
	if g.b != b {
		return nil, fmt.Errorf("gpu: operand belongs to another backend (%s)", g.b.dev.Name())
	}
	if g.buf.Handle == 0 && g.bytes() > 0 {
		return nil, fmt.Errorf("gpu: operand was recycled")
	}
	return g, nil
}

// f32 returns t as an F32 tensor of this backend.
func (b *Backend) f32(t kernels.Tensor, what string) (*tensor, error) {
	g, err := b.own(t)
	if err != nil {
		return nil, err
	}
	if g.typ != quant.TypeF32 {
		return nil, fmt.Errorf("gpu: %s must be F32, not %v", what, g.typ)
	}
	return g, nil
}

// f32Bytes views fs as bytes.
func f32Bytes(fs []float32) []byte {
	if len(fs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&fs[0])), 4*len(fs))
}

// i32Bytes views is as bytes.
func i32Bytes(is []int32) []byte {
	if len(is) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&is[0])), 4*len(is))
}
