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

// attnAccGo is attnAcc in Go.
func attnAccGo(acc, v, p []float32, ldv int) {
	for c, pc := range p {
		vc := v[c*ldv : c*ldv+len(acc)]
		for i, x := range vc {
			acc[i] += pc * x
		}
	}
}

// widenF16Go is widenF16 in Go.
func widenF16Go(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = quant.F16ToF32(uint16(src[2*i]) | uint16(src[2*i+1])<<8)
	}
}
