package cpu

import (
	"fmt"
	"math"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// deltaPeer is one delta net of the peer figures: its shape, the seed of
// its inputs and the hashes of llama.cpp's output and final states.
type deltaPeer struct {
	headDim, kHeads, heads, tokens, seqs int
	seed                                 uint64
	out, states                          uint64
}

// deltaNetPeer are the gated delta nets of the peer figures (see
// ssmPeer).
var deltaNetPeer = []deltaPeer{
	{16, 2, 4, 5, 1, 5, 0xa4dbda94bc9a8a27, 0xdad26eddad132b13},
	{128, 2, 4, 6, 2, 6, 0xffa99ce36e880a6a, 0xf3a589d18104ef89},
	{96, 2, 2, 3, 1, 7, 0x8b5429bb3bbaa70c, 0x11cd416fd2c1e028},
	{128, 4, 4, 1, 3, 8, 0x57348c0cb85470c4, 0x143de9a46159b855},
}

// deltaCase is one gated delta net's inputs, in ggml's layout.
type deltaCase struct {
	p                        kernels.DeltaNetParams
	seqs                     []kernels.RecurrentSeq
	q, k, v, g, beta, states []float32
}

// newDeltaCase draws a delta net's inputs as the peer program does, with
// every sequence tokens long: q and k within ±0.3, v within ±1, the
// log-decays g in [−1.1, −0.1], beta in [0, 1] and the states within ±0.2.
func newDeltaCase(p kernels.DeltaNetParams, tokens, seqs int, seed uint64) deltaCase {
	n := tokens * seqs
	qk, hv := p.KHeads*p.HeadDim*n, p.Heads*p.HeadDim*n
	in := recInputs(seed, []int{qk, qk, hv, p.Heads * n, p.Heads * n, p.SlotSize() * seqs},
		[]float32{0.3, 0.3, 1, 0.5, 0.5, 0.2}, []float32{0, 0, 0, -0.6, 0.5, 0})
	c := deltaCase{p: p, q: in[0], k: in[1], v: in[2], g: in[3], beta: in[4], states: in[5]}
	c.seqs = evenSeqs(tokens, seqs)
	return c
}

// run runs c on b and returns the output and the states after it.
func (c deltaCase) run(t *testing.T, b *Backend) (out, states []float32) {
	t.Helper()
	p, n := c.p, len(c.g)/c.p.Heads
	st := f32(t, b, c.states, p.SlotSize(), len(c.states)/p.SlotSize())
	ot := newF32(t, b, p.Heads*p.HeadDim, n)
	err := b.GatedDeltaNet(ot, f32(t, b, c.q, p.KHeads*p.HeadDim, n), f32(t, b, c.k, p.KHeads*p.HeadDim, n),
		f32(t, b, c.v, p.Heads*p.HeadDim, n), f32(t, b, c.g, p.Heads, n), f32(t, b, c.beta, p.Heads, n), st, c.seqs, p)
	if err != nil {
		t.Fatal(err)
	}
	return read(t, ot), read(t, st)
}

// TestDeltaNetPeer checks the delta net bit for bit against llama.cpp's
// on the oracle and every kernel set of this CPU.
func TestDeltaNetPeer(t *testing.T) {
	for _, pc := range deltaNetPeer {
		p := kernels.DeltaNetParams{Heads: pc.heads, KHeads: pc.kHeads, HeadDim: pc.headDim}
		c := newDeltaCase(p, pc.tokens, pc.seqs, pc.seed)
		checkPeer(t, fmt.Sprintf("%d.%d.%d.%dx%d", pc.headDim, pc.kHeads, pc.heads, pc.tokens, pc.seqs), c.run, pc.out, pc.states)
	}
}

// deltaNetPreparedPeer are gated delta nets from raw projections, with
// llama.cpp's graph before the op (Qwen3.5's: ggml_l2_norm of q and k with
// eps 1e-6, the log-decay ggml_mul(ggml_softplus(ggml_add(α, dt_bias)), A),
// ggml_sigmoid of β), figures made as deltaNetPeer's. The inputs are drawn
// in the order q, k, v, α, β, state, dt_bias, A: α + dt_bias above 20,
// where softplus is the identity (see newSSMCase).
var deltaNetPreparedPeer = []deltaPeer{
	{128, 2, 4, 5, 2, 9, 0xf78d3e96c03f5118, 0x05d5707364bd6ec6},
	{32, 1, 2, 3, 1, 10, 0xa4e13240ed39cc10, 0xf790544c1a41743b},
}

// TestDeltaNetPreparedPeer checks DeltaNetParams' graph steps (NormEps,
// A and DtBias, BetaLogits) bit for bit against llama.cpp's.
func TestDeltaNetPreparedPeer(t *testing.T) {
	for _, pc := range deltaNetPreparedPeer {
		p := kernels.DeltaNetParams{Heads: pc.heads, KHeads: pc.kHeads, HeadDim: pc.headDim, NormEps: 1e-6, BetaLogits: true}
		n := pc.tokens * pc.seqs
		qk, hv := p.KHeads*p.HeadDim*n, p.Heads*p.HeadDim*n
		in := recInputs(pc.seed, []int{qk, qk, hv, p.Heads * n, p.Heads * n, p.SlotSize() * pc.seqs, p.Heads, p.Heads},
			[]float32{1, 1, 1, 2, 3, 0.2, 0.5, 0.005}, []float32{0, 0, 0, 22, 0, 0, 0, -0.01})
		p.DtBias, p.A = in[6], in[7]
		c := deltaCase{p: p, q: in[0], k: in[1], v: in[2], g: in[3], beta: in[4], states: in[5]}
		c.seqs = evenSeqs(pc.tokens, pc.seqs)
		checkPeer(t, fmt.Sprintf("%d.%d.%d.%dx%d", pc.headDim, pc.kHeads, pc.heads, pc.tokens, pc.seqs), c.run, pc.out, pc.states)
	}
}

// deltaReference is the gated delta rule written out plainly in float64
// from its definition, one sequence of tokens tokens from state st
// (updated in place; element (j, i) of a head is S[i][j]).
func deltaReference(p kernels.DeltaNetParams, st []float64, q, k, v, g, beta []float32, tokens int) []float64 {
	nh, nk, n := p.Heads, p.KHeads, p.HeadDim
	out := make([]float64, tokens*nh*n)
	scale := 1 / math.Sqrt(float64(n))
	for t := range tokens {
		for h := range nh {
			S := st[h*n*n : (h+1)*n*n]
			kh := h % nk
			kv, qv := k[(t*nk+kh)*n:][:n], q[(t*nk+kh)*n:][:n]
			decay := math.Exp(float64(g[t*nh+h]))
			for e := range S {
				S[e] *= decay
			}
			for j := range n {
				var sk float64 // (Sᵀk)[j]
				for i := range n {
					sk += S[j*n+i] * float64(kv[i])
				}
				d := float64(beta[t*nh+h]) * (float64(v[(t*nh+h)*n+j]) - sk)
				var o float64
				for i := range n {
					S[j*n+i] += float64(kv[i]) * d
					o += S[j*n+i] * float64(qv[i])
				}
				out[(t*nh+h)*n+j] = o * scale
			}
		}
	}
	return out
}

// TestDeltaNetReference checks the delta net against deltaReference over
// a batch of sequences of different lengths in shuffled slots, on the
// oracle and every kernel set.
func TestDeltaNetReference(t *testing.T) {
	tests := []struct {
		name   string
		p      kernels.DeltaNetParams
		tokens []int
	}{
		{"tail only", kernels.DeltaNetParams{Heads: 4, KHeads: 2, HeadDim: 16}, []int{3}},
		{"qwen3.5", kernels.DeltaNetParams{Heads: 4, KHeads: 2, HeadDim: 128}, []int{5, 1, 0, 4}},
		{"vector and tail", kernels.DeltaNetParams{Heads: 3, KHeads: 3, HeadDim: 80}, []int{2, 3}},
	}
	for _, tt := range tests {
		p := tt.p
		seqs, n, slots := recBatch(tt.tokens)
		qk, hv := p.KHeads*p.HeadDim*n, p.Heads*p.HeadDim*n
		in := recInputs(uint64(len(tt.name)), []int{qk, qk, hv, p.Heads * n, p.Heads * n, p.SlotSize() * slots},
			[]float32{0.3, 0.3, 1, 0.5, 0.5, 0.2}, []float32{0, 0, 0, -0.6, 0.5, 0})
		c := deltaCase{p: p, seqs: seqs, q: in[0], k: in[1], v: in[2], g: in[3], beta: in[4], states: in[5]}
		kw, vw := p.KHeads*p.HeadDim, p.Heads*p.HeadDim
		checkReference(t, tt.name, c.run, seqs, c.states, p.SlotSize(), func(r int, s kernels.RecurrentSeq, st []float64) []float64 {
			rows := func(v []float32, w int) []float32 { return v[r*w : (r+s.Tokens)*w] }
			return deltaReference(p, st, rows(c.q, kw), rows(c.k, kw), rows(c.v, vw), rows(c.g, p.Heads), rows(c.beta, p.Heads), s.Tokens)
		})
	}
}

// TestDeltaNetSplit checks that a batch gives each sequence the bits it
// gets alone, a prompt run in chunks the bits it gets in one, and a
// decode step (one token) the bits of the same token in a prompt.
func TestDeltaNetSplit(t *testing.T) {
	p := kernels.DeltaNetParams{Heads: 4, KHeads: 2, HeadDim: 128}
	kw, vw := p.KHeads*p.HeadDim, p.Heads*p.HeadDim
	c := newDeltaCase(p, 5, 2, 21)
	checkChunks(t, c.run, c.states, 2, 5, vw, p.SlotSize(), [][2]int{{0, 3}, {3, 4}, {4, 5}}, func(r0, r1 int, st []float32) recRun {
		return deltaCase{p: p, seqs: []kernels.RecurrentSeq{{Slot: 0, Tokens: r1 - r0}}, states: st,
			q: c.q[r0*kw : r1*kw], k: c.k[r0*kw : r1*kw], v: c.v[r0*vw : r1*vw], g: c.g[r0*4 : r1*4], beta: c.beta[r0*4 : r1*4]}.run
	})
}

// TestDeltaNetErrors checks that operands that do not fit are refused.
func TestDeltaNetErrors(t *testing.T) {
	b := NewReference(1)
	p := kernels.DeltaNetParams{Heads: 4, KHeads: 2, HeadDim: 8}
	mk := func(c, r int) kernels.Tensor { return newF32(t, b, c, r) }
	q, k, v, g, st := mk(16, 2), mk(16, 2), mk(32, 2), mk(4, 2), mk(p.SlotSize(), 1)
	one := []kernels.RecurrentSeq{{Slot: 0, Tokens: 2}}
	with := func(edit func(r *kernels.DeltaNetParams)) func() error {
		return func() error {
			r := p
			edit(&r)
			return b.GatedDeltaNet(mk(32, 2), q, k, v, g, g, st, one, r)
		}
	}
	rs := seqRefusals(func(seqs []kernels.RecurrentSeq) error { return b.GatedDeltaNet(mk(32, 2), q, k, v, g, g, st, seqs, p) }, 2, 1)
	rs = append(rs, []refusal{
		{"heads", with(func(r *kernels.DeltaNetParams) { r.KHeads = 3 })},
		{"decays", with(func(r *kernels.DeltaNetParams) { r.A = []float32{-1, -1} })},
		{"bias without decays", with(func(r *kernels.DeltaNetParams) { r.DtBias = []float32{0, 0, 0, 0} })},
		{"eps", with(func(r *kernels.DeltaNetParams) { r.NormEps = -1 })},
		{"k", func() error { return b.GatedDeltaNet(mk(32, 2), q, mk(32, 2), v, g, g, st, one, p) }},
		{"beta", func() error { return b.GatedDeltaNet(mk(32, 2), q, k, v, g, mk(2, 2), st, one, p) }},
		{"alias", func() error { return b.GatedDeltaNet(v, q, k, v, g, g, st, one, p) }},
		{"nil", func() error { return b.GatedDeltaNet(mk(32, 2), q, k, v, g, g, nil, one, p) }},
	}...)
	checkRefusals(t, rs, with(func(*kernels.DeltaNetParams) {}))
}

// l2Normalize scales each head of n values of x to unit length, as
// llama.cpp's graph does to the queries and keys of a delta net (whose
// state stays bounded only with keys of length at most √2).
func l2Normalize(x []float32, n int) {
	for h := 0; h < len(x); h += n {
		var s float64
		for _, v := range x[h : h+n] {
			s += float64(v) * float64(v)
		}
		for i := h; i < h+n; i++ {
			x[i] = float32(float64(x[i]) / math.Sqrt(s))
		}
	}
}

// BenchmarkDeltaNet runs a Qwen3.5-9B-sized delta-net layer (32 value and
// 16 key heads of 128) for a decode step and a prompt of 64 tokens, on
// the oracle and the newest kernel set, two threads.
func BenchmarkDeltaNet(b *testing.B) {
	p := kernels.DeltaNetParams{Heads: 32, KHeads: 16, HeadDim: 128}
	for _, tokens := range []int{1, 64} {
		c := newDeltaCase(p, tokens, 1, 1)
		l2Normalize(c.q, p.HeadDim)
		l2Normalize(c.k, p.HeadDim)
		for _, be := range []*Backend{NewReference(2), New(2), New(1)} {
			b.Run(fmt.Sprintf("t%d/%s/%dthreads", tokens, be.Kernels(), be.Threads()), func(b *testing.B) {
				n := tokens
				st, _ := be.New(quant.TypeF32, p.SlotSize())
				_ = be.Write(st, c.states)
				var args []kernels.Tensor
				for _, a := range []struct {
					d    []float32
					cols int
				}{{c.q, p.KHeads * p.HeadDim}, {c.k, p.KHeads * p.HeadDim}, {c.v, p.Heads * p.HeadDim}, {c.g, p.Heads}, {c.beta, p.Heads}} {
					tt, _ := be.New(quant.TypeF32, a.cols, n)
					_ = be.Write(tt, a.d)
					args = append(args, tt)
				}
				out, _ := be.New(quant.TypeF32, p.Heads*p.HeadDim, n)
				seqs := []kernels.RecurrentSeq{{Slot: 0, Tokens: n}}
				b.SetBytes(int64(4 * p.SlotSize() * tokens))
				cpuTime(b, func() {
					for b.Loop() {
						if err := be.GatedDeltaNet(out, args[0], args[1], args[2], args[3], args[4], st, seqs, p); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}
