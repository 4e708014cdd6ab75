package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// Q3_K weights interleaved by sixteen rows for the AVX-512 VNNI kernels,
// in the manner of Q6_K's (avx512_q6kx16_amd64.go): dotLanesK's eight
// integer lanes per super-block are the products of the elements whose
// index modulo 32 is in [4l, 4l+4), a quad (c, l) being four consecutive
// elements of chunk c (elements 32c..32c+31) for lane l; here a zmm holds
// one quad of each of sixteen rows, so each int32 lane of the kernel's
// eight accumulators is one row's lane l, and the final hsum8 is seven
// vertical adds. In the file's layout a row's dot product with Q8_K
// activations took about twice as long as reading its bytes (12 GB/s on
// one thread), and Q2_K files (llama-quantize's Q2_K mix) keep their
// attention outputs and ffn_down in Q3_K.
//
// A quant q = lo - 4 + 4h (lo its two low bits, h its high bit) is kept
// as u = q + 4, a nibble, and enters vpmaddubsw unsigned; the four times
// the quad's activations that u adds (vpmaddubsw of 4 against them, the
// same for every row) are taken off the int16 pairs before the scale's
// vpdpwssd. The integer lanes are exact, and the float part is
// dotLanesK's, so every output is the same float as dotK's. The nibbles
// make the layout a third larger than the file's bytes (2336 bytes per
// sixteen rows' super-block against 1760), which the fit planner counts
// (RepackBytes). On one thread the kernel reads a 96 MB weight (file
// size) in 4.0 ms against the file layout's 8.1 (BenchmarkSmallBatch);
// without its prefetch it took 8.0.
//
// A group of sixteen rows takes, per super-block, x16Q3Bytes:
//
//	0     d[16]         F16, the rows' super-block scales
//	32    sc[8][16][2]  the signed 6-bit scales of sub-blocks 2p and 2p+1
//	                    of each row, pair p by pair p
//	288   u[8][4][16][4] chunk c's quants, four vectors: byte 4r+j of
//	                    vector v holds u of row r's element 32c+4v+j
//	                    (quad (c, v)) in its low nibble and of element
//	                    32c+4(v+4)+j (quad (c, v+4)) in its high nibble
//
// and the super-blocks of a group follow one another, the groups too.

const (
	// q3KBytes is a Q3_K super-block's bytes in the file.
	q3KBytes = 110
	// x16Q3Bytes is a group's bytes per super-block.
	x16Q3Bytes = 2336
)

// gemvQ3KX16AVX512 computes rows (a multiple of sixteen) Q3_K outputs
// against one activation row (a.x, a.n super-blocks, at least one) from
// weights in the sixteen-row layout at a.w, into a.out[0:rows].
//
//go:noescape
func gemvQ3KX16AVX512(a *tileArgs, rows int)

// q3KX16 is the sixteen-row Q3_K layout's packed kernel. Its tile is the
// decode kernel run for each of the four activation rows while the
// group's weights are in cache.
var q3KX16 = packedKernel{
	rows: x16Rows,
	size: func(m, rowBytes int) int { return m / x16Rows * rowBytes / q3KBytes * x16Q3Bytes },
	pack: func(b *Backend, dst, src []byte, m, rowBytes int) {
		b.parallel(m/x16Rows, func(lo, hi int) { packQ3KX16(dst, src, lo, hi, rowBytes/q3KBytes) })
	},
	gemv:   gemvQ3KX16,
	tile:   tileQ3KX16,
	unpack: unpackQ3KX16,
}

// packQ3KX16 writes groups [glo, ghi) of sixteen Q3_K rows of nb
// super-blocks from src (the file's layout) into dst in the sixteen-row
// layout.
func packQ3KX16(dst, src []byte, glo, ghi, nb int) {
	rowBytes := nb * q3KBytes
	var q rowK // one super-block's quants and scales, as the oracle decodes them
	q.reset(quant.QK_K)
	for g := glo; g < ghi; g++ {
		for b := range nb {
			o := dst[(g*nb+b)*x16Q3Bytes:][:x16Q3Bytes]
			clear(o[288:])
			for r := range x16Rows {
				blk := src[(g*x16Rows+r)*rowBytes+b*q3KBytes:][:q3KBytes]
				le.PutUint16(o[2*r:], le.Uint16(blk[108:]))
				decodeK(quant.TypeQ3_K, blk, &q)
				for s, sc := range q.sc {
					o[32+32*(s/2)+2*r+s%2] = byte(sc)
				}
				for e, v := range q.q {
					c, l, j := e/32, e%32/4, e%4
					o[288+256*c+64*(l%4)+4*r+j] |= byte(v+4) << (4 * (l / 4))
				}
			}
		}
	}
}

// unpackQ3KX16 writes row r (of a full group) of Q3_K rows of rowBytes in
// the sixteen-row layout packed back in the file's layout into dst.
func unpackQ3KX16(dst, packed []byte, r, rowBytes int) {
	nb := rowBytes / q3KBytes
	g, i := r/x16Rows, r%x16Rows
	for b := range nb {
		o := packed[(g*nb+b)*x16Q3Bytes:][:x16Q3Bytes]
		blk := dst[b*q3KBytes:][:q3KBytes]
		clear(blk)
		le.PutUint16(blk[108:], le.Uint16(o[2*i:]))
		for s := range 16 {
			v := uint8(int8(o[32+32*(s/2)+2*i+s%2]) + 32) // the 6-bit code
			if s < 8 {
				blk[96+s] |= v & 15
			} else {
				blk[96+s-8] |= (v & 15) << 4
			}
			blk[96+8+s%4] |= (v >> 4) << (2 * (s / 4))
		}
		for e := range quant.QK_K {
			c, l, j := e/32, e%32/4, e%4
			u := o[288+256*c+64*(l%4)+4*i+j] >> (4 * (l / 4)) & 15
			blk[32+32*(e/128)+e%32] |= (u & 3) << (2 * (e % 128 / 32))
			blk[e%32] |= (u >> 2) << (e / 32)
		}
	}
}

// gemvQ3KX16 computes rows (a multiple of sixteen) outputs for one
// activation row from the sixteen-row layout; with no super-blocks they
// are +0, as the oracle gives.
func gemvQ3KX16(a *tileArgs, rows int) {
	if a.n == 0 {
		clear(unsafe.Slice(a.out, rows))
		return
	}
	gemvQ3KX16AVX512(a, rows)
}

// tileQ3KX16 computes a group's sixteen rows × 4 activation rows (Q3_K
// has no gemm order) with the decode kernel, activation row by row.
func tileQ3KX16(a *tileArgs) {
	for j := range 4 {
		r := *a
		r.x = unsafe.Add(a.x, j*a.xstride)
		r.out = (*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*j*a.ostride))
		gemvQ3KX16(&r, x16Rows)
	}
}
