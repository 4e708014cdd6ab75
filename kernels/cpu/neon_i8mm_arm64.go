package cpu

import (
	"unsafe"

	"saji/kernels/quant"
)

// The i8mm tile kernels (neon_i8mm_arm64.s) compute a block of outputs at
// once with SMMLA, which multiplies two weight rows' eight quants by two
// activation rows' eight quants into a 2×2 tile of int32 sums. The integer
// sums are exact in any grouping, so SMMLA serves the types whose oracle
// scales one integer sum per block (Q4_0) or per sub-block (Q4_K); the
// float steps keep the oracle's order for each output, four outputs to a
// vector, so every output equals the single-row kernels (and the oracle)
// bit for bit, as neon_arm64.go says for those. Types whose oracle keeps
// eight lanes of four-element sums per block (Q8_0, Q6_K) gain nothing
// from SMMLA, whose sums are of eight elements: their tiles use SDOT
// (neon_gemv_arm64.go).

// addI8MM adds the i8mm tile kernels to k, over the dotprod set.
func addI8MM(k *kernelSet) {
	setTile(k, quant.TypeQ4_0, tileKernel{mr: 4, nr: 4, fn: tileQ40})
	setTile(k, quant.TypeQ4_K, tileKernel{mr: 4, nr: 4, fn: tileQ4K})
}

// tileQ40I8MM computes Q4_0 weight rows 0-3 (wstride bytes apart, n >= 1
// blocks each) against Q8_0 activation rows 0-3 (xstride bytes apart) as
// dot32 does each output, and stores output (i, j) at
// res[i8mmSlot(i, j)].
//
//go:noescape
func tileQ40I8MM(w *byte, wstride int, x *q8Block, xstride int, n int, res *[16]float32)

// i8mmSlot is where a 4×4 SMMLA kernel leaves output (weight row i,
// activation row j): the 2×2 tiles of weight pair i/2 by activation pair
// j/2 in the order (0,0), (0,1), (1,0), (1,1), each holding its outputs in
// SMMLA's lane order.
func i8mmSlot(i, j int) int { return 4*(2*(i/2)+j/2) + 2*(i%2) + j%2 }

// tileQ40 computes a 4×4 tile of Q4_0 outputs.
func tileQ40(a *tileArgs) {
	var res [16]float32
	if a.n > 0 {
		tileQ40I8MM(a.w, a.wstride, (*q8Block)(a.x), a.xstride, a.n, &res)
	}
	scatter4x4(a, &res)
}

// q4KScratch is the memory the Q4_K kernels keep per tile: the float sums
// of the scales (acc, in i8mmSlot order) and of the minimums (accMin[4j+i]
// for weight row i, activation row j), and, per super-block, what only
// the assembly reads: the four SMMLA tiles' products d·xd, then each
// sub-block's scales by weight pair in the tiles' lanes ([2][8][4]int32).
type q4KScratch struct {
	acc    [16]float32
	accMin [16]float32
	_      [16]float32
	_      [2][8][4]int32
}

// q4KIdx holds the TBL indices with which the Q4_K kernels spread the
// scales and minimums of four weight rows, decoded into 32 bytes (see
// q4KByte): for the SMMLA kernel into int32 scale vectors [sc(a), sc(a),
// sc(b), sc(b)] for weight pair p = (a, b) and sub-block s (entries 8p+s);
// for both kernels into int16 minimum vectors [mn(0..3) of sub-block 2c,
// mn(0..3) of sub-block 2c+1] (entries 16+c); for the SDOT kernel into
// int32 vectors of sub-block s's scales of rows 0-3 (entries 20+s). 0xff
// gives a zero byte.
var q4KIdx = func() (t [28][16]byte) {
	for p := range 2 {
		for s := range 8 {
			t[8*p+s] = q4KLanes(4, func(l int) int { return 2*p + l/2 }, func(int) int { return s })
		}
	}
	for c := range 4 {
		t[16+c] = q4KLanes(2, func(l int) int { return l % 4 }, func(l int) int { return 2*c + l/4 })
	}
	for s := range 8 {
		t[20+s] = q4KLanes(4, func(l int) int { return l }, func(int) int { return s })
	}
	return t
}()

// q4KByte is where the Q4_K kernels keep value k (scale or minimum) of
// weight row r when they decode four rows' at once: row r's values 0-3 at
// bytes 4r to 4r+3, its values 4-7 at 16+4r to 16+4r+3.
func q4KByte(r, k int) byte {
	if k < 4 {
		return byte(4*r + k)
	}
	return byte(16 + 4*r + k - 4)
}

// q4KLanes returns the TBL indices that put value k(l) of row r(l) in lane
// l of a vector of lanes of size bytes (the other bytes zero).
func q4KLanes(size int, r, k func(l int) int) (v [16]byte) {
	for i := range v {
		v[i] = 0xff
	}
	for l := range 16 / size {
		v[size*l] = q4KByte(r(l), k(l))
	}
	return v
}

// tileQ4KI8MM computes Q4_K weight rows 0-3 (wstride bytes apart, n >= 1
// super-blocks each) against Q8_K activation rows 0-3 (xstride bytes
// apart) as dotRepackedK does each output, with chunks of 64 if gemm is
// not zero, leaving the sums in scr.acc (output (i, j) at i8mmSlot(i, j))
// and scr.accMin[4j+i] (it adds to both: zero them first).
//
//go:noescape
func tileQ4KI8MM(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte)

// tileQ4K computes a 4×4 tile of Q4_K outputs with SMMLA.
func tileQ4K(a *tileArgs) { q4KTile(a, 4, tileQ4KI8MM, i8mmSlot) }

// q4KTile computes a 4×nr tile of Q4_K outputs with the kernel kern, which
// leaves output (i, j) in scr.acc[slot(i, j)]. The activation rows take
// one order, gemm or gemv, as the matrix product groups them (in fours
// from row 0); a tile that mixes the two, which the matrix product never
// asks for, is computed one output at a time by the single-row kernel.
func q4KTile(a *tileArgs, nr int, kern func(w *byte, wstride int, x *q8KBlock, xstride int, n int, gemm int, scr *q4KScratch, idx *[28][16]byte), slot func(i, j int) int) {
	var scr q4KScratch
	var res [16]float32
	mask := uint64(1)<<nr - 1
	switch {
	case a.n == 0:
	case a.gemm&mask == mask || a.gemm&mask == 0:
		kern(a.w, a.wstride, (*q8KBlock)(a.x), a.xstride, a.n, int(a.gemm&1), &scr, &q4KIdx)
		for j := range nr {
			for i := range 4 {
				res[4*j+i] = scr.acc[slot(i, j)] - scr.accMin[4*j+i]
			}
		}
	default:
		dot := q4KKernel(true)
		for j := range nr {
			xs := unsafe.Slice((*q8KBlock)(unsafe.Add(a.x, j*a.xstride)), a.n)
			for i := range 4 {
				w := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(a.w), i*a.wstride)), 144*a.n)
				res[4*j+i] = dot(w, xs, a.gemm&(1<<j) != 0)
			}
		}
	}
	for j := range nr {
		for i := range 4 {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = res[4*j+i]
		}
	}
}

// scatter4x4 stores a 4×4 kernel's outputs res in the tile a.
func scatter4x4(a *tileArgs, res *[16]float32) {
	for j := range 4 {
		for i := range 4 {
			*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = res[i8mmSlot(i, j)]
		}
	}
}
