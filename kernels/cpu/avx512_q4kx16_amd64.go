package cpu

import (
	"encoding/binary"
	"unsafe"

	"saji/kernels/quant"
)

// Q4_K weights interleaved by sixteen rows for the AVX-512 VNNI decode
// kernel. In the file's layout a zmm holds the quants of one or two rows,
// and each 64-element chunk needs its sub-blocks' scales spread over it
// before the integer sums; in the sixteen-row layout a zmm holds four
// consecutive quants of each of sixteen rows, so one vpdpbusd against four
// activations broadcast from memory serves sixteen rows, the sums stay
// per row in the lanes, and each sub-block's scales are one vpmulld by
// sixteen bytes of the layout. The arithmetic is the oracle's gemv order
// (dotRepackedK over whole super-blocks), so every output is the same
// float as gemvQ4KAVX512's.
//
// A group of sixteen rows takes, per super-block, x16BlockBytes:
//
//	0    d[16]     F16, the rows' super-block scales
//	32   dmin[16]  F16, the rows' minimums' scales
//	64   sc[8][16] the sub-blocks' 6-bit scales, sub-block by sub-block
//	192  mn[8][16] the sub-blocks' 6-bit minimums, likewise
//	320  qs[32][16][4] the quants: entry 4q+c holds, for each row, the
//	     file's four bytes qs[32c+4q:32c+4q+4] (low nibbles: sub-block
//	     2c's elements 4q..4q+3; high: sub-block 2c+1's)
//
// and the super-blocks of a group follow one another, the groups too.

const (
	// x16Rows is the number of rows a sixteen-row group interleaves.
	x16Rows = 16
	// x16BlockBytes is a group's bytes per super-block.
	x16BlockBytes = 2368
)

// gemvQ4KX16AVX512 computes rows (a multiple of sixteen) Q4_K outputs
// against one activation row (a.x, a.n super-blocks) from weights in the
// sixteen-row layout at a.w, into a.out[0:rows].
//
//go:noescape
func gemvQ4KX16AVX512(a *tileArgs, rows int)

// gemmQ4KX16AVX512 computes rows (a multiple of sixteen) × 4 Q4_K outputs
// in dotK's gemm order (dotRepackedK over 64-element chunks) from weights
// in the sixteen-row layout at a.w and four activation rows at a.x,
// a.xstride bytes apart, into a.out (a.ostride floats from one activation
// row's outputs to the next). Each unpacked quad of quants serves the four
// activation rows.
//
//go:noescape
func gemmQ4KX16AVX512(a *tileArgs, rows int)

// tileQ4KX16AVX512 is gemmQ4KX16AVX512 in the gemv order (dotRepackedK
// over whole super-blocks), as gemvQ4KX16AVX512 computes each output.
//
//go:noescape
func tileQ4KX16AVX512(a *tileArgs, rows int)

// q4KX16 is the sixteen-row layout's packed kernel.
var q4KX16 = packedKernel{
	rows: x16Rows,
	size: func(m, rowBytes int) int { return m / x16Rows * rowBytes / q4KBytes * x16BlockBytes },
	pack: func(b *Backend, dst, src []byte, m, rowBytes int) {
		b.parallel(m/x16Rows, func(lo, hi int) { packQ4KX16(dst, src, lo, hi, rowBytes/q4KBytes) })
	},
	gemv:   gemvQ4KX16,
	tile:   tileQ4KX16,
	unpack: unpackQ4KX16,
}

// unpackQ4KX16 writes row r (of a full group) of Q4_K rows of rowBytes in
// the sixteen-row layout packed back in the file's layout into dst.
func unpackQ4KX16(dst, packed []byte, r, rowBytes int) {
	nb := rowBytes / q4KBytes
	g, i := r/x16Rows, r%x16Rows
	for b := range nb {
		o := packed[(g*nb+b)*x16BlockBytes:][:x16BlockBytes]
		blk := dst[b*q4KBytes:][:q4KBytes]
		le.PutUint16(blk[0:], le.Uint16(o[2*i:]))
		le.PutUint16(blk[2:], le.Uint16(o[32+2*i:]))
		var sc, mn [8]uint8
		for j := range 8 {
			sc[j], mn[j] = o[64+16*j+i], o[192+16*j+i]
		}
		clear(blk[4:16])
		quant.PutScaleMinK4(blk[4:16], &sc, &mn)
		for q := range 8 {
			for c := range 4 {
				le.PutUint32(blk[16+32*c+4*q:], le.Uint32(o[320+(4*q+c)*64+4*i:]))
			}
		}
	}
}

// gemvQ4KX16 computes rows (a multiple of sixteen) outputs for one
// activation row from the sixteen-row layout; with no super-blocks they
// are +0, as the oracle gives.
func gemvQ4KX16(a *tileArgs, rows int) {
	if x16NoBlocks(a, rows) {
		return
	}
	gemvQ4KX16AVX512(a, rows)
}

// x16NoBlocks reports whether a has no super-blocks, after clearing the
// rows outputs of a decode kernel (the oracle's +0), which the assembly
// kernels cannot count down from zero.
func x16NoBlocks(a *tileArgs, rows int) bool {
	if a.n != 0 {
		return false
	}
	clear(unsafe.Slice(a.out, rows))
	return true
}

// tileQ4KX16 computes a group's sixteen rows × 4 activation rows from
// the sixteen-row layout (x16Tile).
func tileQ4KX16(a *tileArgs) {
	x16Tile(a, gemmQ4KX16AVX512, tileQ4KX16AVX512, gemvQ4KX16)
}

// x16Tile computes a group's sixteen rows × 4 activation rows from a
// sixteen-row layout, each activation row in the order of its a.gemm bit:
// the four in one pass when all take the gemm order (gemm), or all the
// gemv order and the layout has a four-row kernel of it (plain);
// otherwise row by row, a gemm row on the four-row gemm kernel run on four
// copies of itself, a gemv row on the decode kernel.
func x16Tile(a *tileArgs, gemm, plain, gemv func(a *tileArgs, rows int)) {
	switch {
	case a.n == 0:
	case a.gemm&15 == 15:
		gemm(a, x16Rows)
		return
	case a.gemm&15 == 0 && plain != nil:
		plain(a, x16Rows)
		return
	}
	for j := range 4 {
		r := *a
		r.x = unsafe.Add(a.x, j*a.xstride)
		r.out = (*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*j*a.ostride))
		switch {
		case a.gemm&(1<<j) == 0 || a.n == 0:
			gemv(&r, x16Rows)
		default:
			r.xstride, r.ostride = 0, 0
			gemm(&r, x16Rows)
		}
	}
}

// le reads and writes the layouts' little-endian words.
var le = binary.LittleEndian

// q4KBytes is the bytes of a Q4_K super-block.
const q4KBytes = 144

// q80Bytes is the bytes of a Q8_0 block.
const q80Bytes = 34

// packQ4KX16 writes the groups [glo, ghi) of sixteen Q4_K rows of nb
// super-blocks from src, the file's layout, into dst in the sixteen-row
// layout.
func packQ4KX16(dst, src []byte, glo, ghi, nb int) {
	rowBytes := nb * q4KBytes
	for g := glo; g < ghi; g++ {
		for b := range nb {
			o := dst[(g*nb+b)*x16BlockBytes:][:x16BlockBytes]
			for r := range x16Rows {
				blk := src[(g*x16Rows+r)*rowBytes+b*q4KBytes:][:q4KBytes]
				le.PutUint16(o[2*r:], le.Uint16(blk[0:]))
				le.PutUint16(o[32+2*r:], le.Uint16(blk[2:]))
				for j := range 8 {
					o[64+16*j+r], o[192+16*j+r] = scaleMinK4(j, blk[4:16])
				}
				for q := range 8 {
					for c := range 4 {
						le.PutUint32(o[320+(4*q+c)*64+4*r:], le.Uint32(blk[16+32*c+4*q:]))
					}
				}
			}
		}
	}
}
