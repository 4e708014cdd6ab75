// Package cpu is Saji's pure-Go compute backend: the reference
// implementation of kernels.Backend that SIMD kernels are tested against, so
// it favours clarity over speed.
//
// Its numerics follow ggml's CPU backend as llama.cpp builds it for x86-64
// (GCC, AVX-512), closely enough that Saji's logits equal llama.cpp's to
// print precision on every reference model:
//
//   - Before a quantized matrix product the activations are quantized as
//     ggml does (Q8_0 blocks for Q4_0, Q5_0, Q8_0, IQ4_NL and MXFP4
//     weights, Q8_1 for Q4_1 and Q5_1, Q8_K for the K-quants, IQ4_XS,
//     TQ1_0, TQ2_0 and the IQ1, IQ2 and IQ3 types, F16 for F16 and BF16
//     for BF16 weights), with the AVX quantizers' rounding (half to even,
//     the reciprocal scale computed as 127/max).
//   - Block dot products are integer sums, combined in the float order of
//     the kernel ggml runs for the weight type (vec_dot, llamafile's
//     tinyBLAS, or the repacked 8x8 gemm/gemv): which partial sums share a
//     SIMD lane, where fused multiply-adds round once, how lanes are added.
//   - The element-wise functions use ggml's AVX-512 exponential (softmax,
//     SiLU), glibc's sinf/cosf (RoPE), and GCC's fused multiply-adds where
//     the compiler contracts ggml's C (RoPE, GELU, tail loops).
//
// This matters more than it seems: llama.cpp rounds activations before every
// matrix product, and a last-bit difference upstream can flip one of those
// roundings and move the logits by 1e-3 (F16) to 1e-1 (8-bit). The files
// simd.go, sincos.go and dot.go hold these details; the rest is plain Go.
//
// Work is split across a persistent pool of threads by rows of the output:
// each thread computes whole output values, so results do not depend on the
// number of threads.
//
// New runs SIMD kernels (AVX2 on x86-64, NEON on arm64) where the CPU has
// them; NewReference runs the pure-Go kernels, the oracle the SIMD kernels
// are tested against. SAJI_SIMD=off makes New behave as NewReference.
package cpu

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// Backend is the CPU backend. It is safe for concurrent use.
type Backend struct {
	threads int
	k       *kernelSet // nil: the pure-Go kernels
	pool    *pool
	free    freeList // recycled F32 activations

	repackSkipped sync.Once // the log line of the first weight Repack leaves as it is
}

// New returns a CPU backend that splits each operation over threads
// threads, with the SIMD kernels of the running CPU. The caller chooses
// the count (the engine's default is hardware.DefaultThreads, one per
// physical core); threads <= 0 means every logical CPU.
func New(threads int) *Backend {
	b := NewReference(threads)
	if !simdDisabled() {
		b.k = detectKernels()
	}
	return b
}

// NewReference returns a CPU backend that runs the pure-Go kernels only.
func NewReference(threads int) *Backend {
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	b := &Backend{threads: threads, pool: newPool(threads)}
	runtime.AddCleanup(b, func(p *pool) { p.close() }, b.pool)
	return b
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Threads returns the number of goroutines an operation uses.
func (b *Backend) Threads() int { return b.threads }

// tensor is a CPU tensor: bytes in the layout of its type, and for F32
// tensors the same memory as []float32.
type tensor struct {
	b     *Backend
	typ   quant.Type
	shape []int
	data  []byte
	f     []float32 // data as float32 when typ is F32
	owned bool      // f was allocated by New (not a weight's view), so it may be recycled

	// packed is a copy of the weight's rows in an interleaved layout (Repack),
	// which the matrix product reads where it can (packedProduct), or nil.
	// data keeps the file's layout for every other use.
	packed []byte
	// released says that data's bytes of the rows in the layout's full
	// groups were dropped (Release): those rows are read from packed.
	released bool
}

func (t *tensor) Backend() kernels.Backend { return t.b }
func (t *tensor) Type() quant.Type         { return t.typ }
func (t *tensor) Shape() []int             { return t.shape }

func (t *tensor) cols() int { return kernels.Cols(t) }
func (t *tensor) rows() int { return kernels.Rows(t) }

// rowBytes returns the size of one row in bytes.
func (t *tensor) rowBytes() int {
	return t.cols() / t.typ.BlockSize() * t.typ.TypeSize()
}

// rowView returns rows [r, r+n) of the F32 tensor t as a tensor sharing
// its memory (never recycled on its own).
func (t *tensor) rowView(r, n int) *tensor {
	c := t.cols()
	return &tensor{b: t.b, typ: t.typ, shape: []int{c, n}, f: t.f[r*c : (r+n)*c], data: t.data[4*r*c : 4*(r+n)*c]}
}

// row returns the bytes of row i: a new copy from the interleaved layout
// where the file's bytes of that row were released.
func (t *tensor) row(i int) []byte {
	n := t.rowBytes()
	if t.released {
		if kern := t.b.k.packed[t.typ]; i < t.rows()/kern.rows*kern.rows {
			r := make([]byte, n)
			kern.unpack(r, t.packed, i, n)
			return r
		}
	}
	return t.data[i*n : (i+1)*n]
}

// Weight wraps data, which must hold a tensor of typ and shape, without
// copying it.
func (b *Backend) Weight(typ quant.Type, shape []int, data []byte) (kernels.Tensor, error) {
	n, err := kernels.CheckWeight(typ, shape, data)
	if err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	t := &tensor{b: b, typ: typ, shape: append([]int(nil), shape...), data: data}
	if typ == quant.TypeF32 && n > 0 {
		if uintptr(unsafe.Pointer(&data[0]))%4 != 0 {
			// Unaligned F32 data (possible only in hand-made buffers) is copied.
			t.f = make([]float32, n)
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&t.f[0])), 4*n), data)
			t.data = unsafe.Slice((*byte)(unsafe.Pointer(&t.f[0])), 4*n)
		} else {
			t.f = unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), n)
		}
	}
	return t, nil
}

// New allocates a zeroed F32, F16 or Q8_0 tensor (Q8_0 for key/value
// caches: rows a multiple of 32 long).
func (b *Backend) New(typ quant.Type, shape ...int) (kernels.Tensor, error) {
	n, err := kernels.CheckNew(typ, shape)
	if err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	t := &tensor{b: b, typ: typ, shape: append([]int(nil), shape...)}
	switch typ {
	case quant.TypeF32:
		t.f, t.owned = b.zeroed(n), true
		if n > 0 {
			t.data = unsafe.Slice((*byte)(unsafe.Pointer(&t.f[0])), 4*n)
		}
	case quant.TypeF16:
		t.data = make([]byte, 2*n)
	case quant.TypeQ8_0:
		t.data = make([]byte, n/typ.BlockSize()*typ.TypeSize())
	}
	return t, nil
}

// zeroed returns a zeroed buffer of n values (freeList.get), a recycled
// one cleared over the threads when it is large: clearing a 128-token
// prompt's 4 MB feed-forward activations on one thread took 0.3 ms,
// three times a layer, and the pool's other threads parked meanwhile.
func (b *Backend) zeroed(n int) []float32 {
	const minParallel = 1 << 18 // values
	buf, recycled := b.free.take(n)
	switch {
	case !recycled:
	case n < minParallel || b.threads < 2:
		clear(buf)
	default:
		b.parallel(n, func(lo, hi int) { clear(buf[lo:hi]) })
	}
	return buf
}

// Write copies src into dst, converting it to dst's type.
func (b *Backend) Write(dst kernels.Tensor, src []float32) error {
	d, err := b.own(dst)
	if err != nil {
		return err
	}
	if err := kernels.CheckWrite(d, src); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	if d.f != nil {
		copy(d.f, src)
		return nil
	}
	if err := quant.Quantize(d.typ, src, d.data); err != nil {
		return fmt.Errorf("cpu: write: %w", err)
	}
	return nil
}

// Read copies src to dst as float32, dequantizing it if needed.
func (b *Backend) Read(src kernels.Tensor, dst []float32) error {
	s, err := b.own(src)
	if err != nil {
		return err
	}
	if err := kernels.CheckRead(s, dst); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	if s.f != nil {
		copy(dst, s.f)
		return nil
	}
	if s.released {
		n := s.cols()
		for i := range s.rows() {
			if err := quant.Dequantize(s.typ, s.row(i), dst[i*n:(i+1)*n]); err != nil {
				return fmt.Errorf("cpu: read: %w", err)
			}
		}
		return nil
	}
	if err := quant.Dequantize(s.typ, s.data, dst); err != nil {
		return fmt.Errorf("cpu: read: %w", err)
	}
	return nil
}

// own returns t as a CPU tensor of this backend.
func (b *Backend) own(t kernels.Tensor) (*tensor, error) {
	c, ok := t.(*tensor)
	if !ok || c == nil {
		return nil, fmt.Errorf("cpu: operand is not a CPU tensor (%T)", t)
	}
	if c.b != b {
		return nil, fmt.Errorf("cpu: operand belongs to another CPU backend")
	}
	return c, nil
}

// f32 returns t as an F32 CPU tensor of this backend.
func (b *Backend) f32(t kernels.Tensor, what string) (*tensor, error) {
	c, err := b.own(t)
	if err != nil {
		return nil, err
	}
	if c.f == nil {
		return nil, fmt.Errorf("cpu: %s must be F32, not %v: %w", what, c.typ, kernels.ErrShape)
	}
	return c, nil
}

// parallel runs fn over [0, n) split into contiguous ranges, one per
// thread (fewer when n is small), on the backend's pool, or on new
// goroutines when the pool is busy with another operation.
func (b *Backend) parallel(n int, fn func(lo, hi int)) { b.parallelParts(n, b.threads, fn) }

// balanceParts is how many parts per thread the matrix products split
// their rows into: a thread that finishes early (its core was less busy)
// takes the next part, so a noisy neighbour on one core does not hold the
// others up.
const balanceParts = 4

// parallelBalanced is parallel with balanceParts parts per thread.
func (b *Backend) parallelBalanced(n int, fn func(lo, hi int)) {
	if b.threads <= 1 {
		b.parallelParts(n, 1, fn)
		return
	}
	b.parallelParts(n, b.threads*balanceParts, fn)
}

// parallelGuided is parallelBalanced for work whose end the threads should
// reach together: the parts shrink as the work runs out, each a 1/(2·threads)
// share of what is left (at least one), so the last to be taken is small
// and no thread waits long for another's. A prompt's products over equal
// parts left one of two threads idle for 2-3% of llama-1b F16's prompt
// (1% with these): a part took up to 3 ms (ffn_down at 128 tokens), and
// the thread that finished first waited out the other's last one.
func (b *Backend) parallelGuided(n int, fn func(lo, hi int)) {
	if b.threads <= 1 || n < 2*b.threads {
		b.parallelBalanced(n, fn)
		return
	}
	var bounds []int
	for lo := 0; lo < n; lo += max(1, (n-lo)/(2*b.threads)) {
		bounds = append(bounds, lo)
	}
	bounds = append(bounds, n)
	parts := len(bounds) - 1
	if b.pool.run(parts, func(p int) { fn(bounds[p], bounds[p+1]) }) {
		return
	}
	b.parallelBalanced(n, fn)
}

// productSplit returns how a matrix product of n activation rows splits
// its weight rows over the threads: in parts that shrink (parallelGuided)
// for guidedRows rows or more, in equal parts (parallelBalanced) for
// decode, whose two threads' memory streams those parts were tuned for.
// BenchmarkSmallBatch, two threads, six alternating runs, shrinking parts
// against equal ones: 2, 4 and 8 rows took 0.86-0.96 of the time on
// Q4_K, Q8_0 and F16; one row 0.94 on Q4_K and 1.10 on Q8_0.
func (b *Backend) productSplit(n int) func(int, func(lo, hi int)) {
	if n >= guidedRows {
		return b.parallelGuided
	}
	return b.parallelBalanced
}

// guidedRows is the fewest activation rows whose products split their
// weight rows with parallelGuided.
const guidedRows = 2

// parallelParts runs fn over [0, n) split into at most parts contiguous
// ranges on the pool's threads.
func (b *Backend) parallelParts(n, parts int, fn func(lo, hi int)) {
	parts = min(parts, n)
	if parts <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	if b.pool.run(parts, func(p int) { fn(n*p/parts, n*(p+1)/parts) }) {
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := n*p/parts, n*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
