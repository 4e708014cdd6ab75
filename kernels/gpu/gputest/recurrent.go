package gputest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"saji/kernels"
)

// The recurrent operations' test, shared by the CUDA and Metal suites.

// recurrentSeqs is the batch of Recurrent's cases: three sequences of
// different lengths (one empty) in shuffled slots of four.
var recurrentSeqs = []kernels.RecurrentSeq{{Slot: 2, Tokens: 3}, {Slot: 0, Tokens: 0}, {Slot: 3, Tokens: 5}}

// Recurrent runs Backend.SSMScan, Backend.GatedDeltaNet and
// Backend.ShortConv on both backends over a batch (recurrentSeqs) at the
// shapes of real models and of rows of no multiple of 64 values, and
// passes each output and the states after it, GPU side first, to cmp as a
// subtest.
func (bs Backends) Recurrent(t *testing.T, r *rand.Rand, cmp func(t *testing.T, what string, g, c []float32)) {
	n := 0
	for _, s := range recurrentSeqs {
		n += s.Tokens
	}
	const slots = 4
	for _, p := range []kernels.SSMScanParams{
		{Heads: 4, HeadDim: 16, StateDim: 128, Groups: 2},
		{Heads: 3, HeadDim: 5, StateDim: 16, Groups: 1},
		{Heads: 2, HeadDim: 8, StateDim: 64, Groups: 1, DtBias: RandFloats(r, 2, 1), D: RandFloats(r, 2, 1)},
	} {
		name := fmt.Sprintf("ssm_scan/%d.%d.%d.%d", p.Heads, p.HeadDim, p.StateDim, p.Groups)
		if p.D != nil {
			name += "/prepared"
		}
		t.Run(name, func(t *testing.T) {
			dt := RandFloats(r, p.Heads*n, 4)
			dt[0] = 25 // past softplus's cut-off
			a := RandFloats(r, p.Heads, 1)
			for i := range a {
				a[i] -= 1.5
			}
			x := bs.F32(t, RandFloats(r, p.Heads*p.HeadDim*n, 1), p.Heads*p.HeadDim, n)
			dtp, ap := bs.F32(t, dt, p.Heads, n), bs.F32(t, a, 1, p.Heads)
			bp := bs.F32(t, RandFloats(r, p.Groups*p.StateDim*n, 1), p.Groups*p.StateDim, n)
			cp := bs.F32(t, RandFloats(r, p.Groups*p.StateDim*n, 1), p.Groups*p.StateDim, n)
			st := bs.F32(t, RandFloats(r, slots*p.SlotSize(), 0.5), p.SlotSize(), slots)
			y := bs.F32(t, nil, p.Heads*p.HeadDim, n)
			bs.both(t, cmp, y, st, func(b kernels.Backend, side func(Pair) kernels.Tensor) error {
				return b.SSMScan(side(y), side(x), side(dtp), side(ap), side(bp), side(cp), side(st), recurrentSeqs, p)
			})
		})
	}
	// The last case has the operation prepare its inputs as llama.cpp's
	// graph does (DeltaNetParams' optional fields).
	prepared := kernels.DeltaNetParams{Heads: 4, KHeads: 1, HeadDim: 64, NormEps: 1e-6, BetaLogits: true,
		A: RandFloats(r, 4, 0.2), DtBias: RandFloats(r, 4, 1)}
	for i := range prepared.A {
		prepared.A[i] -= 0.3
	}
	for _, p := range []kernels.DeltaNetParams{
		{Heads: 4, KHeads: 2, HeadDim: 128},
		{Heads: 2, KHeads: 2, HeadDim: 24},
		prepared,
	} {
		name := fmt.Sprintf("gated_delta_net/%d.%d.%d", p.Heads, p.KHeads, p.HeadDim)
		if p.A != nil {
			name += "/prepared"
		}
		t.Run(name, func(t *testing.T) {
			qk, scale := p.KHeads*p.HeadDim, 1/float32(p.HeadDim)
			if p.NormEps > 0 {
				scale = 0.5 // normalized by the operation
			}
			q := bs.F32(t, RandFloats(r, qk*n, 2*scale), qk, n)
			k := bs.F32(t, RandFloats(r, qk*n, 2*scale), qk, n)
			v := bs.F32(t, RandFloats(r, p.Heads*p.HeadDim*n, 1), p.Heads*p.HeadDim, n)
			g, beta := RandFloats(r, p.Heads*n, 0.5), RandFloats(r, p.Heads*n, 0.5)
			for i := range g {
				if p.A != nil { // raw projections: α around softplus's bend, β logits
					g[i] *= 6
					beta[i] *= 6
					continue
				}
				g[i] -= 0.5
				beta[i] += 0.5
			}
			gp, bp := bs.F32(t, g, p.Heads, n), bs.F32(t, beta, p.Heads, n)
			st := bs.F32(t, RandFloats(r, slots*p.SlotSize(), 0.2), p.SlotSize(), slots)
			out := bs.F32(t, nil, p.Heads*p.HeadDim, n)
			bs.both(t, cmp, out, st, func(b kernels.Backend, side func(Pair) kernels.Tensor) error {
				return b.GatedDeltaNet(side(out), side(q), side(k), side(v), side(gp), side(bp), side(st), recurrentSeqs, p)
			})
		})
	}
	convSeqs := make([]kernels.ConvSeq, len(recurrentSeqs))
	for i, s := range recurrentSeqs {
		convSeqs[i] = kernels.ConvSeq{N: s.Tokens, Slot: s.Slot}
	}
	// LFM2's taps (k 3, 2048 channels), Qwen3.5's (k 4), and a window
	// longer than a sequence (k 5 over 3 tokens: the slot keeps old rows).
	for _, sh := range []struct{ c, k int }{{2048, 3}, {300, 4}, {70, 5}} {
		t.Run(fmt.Sprintf("short_conv/%d.%d", sh.c, sh.k), func(t *testing.T) {
			x := bs.F32(t, RandFloats(r, sh.c*n, 1), sh.c, n)
			w := bs.F32(t, RandFloats(r, sh.k*sh.c, 1), sh.c, sh.k)
			st := bs.F32(t, RandFloats(r, slots*(sh.k-1)*sh.c, 1), (sh.k-1)*sh.c, slots)
			out := bs.F32(t, nil, sh.c, n)
			bs.both(t, cmp, out, st, func(b kernels.Backend, side func(Pair) kernels.Tensor) error {
				return b.ShortConv(side(out), side(x), side(w), side(st), convSeqs)
			})
		})
	}
}

// both runs op on the GPU and the CPU, each with its side of the operands,
// and passes the output out and the states st of both to cmp.
func (bs Backends) both(t *testing.T, cmp func(t *testing.T, what string, g, c []float32), out, st Pair,
	op func(b kernels.Backend, side func(Pair) kernels.Tensor) error) {
	t.Helper()
	if err := op(bs.G, func(p Pair) kernels.Tensor { return p.G }); err != nil {
		t.Fatal(err)
	}
	if err := op(bs.C, func(p Pair) kernels.Tensor { return p.C }); err != nil {
		t.Fatal(err)
	}
	g, c := bs.Read(t, out)
	cmp(t, "out", g, c)
	g, c = bs.Read(t, st)
	cmp(t, "states", g, c)
}
