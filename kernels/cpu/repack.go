package cpu

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// Repacked weights. Two kinds of layout:
//
// Four rows interleaved block by block (AVX2 and AVX-VNNI: Q8_0).
// Decoding reads every weight once per token, four rows at a time (the
// decode tiles); in the file's layout those are four streams, row after
// row, and interleaved (row 4g+r's block b at 4g·rowBytes +
// (4b+r)·blockBytes, as ggml's Q8_0x4) they are one. BenchmarkRepackGemv
// measured the same kernel 15-30% faster on an interleaved Q8_0 matrix.
// The prompt tile reads the layout too (the file layout's tile with its
// steps), so the file's bytes are released as the sixteen-row layouts'
// are. It is on by default: llama-1b Q8_0 decode (SAJI_SIMD=avx2, Zen 5,
// one thread) went from 15.2 to 18.2 t/s, its prompts unchanged.
// AVX-VNNI reads the layout with its own kernels (their block and group
// steps as arguments): llama-1b Q8_0 decode (SAJI_SIMD=vnni, Zen 5,
// medians of three alternating rounds) went from 15.5 to 18.0 t/s at one
// thread and 26.6 to 30.3 at two, its prompts unchanged. (Q4_K had this
// layout too, opt-in: it measured no faster, 23.8 -> 23.5 t/s, and the
// sixteen-row layout below replaced it.)
//
// Eight rows interleaved block by block (AVX-512 VNNI: Q8_0), as the four
// above but with the group of AVX-512's decode kernel. In the file's
// layout that kernel reads eight streams and prefetches the next group's
// bytes itself; interleaved it reads one, which the hardware prefetchers
// follow unaided. BenchmarkRepackGemv (Zen 5, one thread, 512 MB of
// copies) measured the kernel 18% faster on 2048x8192 and 4-6% on
// 4096x4096 interleaved, and llama-1b Q8_0's decode went from 15.3 to 17.1
// t/s at one thread and 28.2 to 32.0 at two. The prompt tile reads the
// layout too, prefetching the next group as the file layout's tile
// prefetches the next rows, so the layout is on by default and the file's
// bytes are released.
//
// Sixteen rows in a layout of their own (AVX-512 VNNI: Q4_K, Q6_K, Q2_K,
// Q3_K and MXFP4, see avx512_q*kx16_amd64.go and
// avx512_mxfp4x16_amd64.go; AVX2 and AVX-VNNI: Q4_K, see
// avx2_q4kx16_amd64.go), whose kernels do half the work per weight or
// less of the file layout's (measured 2-2.6x on Q4_K, 2.8x on Q2_K, 2x on
// Q3_K, 3-4.7x on MXFP4; on AVX2 1.7-1.8x on Q4_K): decode and prompts both read the copy, so the
// loader releases the file's bytes (Release) and the copy takes the
// weight's place (Q4_K's is 2.8% larger, Q3_K's a third, the others the
// same size). These are on by default, for dense weights and experts
// alike (SAJI_REPACK=off turns them off). The copy lives in anonymous
// memory aligned to and advised for huge pages (allocPacked). The
// arithmetic is the oracle's in every layout, so every output is the same
// float.

// interleaveRows is the number of weight rows an interleaved weight takes
// block by block.
const interleaveRows = 4

// repackReserve is the memory Repack leaves available after its copy: a
// weight is left as it is when the copy would take the machine below it.
const repackReserve = 1 << 30

// memAvailable returns the memory the system can give without swapping
// (MemAvailable in /proc/meminfo), or false where it cannot tell. A
// variable, so that tests can make memory short.
var memAvailable = func() (int64, bool) {
	f, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) >= 2 && string(fields[0]) == "MemAvailable:" {
			kb, err := strconv.ParseInt(string(fields[1]), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// Repack returns w with a copy of its rows in an interleaved layout in
// anonymous memory, which the matrix product then reads (packedProduct),
// or w itself: where the kernel set has no interleaved kernel for w's
// type, w has fewer rows than a group, SAJI_REPACK says no (see
// repackSize), or the copy would leave less than repackReserve of memory
// available (said once in the log). The copy is made once, over the
// backend's threads. w's own bytes stay for the rows after the last group
// and, unless Release drops them, for everything else.
func (b *Backend) Repack(w kernels.Tensor) (kernels.Tensor, error) {
	t, err := b.own(w)
	if err != nil {
		return nil, err
	}
	if t.packed != nil || repackSize(b.k, t.typ, t.shape) == 0 {
		return w, nil
	}
	kern := b.k.packed[t.typ]
	size := kern.size(t.rows(), t.rowBytes())
	if avail, ok := memAvailable(); ok && avail-int64(size) < repackReserve {
		b.repackSkipped.Do(func() {
			slog.Info("cpu: weights left in the file's layout: memory is short for an interleaved copy",
				"weight_bytes", size, "available_bytes", avail, "reserve_bytes", repackReserve)
		})
		return w, nil
	}
	packed, free := allocPacked(size)
	p := &tensor{b: b, typ: t.typ, shape: t.shape, data: t.data, packed: packed}
	if free != nil {
		// Only p holds the copy, so it goes when p does.
		runtime.AddCleanup(p, func(free func()) { free() }, free)
	}
	kern.pack(b, p.packed, t.data, t.rows(), t.rowBytes())
	return p, nil
}

// repackSize returns the bytes of the interleaved copy Repack makes of a
// weight of typ and shape with the kernel set k: 0 where k has no
// interleaved kernel for typ, the weight is not a matrix of a group's rows
// or more, or SAJI_REPACK says no. SAJI_REPACK=on repacks every weight k
// has a layout for, =off none; by default only the layouts that the
// product reads whole (prompts too: a tile), where the system can then
// drop the file's bytes (Release), so that the copy takes the weight's
// place rather than doubling it, and only rows the layout pays for
// (packedKernel.maxCols).
func repackSize(k *kernelSet, typ quant.Type, shape []int) int64 {
	kern, ok := k.packedKernel(typ)
	if !ok || len(shape) == 0 || len(shape) > 2 {
		return 0
	}
	switch os.Getenv("SAJI_REPACK") {
	case "on":
	case "off":
		return 0
	default:
		if !kern.whole() || (kern.maxCols > 0 && shape[0] > kern.maxCols) {
			return 0
		}
	}
	rows := 1
	if len(shape) == 2 {
		rows = shape[1]
	}
	if rows < kern.rows || shape[0]%typ.BlockSize() != 0 {
		return 0
	}
	return int64(kern.size(rows, shape[0]/typ.BlockSize()*typ.TypeSize()))
}

// whole reports whether the product reads a weight in this layout whole
// (decode and prompts), so that Release may drop the file's bytes of its
// groups where the system can.
func (k packedKernel) whole() bool { return k.tile != nil && k.unpack != nil && canDrop }

// Release tells the backend that nothing but w itself reads w's bytes (a
// model's weight, wrapped once): where w is repacked into a layout the
// product reads whole, the pages of the file's bytes that the copy now
// serves are dropped from memory (the rows after the last group stay),
// and w reads its rows from the copy from then on (gathering rows,
// Read). Elsewhere it does nothing. The bytes leave memory through r,
// which one model's load shares among its weights so that no huge page is
// split while other bytes in it are still read (Releases); a nil r drops
// them at once.
func (b *Backend) Release(w kernels.Tensor, r *Releases) {
	t, err := b.own(w)
	if err != nil || t.packed == nil || t.released {
		return
	}
	kern, ok := b.k.packedKernel(t.typ)
	if !ok || !kern.whole() {
		return
	}
	t.released = true
	r.drop(t.data[:t.rows()/kern.rows*kern.rows*t.rowBytes()])
}

// packedKernel returns k's decode kernel for weights of typ in an
// interleaved layout, if it has one.
func (k *kernelSet) packedKernel(typ quant.Type) (packedKernel, bool) {
	if k == nil {
		return packedKernel{}, false
	}
	kern, ok := k.packed[typ]
	return kern, ok
}

// interleavedKernel describes the kernels for weights of typ interleaved
// by rows rows block by block (interleave): gemv, the decode kernel, and
// tile, the prompt tile where there is one (nil: prompts read the file's
// layout, which then stays resident), over tileRows activation rows.
func interleavedKernel(typ quant.Type, rows int, gemv func(a *tileArgs, rows int), tile func(a *tileArgs), tileRows int) packedKernel {
	k := packedKernel{
		rows: rows,
		size: func(m, rowBytes int) int { return m * rowBytes },
		pack: func(b *Backend, dst, src []byte, m, rowBytes int) {
			b.interleave(dst, src, m, rows, rowBytes, typ.TypeSize())
		},
		gemv:     gemv,
		tile:     tile,
		tileRows: tileRows,
	}
	if tile != nil {
		blockBytes := typ.TypeSize()
		k.unpack = func(dst, packed []byte, r, rowBytes int) { deinterleave(dst, packed, r, rows, rowBytes, blockBytes) }
	}
	return k
}

// deinterleave writes row r (of a full group) of weights interleaved by
// rows rows (interleave), rowBytes each in blocks of blockBytes, back in
// the file's layout into dst.
func deinterleave(dst, packed []byte, r, rows, rowBytes, blockBytes int) {
	base := r / rows * rows * rowBytes
	for k := range rowBytes / blockBytes {
		o := base + (rows*k+r%rows)*blockBytes
		copy(dst[k*blockBytes:(k+1)*blockBytes], packed[o:o+blockBytes])
	}
}

// defaultKernels is the kernel set New picks, built once for RepackBytes.
var defaultKernels = sync.OnceValue(func() *kernelSet {
	if simdDisabled() {
		return nil
	}
	return detectKernels()
})

// RepackBytes returns the memory a backend from New takes for the
// interleaved copy of a weight of typ and shape (Repack) beyond the file's
// bytes, which the loader releases where the layout allows (Release): what
// the memory planner counts for it. Repack may still skip a weight when
// memory is short.
func RepackBytes(typ quant.Type, shape []int) int64 {
	k := defaultKernels()
	size := repackSize(k, typ, shape)
	if size == 0 {
		return 0
	}
	if kern := k.packed[typ]; kern.whole() {
		rows := shape[1]
		size -= int64(rows/kern.rows*kern.rows) * int64(shape[0]/typ.BlockSize()*typ.TypeSize())
	}
	return size
}

// Repacked reports whether w carries an interleaved copy (Repack).
func Repacked(w kernels.Tensor) bool {
	t, ok := w.(*tensor)
	return ok && t.packed != nil
}

// interleave copies m weight rows of rowBytes each, in blocks of
// blockBytes, from src (the file's layout, row after row) to dst (as long)
// with each full group of rows rows interleaved block by block: row
// rows·g+r's block b lands at rows·g·rowBytes + (rows·b + r)·blockBytes,
// so a group's blocks are read as one stream. The m%rows rows after the
// last group are copied as they are. The groups are spread over the
// backend's threads.
func (b *Backend) interleave(dst, src []byte, m, rows, rowBytes, blockBytes int) {
	groups := m / rows
	nb := rowBytes / blockBytes
	b.parallel(groups, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			base := g * rows * rowBytes
			for r := range rows {
				row := src[base+r*rowBytes : base+(r+1)*rowBytes]
				for k := range nb {
					o := base + (rows*k+r)*blockBytes
					copy(dst[o:o+blockBytes], row[k*blockBytes:(k+1)*blockBytes])
				}
			}
		}
	})
	tail := groups * rows * rowBytes
	copy(dst[tail:m*rowBytes], src[tail:m*rowBytes])
}

// packedProduct runs the product of a repacked weight w by n activation
// rows (rowBytes each in their dot-product format, at x, blocks blocks per
// row) into out on the interleaved decode kernel, each activation row in
// turn within the cache tiles of tiledBlocks; the rows after the last
// group, in the file's layout, go to single. Prompts (interleaveRows
// activation rows or more) take the layout's tile where it has one. It
// reports false, doing nothing, when w has no interleaved copy or kernel,
// or for a prompt where the layout has no tile, which the file layout's
// tiles then compute: the four-row layout's decode kernel, one
// activation row at a time, ran Q8_0 prompts at 0.4x the AVX-512 tile
// (llama-1b pp128), and copying each group of rows back to the file's
// layout for the tiles (in L1, once per cache tile) still lost 5% on Q4_K
// and 25% on Q8_0.
func (b *Backend) packedProduct(w *tensor, n, rowBytes int, x unsafe.Pointer, blocks int, out []float32, gemmRows int, single func(i, j0, j1 int)) bool {
	kern, ok := b.k.packedKernel(w.typ)
	if w.packed == nil || !ok {
		return false
	}
	if n >= interleaveRows && kern.tile == nil {
		return false
	}
	m := w.rows()
	args := tileArgs{w: &w.packed[0], wstride: kern.size(kern.rows, w.rowBytes()) / kern.rows, x: x,
		xstride: rowBytes, n: blocks, out: &out[0], ostride: m}
	// Prompts: groups of the tile's activation rows on the tile, the rows
	// after them (never in the gemm order) on the decode kernel, group by
	// group while the group's weights are in cache; decode, and batches up
	// to kern.gemvBatch, on the decode kernel.
	tk, gemv := kern.tiles()
	if n < 4 || (gemmRows == 0 && n <= kern.gemvBatch) {
		tk = gemv
	}
	b.tiledBlocks(&tk, m, n, rowBytes, args, gemmRows, single)
	return true
}

// tiles returns the layout's prompt tile (nil fn where it has none), a
// group's rows by tileRows activation rows (4 where unset) with the
// decode kernel for the rows after the last full tile, and the decode
// kernel, a group's rows by one activation row.
func (k packedKernel) tiles() (tile, gemv tileKernel) {
	gemv = decodeKernel(k.rows, k.gemv)
	nr := k.tileRows
	if nr == 0 {
		nr = 4
	}
	return tileKernel{mr: k.rows, nr: nr, fn: k.tile, group: k.tileGroup, narrow: []tileKernel{gemv}, scales: k.tileScales}, gemv
}
