package cpu

import "saji/kernels/quant"

// attnDotsGo is attnDots in Go.
func attnDotsGo(out, q, k []float32, ldk int) {
	for c := range out {
		kc := k[c*ldk : c*ldk+len(q)]
		var s float32
		for i, v := range q {
			s += v * kc[i]
		}
		out[c] = s
	}
}

// attnAccGo is attnAcc in Go: for each cell in order, one fused
// multiply-add per value, as the SIMD forms and the oracle do.
func attnAccGo(acc, v, p []float32, ldv int) {
	for c, pc := range p {
		vc := v[c*ldv : c*ldv+len(acc)]
		for i, x := range vc {
			acc[i] = fma32(pc, x, acc[i])
		}
	}
}

// widenF16Go is widenF16 in Go.
func widenF16Go(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = quant.F16ToF32(uint16(src[2*i]) | uint16(src[2*i+1])<<8)
	}
}

// f16AccGo is f16Acc in Go.
func f16AccGo(acc []float32, v []byte, vs float32) {
	for i, a := range acc {
		x := quant.F16ToF32(uint16(v[2*i]) | uint16(v[2*i+1])<<8)
		acc[i] = roundF16(fma32(x, vs, a))
	}
}

// f16AccCellsGo accumulates a row's values over a run of cells in order:
// for cell j, f16Scale(acc, ms[j]) where ms[j] is not 1 (scaling by 1
// leaves acc's F16 values as they are), then f16Acc of the value row at
// v[off[j]:] (len(acc) F16 values) by vs[j].
func f16AccCellsGo(acc []float32, v []byte, off []int, ms, vs []float32) {
	for j, o := range off {
		if ms[j] != 1 {
			f16Scale(acc, ms[j])
		}
		f16Acc(acc, v[o:o+2*len(acc)], vs[j])
	}
}

// f16ScaleGo is f16Scale in Go.
func f16ScaleGo(acc []float32, ms float32) {
	for i, a := range acc {
		acc[i] = roundF16(a * ms)
	}
}

// seqDots64Go is seqDots64 in Go.
func seqDots64Go(out *[64]float32, q, kt []float32) {
	*out = [64]float32{}
	for i, v := range q {
		row := kt[64*i : 64*i+64]
		for c := range out {
			out[c] = fma32(v, row[c], out[c])
		}
	}
}
