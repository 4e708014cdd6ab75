package cpu

import (
	"fmt"
	"math"

	"saji/kernels"
)

// The gated delta net, as ggml_compute_forward_gated_delta_net_one_chunk
// computes it on x86-64 with AVX-512 (llama.cpp 3f545bec), which
// llama.cpp runs for prompts and decode alike wherever the backend has the
// op (its chunked graph is the fallback for backends without it): one
// loop over the tokens. A head's state is held transposed, row j being
// column j of S, and per token ggml scales the whole state by expf(g),
// takes each row's dot product with k (ggml_vec_dot_f32: dotVec),
// delta[j] = (v[j] − dot)·β, adds k·delta[j] to each row with fused
// multiply-adds (ggml_vec_mad_f32) and takes each row's dot product with
// q, times 1/√HeadDim. Every step of row j reads row j only, so doing the
// four steps row by row, as the kernels here do, gives the same bits with
// one pass over the state instead of four.

// GatedDeltaNet runs the gated delta rule over the sequences of a batch,
// updating each sequence's state in its slot of states.
func (b *Backend) GatedDeltaNet(out, q, k, v, g, beta, states kernels.Tensor, seqs []kernels.RecurrentSeq, p kernels.DeltaNetParams) error {
	ts, err := b.f32Operands("gated_delta_net", out, q, k, v, g, beta, states)
	if err != nil {
		return err
	}
	if err := kernels.CheckGatedDeltaNet(out, q, k, v, g, beta, states, seqs, p); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	os, qs, ks, vs, gs, betas, ss := ts[0].f, ts[1].f, ts[2].f, ts[3].f, ts[4].f, ts[5].f, ts[6].f
	nh, nk, hd := p.Heads, p.KHeads, p.HeadDim
	scale := 1 / float32(math.Sqrt(float64(hd)))
	rows := b.k.deltaRowsFunc(hd)
	first := seqRows(seqs)
	b.parallel(len(seqs)*nh, func(lo, hi int) {
		var qn, kn []float32 // normalized heads, with p.NormEps
		if p.NormEps > 0 {
			qn, kn = make([]float32, hd), make([]float32, hd)
		}
		for it := lo; it < hi; it++ {
			s, h := seqs[it/nh], it%nh
			st := ss[s.Slot*p.SlotSize()+h*hd*hd:][:hd*hd]
			kh := h % nk
			for t := range s.Tokens {
				r := first[it/nh] + t
				qh, kv := qs[(r*nk+kh)*hd:][:hd], ks[(r*nk+kh)*hd:][:hd]
				if p.NormEps > 0 {
					l2NormRow(qn, qh, p.NormEps)
					l2NormRow(kn, kv, p.NormEps)
					qh, kv = qn, kn
				}
				rows(st, kv, qh, vs[(r*nh+h)*hd:][:hd], os[(r*nh+h)*hd:][:hd],
					expF(deltaGate(p, h, gs[r*nh+h])), deltaBeta(p, betas[r*nh+h]), scale)
			}
		}
	})
	return nil
}

// l2NormRow sets dst = x·(1/max(√Σx², eps)) as ggml_l2_norm computes it:
// the squares rounded to float32 and summed in float64, the square root of
// the sum rounded to float32.
func l2NormRow(dst, x []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	scale := 1 / max(float32(math.Sqrt(float64(float32(sum)))), eps)
	for i, v := range x {
		dst[i] = v * scale
	}
}

// deltaGate returns head h's log-decay from g, the caller's or, with p.A,
// softplus(g + DtBias[h])·A[h].
func deltaGate(p kernels.DeltaNetParams, h int, g float32) float32 {
	if p.A == nil {
		return g
	}
	if p.DtBias != nil {
		g += p.DtBias[h]
	}
	return softplus(g) * p.A[h]
}

// deltaBeta returns the update strength from beta, the caller's or, with
// p.BetaLogits, its sigmoid.
func deltaBeta(p kernels.DeltaNetParams, beta float32) float32 {
	if p.BetaLogits {
		return Sigmoid(beta)
	}
	return beta
}

// vecDotF32 is ggml_vec_dot_f32 as llama.cpp's x86-64 build computes it:
// dotVec's four accumulators over each 64 values, then the products of the
// values after the last full 64 rounded and added one by one (unfused:
// the peer figures of S = 16 and 96 show it).
func vecDotF32(a, b []float32) float32 {
	np := len(a) &^ 63
	s := dotVec(a[:np], b[:np], false)
	for i := np; i < len(a); i++ {
		s += float32(a[i] * b[i])
	}
	return s
}

// deltaRowsGo advances one head of the delta net by one token, the oracle
// of the SIMD forms: for each row j of the transposed state st (len(v)
// rows of len(k) values), row ← row·decay, delta = (v[j] − row·k)·beta,
// row ← row + k·delta, out[j] = (row·q)·scale, the dot products as
// ggml_vec_dot_f32 computes them (vecDotF32) and the update with fused
// multiply-adds as ggml_vec_mad_f32.
func deltaRowsGo(st, k, q, v, out []float32, decay, beta, scale float32) {
	n := len(k)
	for j := range v {
		row := st[j*n : (j+1)*n]
		for i := range row {
			row[i] *= decay
		}
		delta := (v[j] - vecDotF32(row, k)) * beta
		for i, x := range k {
			row[i] = fma32(x, delta, row[i])
		}
		out[j] = vecDotF32(row, q) * scale
	}
}
