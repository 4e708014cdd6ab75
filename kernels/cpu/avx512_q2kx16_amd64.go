package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// Q2_K weights interleaved by sixteen rows for the AVX-512 VNNI kernels,
// as Q4_K's (avx512_q4kx16_amd64.go): a zmm holds four consecutive quants
// of each of sixteen rows, so one vpdpbusd against four activations
// broadcast from memory serves sixteen rows and the sums stay per row in
// the lanes. In the file's layout the 2-bit quants of a sub-block are
// spread over four shifts of 32 bytes, and a row's dot product with Q8_K
// activations took 2.5 times as long as reading its bytes from memory
// (BenchmarkSmallBatch: 10 GB/s on one thread, against Q8_0's 23).
//
// A sub-block's sum times its 4-bit scale goes into the row's lane with
// one vpdpwssd: the sum (at most 16·3·128 in size) is exact in the lane's
// low int16, its high int16 (the sign) meets the scale's zero high half.
// The arithmetic is the oracle's gemv order (dotRepackedK over whole
// super-blocks): every output is the same float as dotK's.
//
// A group of sixteen rows takes, per super-block, x16Q2Bytes (the file's
// 84 bytes a row, sixteen times):
//
//	0    d[16]        F16, the rows' super-block scales
//	32   dmin[16]     F16, the rows' minimums' scales
//	64   sm[16][16]   the file's scale bytes, sub-block by sub-block, row
//	                  by row: the 4-bit scale low, the 4-bit minimum high
//	320  qs[16][16][4] the quants, sub-block by sub-block: byte 4r+j of
//	                  sub-block s holds row r's elements 16s+4p+j in bits
//	                  2p and 2p+1, p = 0..3
//
// and the super-blocks of a group follow one another, the groups too.

const (
	// q2KBytes is a Q2_K super-block's bytes in the file.
	q2KBytes = 84
	// x16Q2Bytes is a group's bytes per super-block.
	x16Q2Bytes = x16Rows * q2KBytes
)

// gemvQ2KX16AVX512 computes rows (a multiple of sixteen) Q2_K outputs
// against one activation row (a.x, a.n super-blocks, at least one) from
// weights in the sixteen-row layout at a.w, into a.out[0:rows].
//
//go:noescape
func gemvQ2KX16AVX512(a *tileArgs, rows int)

// gemmQ2KX16AVX512 computes rows (a multiple of sixteen) × 4 Q2_K outputs
// in dotK's gemm order (dotRepackedK over 128-element chunks) from weights
// in the sixteen-row layout at a.w and four activation rows at a.x,
// a.xstride bytes apart, into a.out (a.ostride floats from one activation
// row's outputs to the next). Each unpacked plane of quants serves the
// four activation rows.
//
//go:noescape
func gemmQ2KX16AVX512(a *tileArgs, rows int)

// q2KX16 is the sixteen-row Q2_K layout's packed kernel.
var q2KX16 = packedKernel{
	rows: x16Rows,
	size: func(m, rowBytes int) int { return m / x16Rows * x16Rows * rowBytes },
	pack: func(b *Backend, dst, src []byte, m, rowBytes int) {
		b.parallel(m/x16Rows, func(lo, hi int) { packQ2KX16(dst, src, lo, hi, rowBytes/q2KBytes) })
	},
	gemv:   gemvQ2KX16,
	tile:   tileQ2KX16,
	unpack: unpackQ2KX16,
}

// tileQ2KX16 computes a group's sixteen rows × 4 activation rows from the
// sixteen-row layout (x16Tile: the product's tiles take the gemm order).
func tileQ2KX16(a *tileArgs) { x16Tile(a, gemmQ2KX16AVX512, nil, gemvQ2KX16) }

// packQ2KX16 writes groups [glo, ghi) of sixteen Q2_K rows of nb
// super-blocks from src (the file's layout) into dst in the sixteen-row
// layout.
func packQ2KX16(dst, src []byte, glo, ghi, nb int) {
	rowBytes := nb * q2KBytes
	var q rowK // one super-block's quants, as the oracle decodes them
	q.reset(quant.QK_K)
	for g := glo; g < ghi; g++ {
		for b := range nb {
			o := dst[(g*nb+b)*x16Q2Bytes:][:x16Q2Bytes]
			clear(o[320:])
			for r := range x16Rows {
				blk := src[(g*x16Rows+r)*rowBytes+b*q2KBytes:][:q2KBytes]
				le.PutUint16(o[2*r:], le.Uint16(blk[80:]))
				le.PutUint16(o[32+2*r:], le.Uint16(blk[82:]))
				for s := range 16 {
					o[64+16*s+r] = blk[s]
				}
				decodeK(quant.TypeQ2_K, blk, &q)
				for e, v := range q.q {
					o[320+64*(e/16)+4*r+e%4] |= byte(v) << (2 * (e % 16 / 4))
				}
			}
		}
	}
}

// unpackQ2KX16 writes row r (of a full group) of Q2_K rows of rowBytes in
// the sixteen-row layout packed back in the file's layout into dst.
func unpackQ2KX16(dst, packed []byte, r, rowBytes int) {
	nb := rowBytes / q2KBytes
	g, i := r/x16Rows, r%x16Rows
	for b := range nb {
		o := packed[(g*nb+b)*x16Q2Bytes:][:x16Q2Bytes]
		blk := dst[b*q2KBytes:][:q2KBytes]
		le.PutUint16(blk[80:], le.Uint16(o[2*i:]))
		le.PutUint16(blk[82:], le.Uint16(o[32+2*i:]))
		for s := range 16 {
			blk[s] = o[64+16*s+i]
		}
		clear(blk[16:80])
		for e := range quant.QK_K {
			v := o[320+64*(e/16)+4*i+e%4] >> (2 * (e % 16 / 4)) & 3
			blk[16+32*(e/128)+e%32] |= v << (2 * (e % 128 / 32))
		}
	}
}

// gemvQ2KX16 computes rows (a multiple of sixteen) outputs for one
// activation row from the sixteen-row layout; with no super-blocks they
// are +0, as the oracle gives.
func gemvQ2KX16(a *tileArgs, rows int) {
	if a.n == 0 {
		clear(unsafe.Slice(a.out, rows))
		return
	}
	gemvQ2KX16AVX512(a, rows)
}
