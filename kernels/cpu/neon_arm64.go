package cpu

import (
	"saji/kernels/quant"
)

// The NEON kernels (neon_arm64.s). Each integer kernel comes in two forms:
// *SDOT uses the dot-product extension (ARMv8.2 SDOT), *NEON only base
// Advanced SIMD (SMULL/SMLAL into 16-bit lanes, then SADDLP/SADALP into 32
// bits). Both give the same integer sums, and the float steps follow the
// oracle's order (hsum8/reduce16 run in Go on the lanes the assembly
// returns), so results equal the pure-Go kernels bit for bit; the only
// exception is FMLA/FMADD's single rounding where the oracle's fma32 goes
// through float64, which differs in vanishingly rare double-rounding cases.

// q80DotSDOT accumulates n Q8_0 weight blocks (34 bytes each at w) times
// Q8_0 activations into eight lanes as dot32 does, lane l holding the
// products of the elements whose index mod 32 is in [4l, 4l+4).
//
//go:noescape
func q80DotSDOT(w *byte, x *q8Block, n int, acc *[8]float32)

// q80DotNEON is q80DotSDOT without the dot-product extension.
//
//go:noescape
func q80DotNEON(w *byte, x *q8Block, n int, acc *[8]float32)

// q40DotSDOT sets *sum to the dot product of n Q4_0 weight blocks (18 bytes
// each) with Q8_0 activations, one fused multiply-add per block as dot32.
//
//go:noescape
func q40DotSDOT(w *byte, x *q8Block, n int, sum *float32)

// q40DotNEON is q40DotSDOT without the dot-product extension.
//
//go:noescape
func q40DotNEON(w *byte, x *q8Block, n int, sum *float32)

// iq4nlDotSDOT is q40DotSDOT for IQ4_NL weights, whose nibbles index tab
// (the 16 levels) through TBL.
//
//go:noescape
func iq4nlDotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8)

// iq4nlDotNEON is iq4nlDotSDOT without the dot-product extension.
//
//go:noescape
func iq4nlDotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[16]int8)

// q4KDotSDOT sets *res to the dot product of n Q4_K super-blocks (144
// bytes each at w) with Q8_K activations as dotRepackedK does: the scaled
// integer sums of 64-element chunks (gemm not zero) or of whole
// super-blocks, each scaled with a fused multiply-add into one accumulator
// for the scales and one for the minimums.
//
//go:noescape
func q4KDotSDOT(w *byte, x *q8KBlock, n int, gemm int, res *float32)

// q4KDotNEON is q4KDotSDOT without the dot-product extension.
//
//go:noescape
func q4KDotNEON(w *byte, x *q8KBlock, n int, gemm int, res *float32)

// q6KDotSDOT accumulates n Q6_K super-blocks (210 bytes each at w) times
// Q8_K activations into eight lanes as dotQ6K does.
//
//go:noescape
func q6KDotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)

// q6KDotNEON is q6KDotSDOT without the dot-product extension.
//
//go:noescape
func q6KDotNEON(w *byte, x *q8KBlock, n int, acc *[8]float32)

// q5KDotSDOT accumulates n Q5_K super-blocks (176 bytes each at w) times
// Q8_K activations into eight lanes as dotLanesK does, and their minimums
// into *mins.
//
//go:noescape
func q5KDotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32, mins *float32)

// q5KDotNEON is q5KDotSDOT without the dot-product extension.
//
//go:noescape
func q5KDotNEON(w *byte, x *q8KBlock, n int, acc *[8]float32, mins *float32)

// q3KDotSDOT accumulates n Q3_K super-blocks (110 bytes each at w) times
// Q8_K activations into eight lanes as dotLanesK does.
//
//go:noescape
func q3KDotSDOT(w *byte, x *q8KBlock, n int, acc *[8]float32)

// q3KDotNEON is q3KDotSDOT without the dot-product extension.
//
//go:noescape
func q3KDotNEON(w *byte, x *q8KBlock, n int, acc *[8]float32)

// q2KDotSDOT is q4KDotSDOT for n Q2_K super-blocks (84 bytes each at w),
// whose gemm chunks are 128 elements.
//
//go:noescape
func q2KDotSDOT(w *byte, x *q8KBlock, n int, gemm int, res *float32)

// q2KDotNEON is q2KDotSDOT without the dot-product extension.
//
//go:noescape
func q2KDotNEON(w *byte, x *q8KBlock, n int, gemm int, res *float32)

// q41DotSDOT sets *sum to the dot product of n Q4_1 weight blocks (20
// bytes each at w) with Q8_1 activations: per block
// sumi·(d·xd) + m·s, every product and sum rounded apart as in ggml's x86
// build; tab is q5Tab.
//
//go:noescape
func q41DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)

// q41DotNEON is q41DotSDOT without the dot-product extension.
//
//go:noescape
func q41DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)

// q50DotSDOT sets *sum to the dot product of n Q5_0 weight blocks (22
// bytes each at w) with Q8_0 activations: per block
// sumi·(d·xd) + m·s, every product and sum rounded apart as in ggml's x86
// build; tab is q5Tab.
//
//go:noescape
func q50DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)

// q50DotNEON is q50DotSDOT without the dot-product extension.
//
//go:noescape
func q50DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)

// q51DotSDOT sets *sum to the dot product of n Q5_1 weight blocks (24
// bytes each at w) with Q8_1 activations: per block
// sumi·(d·xd) + m·s, every product and sum rounded apart as in ggml's x86
// build; tab is q5Tab.
//
//go:noescape
func q51DotSDOT(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)

// q51DotNEON is q51DotSDOT without the dot-product extension.
//
//go:noescape
func q51DotNEON(w *byte, x *q8Block, n int, sum *float32, tab *[48]byte)

// iq4xsDotSDOT sets *sum to the dot product of n IQ4_XS super-blocks (136
// bytes each at w, nibbles indexing tab through TBL) with Q8_K
// activations as dotK's default path: one integer sum per super-block,
// times d·xd, added to the sum, each step rounded.
//
//go:noescape
func iq4xsDotSDOT(w *byte, x *q8KBlock, n int, sum *float32, tab *[16]int8)

// iq4xsDotNEON is iq4xsDotSDOT without the dot-product extension.
//
//go:noescape
func iq4xsDotNEON(w *byte, x *q8KBlock, n int, sum *float32, tab *[16]int8)

// quantQ8NEON quantizes n blocks of 32 floats at x into out as quantizeQ8
// does, with Q8_1's sums where sums is not zero.
//
//go:noescape
func quantQ8NEON(x *float32, out *q8Block, n int, sums int)

// q8KMaxNEON returns the largest magnitude amax of the 256 floats at x and
// whether amax and -amax occur among them.
//
//go:noescape
func q8KMaxNEON(x *float32) (amax float32, pos, neg bool)

// q8KQuantNEON sets out's quants to min(127, round-half-even(iscale·x[i]))
// for the 256 floats at x, and its bsum; it leaves out.d alone.
//
//go:noescape
func q8KQuantNEON(x *float32, out *q8KBlock, iscale float32)

// f32Tiny16 accumulates a[i]·b[i] for i < n (a multiple of 16) into lane
// i%16 of acc with fused multiply-adds, as dotTiny does.
//
//go:noescape
func f32Tiny16(a *float32, b *float32, n int, acc *[16]float32)

// f16Tiny16 is f32Tiny16 with a read as F16.
//
//go:noescape
func f16Tiny16(a *byte, b *float32, n int, acc *[16]float32)

// bf16Tiny16 is f32Tiny16 with a read as BF16.
//
//go:noescape
func bf16Tiny16(a *byte, b *float32, n int, acc *[16]float32)

// f32Vec64 runs dotVec's four 16-lane accumulators over n elements (a
// multiple of 64) and writes their combination (0+2, 1+3, then together)
// to acc.
//
//go:noescape
func f32Vec64(a *float32, b *float32, n int, acc *[16]float32)

// f16Vec64 is f32Vec64 with a read as F16.
//
//go:noescape
func f16Vec64(a *byte, b *float32, n int, acc *[16]float32)

// bf16Vec64 is f32Vec64 with a read as BF16.
//
//go:noescape
func bf16Vec64(a *byte, b *float32, n int, acc *[16]float32)

// addNEON adds the NEON kernels to k, the SDOT forms if dot is set.
func addNEON(k *kernelSet, dot bool) {
	k.q8[quant.TypeQ8_0] = q80Kernel(dot)
	k.q8[quant.TypeQ4_0] = q40Kernel(dot, false)
	k.q8[quant.TypeIQ4_NL] = q40Kernel(dot, true)
	for _, t := range []quant.Type{quant.TypeQ4_1, quant.TypeQ5_0, quant.TypeQ5_1} {
		k.q8[t] = q5Kernel(dot, t)
	}
	k.q8K[quant.TypeQ4_K] = q4KKernel(dot)
	k.q8K[quant.TypeQ6_K] = q6KKernel(dot)
	k.q8K[quant.TypeQ5_K] = q5KKernel(dot)
	k.q8K[quant.TypeQ3_K] = q3KKernel(dot)
	k.q8K[quant.TypeQ2_K] = q2KKernel(dot)
	k.q8K[quant.TypeIQ4_XS] = iq4xsKernel(dot)
	addNEONIQ(k, dot)
	k.quantQ8, k.quantQ8K = quantizeQ8NEON, quantizeQ8KNEON
	k.f32Vec, k.f32Tiny = f32VecNEON, f32TinyNEON
	k.f16Vec, k.f16Tiny = halfVecNEON(false), halfTinyNEON(false)
	k.bf16Vec, k.bf16Tiny = halfVecNEON(true), halfTinyNEON(true)
}

// q80Kernel returns the Q8_0 row kernel (dot32 for Q8_0).
func q80Kernel(dot bool) func(w []byte, x []q8Block) float32 {
	return func(w []byte, x []q8Block) float32 {
		var acc [8]float32
		if n := len(x); n > 0 {
			_ = w[34*n-1]
			if dot {
				q80DotSDOT(&w[0], &x[0], n, &acc)
			} else {
				q80DotNEON(&w[0], &x[0], n, &acc)
			}
		}
		return hsum8(&acc)
	}
}

// q40Kernel returns the Q4_0 (or, with iq4, IQ4_NL) row kernel.
func q40Kernel(dot, iq4 bool) func(w []byte, x []q8Block) float32 {
	return func(w []byte, x []q8Block) float32 {
		var sum float32
		n := len(x)
		if n == 0 {
			return 0
		}
		_ = w[18*n-1]
		switch {
		case iq4 && dot:
			iq4nlDotSDOT(&w[0], &x[0], n, &sum, &iq4Levels)
		case iq4:
			iq4nlDotNEON(&w[0], &x[0], n, &sum, &iq4Levels)
		case dot:
			q40DotSDOT(&w[0], &x[0], n, &sum)
		default:
			q40DotNEON(&w[0], &x[0], n, &sum)
		}
		return sum
	}
}

// q5Tab holds, for the Q5 kernels' high bits, the TBL indices that copy
// the bytes of qh holding the bits of quants 0-15 and 16-31 to their lanes,
// then each lane's bit mask.
var q5Tab = [48]byte{
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
	1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
}

// q5Kernel returns the row kernel for t (Q4_1, Q5_0 or Q5_1): dot32's
// generic path, each product and sum rounded apart as ggml's x86 build
// does.
func q5Kernel(dot bool, t quant.Type) func(w []byte, x []q8Block) float32 {
	return func(w []byte, x []q8Block) float32 {
		var sum float32
		n := len(x)
		if n == 0 {
			return 0
		}
		_ = w[t.TypeSize()*n-1]
		switch {
		case t == quant.TypeQ4_1 && dot:
			q41DotSDOT(&w[0], &x[0], n, &sum, &q5Tab)
		case t == quant.TypeQ4_1:
			q41DotNEON(&w[0], &x[0], n, &sum, &q5Tab)
		case t == quant.TypeQ5_0 && dot:
			q50DotSDOT(&w[0], &x[0], n, &sum, &q5Tab)
		case t == quant.TypeQ5_0:
			q50DotNEON(&w[0], &x[0], n, &sum, &q5Tab)
		case dot:
			q51DotSDOT(&w[0], &x[0], n, &sum, &q5Tab)
		default:
			q51DotNEON(&w[0], &x[0], n, &sum, &q5Tab)
		}
		return sum
	}
}

// q4KKernel returns the Q4_K row kernel (dotRepackedK, chunks of 64 for
// gemm, whole super-blocks otherwise).
func q4KKernel(dot bool) func(w []byte, x []q8KBlock, gemm bool) float32 {
	return func(w []byte, x []q8KBlock, gemm bool) float32 {
		var res float32
		if n := len(x); n > 0 {
			_ = w[144*n-1]
			if dot {
				q4KDotSDOT(&w[0], &x[0], n, b2i(gemm), &res)
			} else {
				q4KDotNEON(&w[0], &x[0], n, b2i(gemm), &res)
			}
		}
		return res
	}
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// q6KKernel returns the Q6_K row kernel (dotQ6K).
func q6KKernel(dot bool) func(w []byte, x []q8KBlock, gemm bool) float32 {
	return func(w []byte, x []q8KBlock, _ bool) float32 {
		var acc [8]float32
		if n := len(x); n > 0 {
			_ = w[210*n-1]
			if dot {
				q6KDotSDOT(&w[0], &x[0], n, &acc)
			} else {
				q6KDotNEON(&w[0], &x[0], n, &acc)
			}
		}
		return hsum8(&acc)
	}
}

// q5KKernel returns the Q5_K row kernel (dotLanesK).
func q5KKernel(dot bool) func(w []byte, x []q8KBlock, gemm bool) float32 {
	return func(w []byte, x []q8KBlock, _ bool) float32 {
		var acc [8]float32
		var mins float32
		if n := len(x); n > 0 {
			_ = w[176*n-1]
			if dot {
				q5KDotSDOT(&w[0], &x[0], n, &acc, &mins)
			} else {
				q5KDotNEON(&w[0], &x[0], n, &acc, &mins)
			}
		}
		return hsum8(&acc) + mins
	}
}

// q3KKernel returns the Q3_K row kernel (dotLanesK).
func q3KKernel(dot bool) func(w []byte, x []q8KBlock, gemm bool) float32 {
	return func(w []byte, x []q8KBlock, _ bool) float32 {
		var acc [8]float32
		if n := len(x); n > 0 {
			_ = w[110*n-1]
			if dot {
				q3KDotSDOT(&w[0], &x[0], n, &acc)
			} else {
				q3KDotNEON(&w[0], &x[0], n, &acc)
			}
		}
		return hsum8(&acc)
	}
}

// q2KKernel returns the Q2_K row kernel (dotRepackedK, halves of 128 for
// gemm, whole super-blocks otherwise).
func q2KKernel(dot bool) func(w []byte, x []q8KBlock, gemm bool) float32 {
	return func(w []byte, x []q8KBlock, gemm bool) float32 {
		var res float32
		if n := len(x); n > 0 {
			_ = w[84*n-1]
			if dot {
				q2KDotSDOT(&w[0], &x[0], n, b2i(gemm), &res)
			} else {
				q2KDotNEON(&w[0], &x[0], n, b2i(gemm), &res)
			}
		}
		return res
	}
}

// quantizeQ8NEON is quantizeQ8.
func quantizeQ8NEON(x []float32, out []q8Block, sums bool) {
	if len(out) == 0 {
		return
	}
	_ = x[32*len(out)-1]
	quantQ8NEON(&x[0], &out[0], len(out), b2i(sums))
}

// quantizeQ8KNEON is quantizeQ8K: the assembly finds each block's largest
// magnitude and quantizes it; Go settles the sign of the scale, scanning
// the block for the first extreme only when both +max and -max occur.
func quantizeQ8KNEON(x []float32, out []q8KBlock, grouped bool) {
	for b := range out {
		xb := x[quant.QK_K*b : quant.QK_K*(b+1)]
		blk := &out[b]
		amax, pos, neg := q8KMaxNEON(&xb[0])
		if amax == 0 || !(pos || neg) { // zero, or NaNs: the oracle decides
			quantizeQ8K(xb, out[b:b+1], grouped)
			continue
		}
		maxv := amax
		switch {
		case !pos:
			maxv = -amax
		case neg && !grouped:
			for _, v := range xb {
				if abs32(v) == amax {
					maxv = v
					break
				}
			}
		}
		iscale := -127 / maxv
		q8KQuantNEON(&xb[0], blk, iscale)
		blk.d = 1 / iscale
	}
}

// iq4xsKernel returns the IQ4_XS row kernel (dotK's default path).
func iq4xsKernel(dot bool) func(w []byte, x []q8KBlock, gemm bool) float32 {
	return func(w []byte, x []q8KBlock, _ bool) float32 {
		var sum float32
		if n := len(x); n > 0 {
			_ = w[136*n-1]
			if dot {
				iq4xsDotSDOT(&w[0], &x[0], n, &sum, &iq4Levels)
			} else {
				iq4xsDotNEON(&w[0], &x[0], n, &sum, &iq4Levels)
			}
		}
		return sum
	}
}

// f32TinyNEON is dotTiny(w, x); len(x) is a multiple of 16.
func f32TinyNEON(w, x []float32) float32 {
	var acc [16]float32
	if n := len(x) &^ 15; n > 0 {
		_ = w[n-1]
		f32Tiny16(&w[0], &x[0], n, &acc)
	}
	return reduce16(&acc)
}

// f32VecNEON is dotVec(w, x, false).
func f32VecNEON(w, x []float32) float32 {
	var acc [16]float32
	k := len(x)
	np := k &^ 63
	_ = w[:k]
	if np > 0 {
		f32Vec64(&w[0], &x[0], np, &acc)
	}
	sum := reduce16(&acc)
	for i := np; i < k; i++ {
		sum = fma32(w[i], x[i], sum) // as dotVec's tail
	}
	return sum
}

// halfTinyNEON returns dotTiny(widen(w), x) for F16 weights, or BF16 ones
// if bf is set; len(x) is a multiple of 16.
func halfTinyNEON(bf bool) func(w []byte, x []float32) float32 {
	return func(w []byte, x []float32) float32 {
		var acc [16]float32
		if n := len(x) &^ 15; n > 0 {
			_ = w[2*n-1]
			if bf {
				bf16Tiny16(&w[0], &x[0], n, &acc)
			} else {
				f16Tiny16(&w[0], &x[0], n, &acc)
			}
		}
		return reduce16(&acc)
	}
}

// halfVecNEON returns dotVec(widen(w), x, true) for F16 weights, or BF16
// ones if bf is set.
func halfVecNEON(bf bool) func(w []byte, x []float32) float32 {
	return func(w []byte, x []float32) float32 {
		var acc [16]float32
		k := len(x)
		np := k &^ 63
		_ = w[:2*k]
		if np > 0 {
			if bf {
				bf16Vec64(&w[0], &x[0], np, &acc)
			} else {
				f16Vec64(&w[0], &x[0], np, &acc)
			}
		}
		s := float64(reduce16(&acc))
		for i := np; i < k; i++ {
			h := uint16(w[2*i]) | uint16(w[2*i+1])<<8
			v := quant.F16ToF32(h)
			if bf {
				v = quant.BF16ToF32(h)
			}
			s += float64(v * x[i]) // as dotVec's wide tail
		}
		return float32(s)
	}
}
