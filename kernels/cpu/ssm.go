package cpu

import (
	"fmt"

	"saji/kernels"
)

// Mamba-2's selective scan, as ggml_compute_forward_ssm_scan_f32 computes
// it on x86-64 with AVX-512 (llama.cpp 3f545bec): for each token and head
// the decay exp(softplus(dt)·A) is one scalar (glibc's expf and logf), and
// each state row of StateDim values is updated and dotted with C in
// ggml's SIMD order: over each 64 values four accumulators of sixteen
// lanes, the new state s·dA + B·(x·dt) with its two products and the sum
// rounded one by one and the dot product's terms fused into the
// accumulators; the accumulators added 0+2, 1+3, then together and
// reduced as _mm512_reduce_add_ps; the values after the last full 64 one
// by one, each state a fused s·dA + (B·(x·dt)) and its term fused into
// the sum (GCC contracts ggml's scalar loop so).

// SSMScan runs Mamba-2's selective scan over the sequences of a batch,
// updating each sequence's state in its slot of states.
func (b *Backend) SSMScan(y, x, dt, a, bm, c, states kernels.Tensor, seqs []kernels.RecurrentSeq, p kernels.SSMScanParams) error {
	ts, err := b.f32Operands("ssm_scan", y, x, dt, a, bm, c, states)
	if err != nil {
		return err
	}
	if err := kernels.CheckSSMScan(y, x, dt, a, bm, c, states, seqs, p); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	ys, xs, dts, as, bs, cs, ss := ts[0].f, ts[1].f, ts[2].f, ts[3].f, ts[4].f, ts[5].f, ts[6].f
	nh, hd, nc, ng := p.Heads, p.HeadDim, p.StateDim, p.Groups
	rows := b.k.ssmRowsFunc()
	first := seqRows(seqs)
	// Heads are independent: each work item is one head of one sequence,
	// over all its tokens.
	b.parallel(len(seqs)*nh, func(lo, hi int) {
		for it := lo; it < hi; it++ {
			s, h := seqs[it/nh], it%nh
			st := ss[s.Slot*p.SlotSize()+h*hd*nc:][:hd*nc]
			g := h / (nh / ng)
			for t := range s.Tokens {
				r := first[it/nh] + t
				dt := dts[r*nh+h]
				if p.DtBias != nil {
					dt += p.DtBias[h]
				}
				d := softplus(dt)
				dA := expF(d * as[h])
				x, y := xs[(r*nh+h)*hd:][:hd], ys[(r*nh+h)*hd:][:hd]
				rows(st, bs[(r*ng+g)*nc:][:nc], cs[(r*ng+g)*nc:][:nc], x, y, dA, d)
				if p.D != nil {
					for i, v := range x {
						y[i] += float32(v * p.D[h]) // never fused: ggml_mul, then ggml_add
					}
				}
			}
		}
	})
	return nil
}

// f32Operands returns ts as F32 tensors of this backend, for op's
// messages.
func (b *Backend) f32Operands(op string, ts ...kernels.Tensor) ([]*tensor, error) {
	out := make([]*tensor, len(ts))
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("cpu: %s: operand %d is missing: %w", op, i, kernels.ErrShape)
		}
		c, err := b.f32(t, op+" operand")
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// seqRows returns the first row of each sequence of a recurrent batch.
func seqRows(seqs []kernels.RecurrentSeq) []int {
	first := make([]int, len(seqs))
	r := 0
	for i, s := range seqs {
		first[i] = r
		r += s.Tokens
	}
	return first
}

// softplus is ggml_compute_softplus_f32 (and ggml_softplus): x above 20,
// else log(1+e^x) with glibc's expf and logf.
func softplus(x float32) float32 {
	if x > 20 {
		return x
	}
	return logF(1 + expF(x))
}

// ssmRowsGo advances one head of the scan by one token, the oracle of the
// SIMD forms: for each row i of the head's state st (len(y) rows of
// len(bg) values), st[i] = st[i]·dA + bg·(x[i]·d) and y[i] = st[i]·cg,
// in ggml's order (see the top of this file).
func ssmRowsGo(st, bg, cg, x, y []float32, dA, d float32) {
	nc := len(bg)
	np := nc &^ 63
	for i := range y {
		row := st[i*nc : (i+1)*nc]
		xdt := x[i] * d
		var sum float32
		if np > 0 {
			var acc [4][16]float32
			for c := 0; c < np; c += 64 {
				for j := range 4 {
					for l := range 16 {
						e := c + 16*j + l
						v := fma32(row[e], dA, float32(bg[e]*xdt))
						row[e] = v
						acc[j][l] = fma32(v, cg[e], acc[j][l])
					}
				}
			}
			for l := range 16 {
				acc[0][l] += acc[2][l]
				acc[1][l] += acc[3][l]
				acc[0][l] += acc[1][l]
			}
			sum = reduce16(&acc[0])
		}
		sum = ssmTail(row, bg, cg, np, dA, xdt, sum)
		y[i] = sum
	}
}

// ssmTail updates the values from np of a state row one by one, as ggml's
// scalar loop does, and returns sum with their terms added.
func ssmTail(row, bg, cg []float32, np int, dA, xdt, sum float32) float32 {
	for e := np; e < len(row); e++ {
		v := fma32(row[e], dA, float32(bg[e]*xdt))
		row[e] = v
		sum = fma32(v, cg[e], sum)
	}
	return sum
}
