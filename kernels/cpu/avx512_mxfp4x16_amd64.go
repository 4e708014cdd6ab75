package cpu

import "unsafe"

// MXFP4 weights interleaved by sixteen rows for the AVX-512 VNNI kernels,
// as the Q4_K layout of avx512_q4kx16_amd64.go: a zmm holds four
// consecutive quants of each of sixteen rows, looked up (vpshufb) as the
// doubled E2M1 levels plus 12, and one vpdpbusd against four activations
// broadcast from memory serves the sixteen rows, each row's block sum
// staying in its lane; 12 times the activations' sum, the same in every
// lane, is taken off. Each output keeps the oracle's float operations
// (dot32: one fused multiply-add per block by E8M0Half(e)·x.d, in block
// order), so it equals the file layout's kernels bit for bit. The layout
// is as large as the file's: a group of sixteen rows takes, per block of
// 32, 272 bytes,
//
//	0    e[16]          the rows' E8M0 scales
//	16   qs[4][16][4]   entry q holds, for each row, the file's four
//	                    bytes qs[4q:4q+4] (low nibbles: elements 4q..4q+3;
//	                    high: 16+4q..16+4q+3)
//
// and the blocks of a group follow one another, the groups too.

// mxX16BlockBytes is a group's bytes per block of 32.
const mxX16BlockBytes = 16 * 17

// gemvMXFP4X16AVX512 computes rows (a multiple of sixteen) MXFP4 outputs
// against one activation row (Q8_0 blocks, a.n of them) from weights in
// the sixteen-row layout at a.w, into a.out[0:rows]. a.n must be at least
// 1.
//
//go:noescape
func gemvMXFP4X16AVX512(a *tileArgs, rows int)

// tileMXFP4X16AVX512 computes rows (a multiple of sixteen) × 4 MXFP4
// outputs, as gemvMXFP4X16AVX512 computes each, against four activation
// rows a.xstride bytes apart into a.out (a.ostride floats from one
// activation row's outputs to the next). a.n must be at least 1.
//
//go:noescape
func tileMXFP4X16AVX512(a *tileArgs, rows int)

// mxfp4X16 is the sixteen-row MXFP4 layout's packed kernel.
var mxfp4X16 = packedKernel{
	rows: x16Rows,
	size: func(m, rowBytes int) int { return m / x16Rows * x16Rows * rowBytes },
	pack: func(b *Backend, dst, src []byte, m, rowBytes int) {
		b.parallel(m/x16Rows, func(lo, hi int) { packMXFP4X16(dst, src, lo, hi, rowBytes/17) })
	},
	gemv: func(a *tileArgs, rows int) {
		if a.n == 0 {
			clear(unsafe.Slice(a.out, rows))
			return
		}
		gemvMXFP4X16AVX512(a, rows)
	},
	tile: func(a *tileArgs) {
		if a.n == 0 {
			for j := range 4 {
				clear(unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*j*a.ostride)), x16Rows))
			}
			return
		}
		tileMXFP4X16AVX512(a, x16Rows)
	},
	unpack: unpackMXFP4X16,
}

// packMXFP4X16 writes the groups [glo, ghi) of sixteen MXFP4 rows of nb
// blocks from src, the file's layout, into dst in the sixteen-row layout.
func packMXFP4X16(dst, src []byte, glo, ghi, nb int) {
	rowBytes := nb * 17
	for g := glo; g < ghi; g++ {
		for b := range nb {
			o := dst[(g*nb+b)*mxX16BlockBytes:][:mxX16BlockBytes]
			for r := range x16Rows {
				blk := src[(g*x16Rows+r)*rowBytes+b*17:][:17]
				o[r] = blk[0]
				for q := range 4 {
					le.PutUint32(o[16+64*q+4*r:], le.Uint32(blk[1+4*q:]))
				}
			}
		}
	}
}

// unpackMXFP4X16 writes row r (of a full group) of MXFP4 rows of rowBytes
// in the sixteen-row layout packed back in the file's layout into dst.
func unpackMXFP4X16(dst, packed []byte, r, rowBytes int) {
	nb := rowBytes / 17
	g, i := r/x16Rows, r%x16Rows
	for b := range nb {
		o := packed[(g*nb+b)*mxX16BlockBytes:][:mxX16BlockBytes]
		blk := dst[b*17:][:17]
		blk[0] = o[i]
		for q := range 4 {
			le.PutUint32(blk[1+4*q:], le.Uint32(o[16+64*q+4*i:]))
		}
	}
}
