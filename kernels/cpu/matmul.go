package cpu

import (
	"fmt"

	"saji/kernels"
	"saji/kernels/quant"
)

// MatMul sets dst[j][i] = Σ_l w[i][l]·x[j][l] for w [k, m], x [k, n] and
// dst [m, n], with the activations first converted to w's dot-product
// format as ggml does.
func (b *Backend) MatMul(dst, w, x kernels.Tensor) error {
	d, err := b.f32(dst, "matmul destination")
	if err != nil {
		return err
	}
	xs, err := b.f32(x, "matmul input")
	if err != nil {
		return err
	}
	wt, err := b.own(w)
	if err != nil {
		return err
	}
	k, m, n := wt.cols(), wt.rows(), xs.rows()
	if xs.cols() != k || d.cols() != m || d.rows() != n {
		return fmt.Errorf("cpu: matmul of weight %v by input %v into %v: %w", wt.shape, xs.shape, d.shape, kernels.ErrShape)
	}
	if d == xs {
		return fmt.Errorf("cpu: matmul destination aliases its input: %w", kernels.ErrShape)
	}
	kind, sums, ok := dotKindOf(wt.typ)
	if !ok {
		return fmt.Errorf("cpu: matmul with %v weights is not supported", wt.typ)
	}
	if k%wt.typ.BlockSize() != 0 {
		return fmt.Errorf("cpu: matmul row length %d is not a multiple of the %v block: %w", k, wt.typ, kernels.ErrShape)
	}
	out := d.f
	switch kind {
	case dotF32:
		dot := floatDot(n, k, false)
		b.parallel(m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				wr := wt.f[i*k : (i+1)*k]
				for j := range n {
					out[j*m+i] = dot(wr, xs.f[j*k:(j+1)*k])
				}
			}
		})
	case dotF16, dotBF16:
		round, widen := roundF16, quant.F16ToF32
		if kind == dotBF16 {
			round, widen = roundBF16, quant.BF16ToF32
		}
		xr := make([]float32, len(xs.f))
		for i, v := range xs.f {
			xr[i] = round(v)
		}
		dot := floatDot(n, k, true)
		b.parallel(m, func(lo, hi int) {
			wr := make([]float32, k)
			for i := lo; i < hi; i++ {
				row := wt.row(i)
				for l := range wr {
					wr[l] = widen(uint16(row[2*l]) | uint16(row[2*l+1])<<8)
				}
				for j := range n {
					out[j*m+i] = dot(wr, xr[j*k:(j+1)*k])
				}
			}
		})
	case dotQ8:
		nb := k / 32
		xq := make([]q8Block, n*nb)
		b.parallel(n, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				quantizeQ8(xs.f[j*k:(j+1)*k], xq[j*nb:(j+1)*nb], sums)
			}
		})
		b.parallel(m, func(lo, hi int) {
			var r row32
			r.reset(k)
			for i := lo; i < hi; i++ {
				decode32(wt.typ, wt.row(i), &r)
				for j := range n {
					out[j*m+i] = dot32(&r, xq[j*nb:(j+1)*nb])
				}
			}
		})
	case dotQ8K:
		nb := k / quant.QK_K
		xq := make([]q8KBlock, n*nb)
		// ggml's repacked Q4_K and Q2_K kernels take the activation rows in
		// groups of four (gemm), the last n%4 alone (gemv); the groups are
		// quantized with a slightly different tie rule.
		gemmRows := 0
		if wt.typ == quant.TypeQ4_K || wt.typ == quant.TypeQ2_K {
			gemmRows = n - n%4
		}
		b.parallel(n, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				quantizeQ8K(xs.f[j*k:(j+1)*k], xq[j*nb:(j+1)*nb], j < gemmRows)
			}
		})
		b.parallel(m, func(lo, hi int) {
			var r rowK
			r.reset(k)
			for i := lo; i < hi; i++ {
				decodeK(wt.typ, wt.row(i), &r)
				for j := range n {
					out[j*m+i] = dotK(&r, xq[j*nb:(j+1)*nb], j < gemmRows)
				}
			}
		})
	}
	return nil
}

// floatDot picks the dot product ggml uses for an F32 (or, with half, F16)
// matrix product of n rows of length k: llamafile's tinyBLAS when there are
// two rows or more and k is a multiple of 16, ggml_vec_dot otherwise.
func floatDot(n, k int, half bool) func(a, b []float32) float32 {
	if n >= 2 && k%16 == 0 {
		return dotTiny
	}
	return func(a, b []float32) float32 { return dotVec(a, b, half) }
}
