package cpu

import (
	"unsafe"
)

// Q6_K weights interleaved by sixteen rows for the AVX-512 VNNI decode
// kernel. dotQ6K's eight integer lanes per super-block are the products of
// the elements whose index modulo 32 is in [4l, 4l+4): a "quad" (c, l),
// four consecutive elements of chunk c (elements 32c..32c+31) for one
// lane. In this layout a zmm holds one quad of each of sixteen rows, so
// each int32 lane of the kernel's eight accumulators is one row's lane l,
// the scales multiply sixteen rows at once (vpdpwssd), and the final
// hsum8 is seven vertical adds. The arithmetic is dotQ6K's, so every
// output is the same float as gemvQ6KAVX512's.
//
// A group of sixteen rows takes, per super-block, q6KX16BlockBytes (the
// file's bytes for sixteen rows):
//
//	0    d[16]        F16, the rows' super-block scales
//	32   sc[8][16][2] the scales of sub-blocks 2p and 2p+1 of each row,
//	                  pair p by pair p
//	288  chunk c (384 bytes each, c = 0..7):
//	     ql[4][16][4]  vector j: each row's four bytes, byte t holding in
//	                   its low nibble the low four bits of element
//	                   32c+4j+t (quad (c, j)) and in its high nibble
//	                   those of element 32c+4(j+4)+t (quad (c, j+4))
//	     qh[2][16][4]  vector p: byte t holding the high two bits of
//	                   element t of quads (c, 2p), (c, 2p+4), (c, 2p+1)
//	                   and (c, 2p+5), from bit 0 up
//
// and the super-blocks of a group follow one another, the groups too.

// q6KX16BlockBytes is a group's bytes per super-block.
const q6KX16BlockBytes = 16 * q6KBytes

// q6KBytes is the bytes of a Q6_K super-block.
const q6KBytes = 210

// gemvQ6KX16AVX512 computes rows (a multiple of sixteen) Q6_K outputs
// against one activation row (a.x, a.n super-blocks, at least one) from
// weights in the sixteen-row layout at a.w, into a.out[0:rows].
//
//go:noescape
func gemvQ6KX16AVX512(a *tileArgs, rows int)

// q6KX16 is the sixteen-row Q6_K layout's packed kernel.
var q6KX16 = packedKernel{
	rows: x16Rows,
	size: func(m, rowBytes int) int { return m / x16Rows * x16Rows * rowBytes },
	pack: func(b *Backend, dst, src []byte, m, rowBytes int) {
		b.parallel(m/x16Rows, func(lo, hi int) { packQ6KX16(dst, src, lo, hi, rowBytes/q6KBytes) })
	},
	gemv:   gemvQ6KX16,
	tile:   tileQ6KX16,
	unpack: unpackQ6KX16,
	// Row by row the decode kernel adds 0.9 ms of one thread's time per
	// activation row to a 96 MB product (BenchmarkSmallBatch), the tile
	// 1.1-1.8 ms: even from eight rows.
	gemvBatch: 8,
}

// gemvQ6KX16 computes rows (a multiple of sixteen) outputs for one
// activation row from the sixteen-row layout; with no super-blocks they
// are +0, as the oracle gives.
func gemvQ6KX16(a *tileArgs, rows int) {
	if a.n == 0 {
		clear(unsafe.Slice(a.out, rows))
		return
	}
	gemvQ6KX16AVX512(a, rows)
}

// tileQ6KX16AVX512 computes rows (a multiple of sixteen) × 4 Q6_K
// outputs from weights in the sixteen-row layout at a.w and four
// activation rows at a.x, a.xstride bytes apart (a.n super-blocks, at
// least one), into a.out (a.ostride floats from one activation row's
// outputs to the next), each as gemvQ6KX16AVX512 computes it: Q6_K's
// products have one order for prompts and decode. Each super-block runs
// in two passes, lanes 0-3 then 4-7, so that every unpacked quad of
// quants serves the four activation rows.
//
//go:noescape
func tileQ6KX16AVX512(a *tileArgs, rows int)

// tileQ6KX16 computes a group's sixteen rows × 4 activation rows from
// the sixteen-row layout.
func tileQ6KX16(a *tileArgs) {
	if a.n == 0 {
		for j := range 4 {
			clear(unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*j*a.ostride)), x16Rows))
		}
		return
	}
	tileQ6KX16AVX512(a, x16Rows)
}

// q6KQuants writes the unsigned 6-bit quants of the Q6_K super-block blk
// (ql[128], qh[64], ...) to q: element 128h+32k+l takes ql[64h+l+32(k&1)]'s
// nibble k>>1 and qh[32h+l]'s bits 2k and 2k+1 above it.
func q6KQuants(blk []byte, q *[256]uint8) {
	for h := range 2 {
		ql, qh := blk[64*h:][:64], blk[128+32*h:][:32]
		qq := q[128*h:][:128]
		for l := range 32 {
			a, b, c := ql[l], ql[l+32], qh[l]
			qq[l] = a&0xf | c&3<<4
			qq[l+32] = b&0xf | c>>2&3<<4
			qq[l+64] = a>>4 | c>>4&3<<4
			qq[l+96] = b>>4 | c>>6<<4
		}
	}
}

// q6KSetQuant sets element e of the Q6_K super-block blk, whose ql and qh
// bits of e are clear, to the 6-bit quant v.
func q6KSetQuant(blk []byte, e int, v uint8) {
	h, m := e/128, e%128
	k, l := m/32, m%32
	blk[64*h+l+32*(k&1)] |= (v & 0xf) << (4 * (k >> 1))
	blk[128+32*h+l] |= (v >> 4) << (2 * k)
}

// q6KX16Quad returns the layout's byte offsets of quad (c, l)'s element t
// for row r within a group's super-block: its low nibble's byte and
// shift, and its high bits' byte and shift.
func q6KX16Quad(c, l, t, r int) (lo int, loShift uint, hi int, hiShift uint) {
	j, half := l%4, l/4
	lo, loShift = 288+384*c+64*j+4*r+t, uint(4*half)
	// qh vector p = j/2 holds quads 2p, 2p+4, 2p+1, 2p+5 from bit 0 up.
	p, odd := j/2, j%2
	hi, hiShift = 288+384*c+256+64*p+4*r+t, uint(2*(2*odd+half))
	return
}

// packQ6KX16 writes the groups [glo, ghi) of sixteen Q6_K rows of nb
// super-blocks from src, the file's layout, into dst in the sixteen-row
// layout. It writes every byte of q6KX16Quad's layout a whole byte at a
// time: chunk c's nibble byte (c, j, r, t) holds elements 32c+4j+t (low)
// and 32c+16+4j+t (high), its 2-bit byte (c, p, r, t) elements 32c+4l+t
// for l = 2p, 2p+4, 2p+1, 2p+5 from bit 0 up (TestPackQ6KX16 checks it
// against q6KX16Quad element by element). Element by element, the load
// of a model's Q6_K weights ran at 0.13 GB/s a thread.
func packQ6KX16(dst, src []byte, glo, ghi, nb int) {
	rowBytes := nb * q6KBytes
	var q [256]uint8
	for g := glo; g < ghi; g++ {
		for b := range nb {
			o := dst[(g*nb+b)*q6KX16BlockBytes:][:q6KX16BlockBytes]
			for r := range x16Rows {
				blk := src[(g*x16Rows+r)*rowBytes+b*q6KBytes:][:q6KBytes]
				copy(o[2*r:2*r+2], blk[208:210])
				for p := range 8 {
					copy(o[32+32*p+2*r:][:2], blk[192+2*p:][:2])
				}
				q6KQuants(blk, &q)
				for c := range 8 {
					qc := (*[32]uint8)(q[32*c:])
					lo := o[288+384*c:][:256]
					// Four elements t at once, one a byte: the nibbles'
					// bytes, then the 2-bit ones.
					w := func(i int) uint32 { return le.Uint32(qc[i:]) }
					for j := range 4 {
						le.PutUint32(lo[64*j+4*r:], w(4*j)&0x0f0f0f0f|w(16+4*j)<<4&0xf0f0f0f0)
					}
					hi := o[288+384*c+256:][:128]
					for p := range 2 {
						h := w(8*p)>>4&0x03030303 | w(8*p+16)>>2&0x0c0c0c0c | w(8*p+4)&0x30303030 | w(8*p+20)<<2&0xc0c0c0c0
						le.PutUint32(hi[64*p+4*r:], h)
					}
				}
			}
		}
	}
}

// unpackQ6KX16 writes row r (of a full group) of Q6_K rows of rowBytes in
// the sixteen-row layout packed back in the file's layout into dst.
func unpackQ6KX16(dst, packed []byte, r, rowBytes int) {
	nb := rowBytes / q6KBytes
	g, i := r/x16Rows, r%x16Rows
	for b := range nb {
		o := packed[(g*nb+b)*q6KX16BlockBytes:][:q6KX16BlockBytes]
		blk := dst[b*q6KBytes:][:q6KBytes]
		clear(blk[:192])
		copy(blk[208:210], o[2*i:2*i+2])
		for p := range 8 {
			copy(blk[192+2*p:][:2], o[32+32*p+2*i:][:2])
		}
		for e := range 256 {
			lo, ls, hi, hs := q6KX16Quad(e/32, e%32/4, e%4, i)
			q6KSetQuant(blk, e, o[lo]>>ls&0xf|(o[hi]>>hs&3)<<4)
		}
	}
}
