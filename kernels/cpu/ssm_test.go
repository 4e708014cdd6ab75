package cpu

import (
	"fmt"
	"math"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// The figures of ssmPeer and deltaNetPeer were computed by llama.cpp's CPU
// backend at commit 3f545bec (AVX-512 build, one thread) from inputs that
// refLCG generates, through a small program (not in this repository) that
// runs ggml_ssm_scan (ids 0..n_seqs-1, K = 1) or ggml_gated_delta_net
// (K = 1) on them and prints bitsHash of the outputs and of the final
// states. The inputs are drawn in the order of the operation's arguments,
// each value refLCG's float times a scale plus an offset (recInputs).

// ssmPeerCase is one selective scan of the peer figures: its shape, the
// seed of its inputs and the hashes of llama.cpp's y and final states.
type ssmPeerCase struct {
	stateDim, headDim, heads, groups, tokens, seqs int
	seed                                           uint64
	y, states                                      uint64
}

// ssmPeer are the selective scans of the peer figures.
var ssmPeer = []ssmPeerCase{
	{16, 8, 4, 1, 5, 1, 1, 0xe9680e5b4b9a864c, 0x71c09d409db82689},
	{128, 16, 4, 2, 7, 2, 2, 0xfc0160559ca89cfe, 0xa2c9ff943ba8702a},
	{80, 4, 2, 1, 3, 1, 3, 0x144c741e8de3b41f, 0xa0ece3506d0e75f8},
	{128, 64, 8, 8, 1, 1, 4, 0xf0ea5d1c947456c7, 0x49b65c654a4d97d8},
}

// ssmCase is one selective scan's inputs, in ggml's layout.
type ssmCase struct {
	p                       kernels.SSMScanParams
	seqs                    []kernels.RecurrentSeq
	states, x, dt, a, bm, c []float32
}

// newSSMCase draws a scan's inputs as the peer program does, with every
// sequence tokens long. Its dt are above 20, where softplus is the
// identity: glibc's logf, which llama.cpp's softplus calls, is within 0.82
// ulp of the correctly rounded logarithm that softplus takes, so below 20
// a step's decay and x·dt may differ from llama.cpp's in the last bit
// (TestSSMScanReference covers those inputs).
func newSSMCase(p kernels.SSMScanParams, tokens, seqs int, seed uint64) ssmCase {
	n := tokens * seqs
	in := recInputs(seed,
		[]int{p.SlotSize() * seqs, p.Heads * p.HeadDim * n, p.Heads * n, p.Heads, p.Groups * p.StateDim * n, p.Groups * p.StateDim * n},
		[]float32{0.5, 1, 2, 0.01, 1, 1}, []float32{0, 0, 22, -0.02, 0, 0})
	c := ssmCase{p: p, states: in[0], x: in[1], dt: in[2], a: in[3], bm: in[4], c: in[5]}
	c.seqs = evenSeqs(tokens, seqs)
	return c
}

// run runs c on b and returns y and the states after it.
func (c ssmCase) run(t *testing.T, b *Backend) (y, states []float32) {
	t.Helper()
	p, n := c.p, len(c.dt)/c.p.Heads
	st := f32(t, b, c.states, p.SlotSize(), len(c.states)/p.SlotSize())
	yt := newF32(t, b, p.Heads*p.HeadDim, n)
	err := b.SSMScan(yt, f32(t, b, c.x, p.Heads*p.HeadDim, n), f32(t, b, c.dt, p.Heads, n), f32(t, b, c.a, 1, p.Heads),
		f32(t, b, c.bm, p.Groups*p.StateDim, n), f32(t, b, c.c, p.Groups*p.StateDim, n), st, c.seqs, p)
	if err != nil {
		t.Fatal(err)
	}
	return read(t, yt), read(t, st)
}

// TestSSMScanPeer checks the scan bit for bit against llama.cpp's on the
// oracle and every kernel set of this CPU.
func TestSSMScanPeer(t *testing.T) {
	for _, pc := range ssmPeer {
		p := kernels.SSMScanParams{Heads: pc.heads, HeadDim: pc.headDim, StateDim: pc.stateDim, Groups: pc.groups}
		c := newSSMCase(p, pc.tokens, pc.seqs, pc.seed)
		checkPeer(t, fmt.Sprintf("%d.%d.%d.%d.%dx%d", pc.stateDim, pc.headDim, pc.heads, pc.groups, pc.tokens, pc.seqs), c.run, pc.y, pc.states)
	}
}

// ssmPreparedPeer are selective scans with llama.cpp's graph around the op
// (Mamba-2's: ggml_add of ssm_dt.bias to dt before it, ggml_add of
// ggml_mul(x, ssm_d) to y after it), figures made as ssmPeer's: the
// inputs drawn in the order states, x, dt, A, B, C, dt_bias, D.
var ssmPreparedPeer = []ssmPeerCase{
	{128, 16, 4, 2, 5, 2, 11, 0x9737761b8ca3a1fd, 0x9a2e8ca8bf8cc958},
	{48, 8, 2, 1, 3, 1, 12, 0xf29f0fe6a2fd2cab, 0xa1f3133cd56c8153},
}

// TestSSMScanPreparedPeer checks SSMScanParams' graph steps (DtBias, D)
// bit for bit against llama.cpp's.
func TestSSMScanPreparedPeer(t *testing.T) {
	for _, pc := range ssmPreparedPeer {
		p := kernels.SSMScanParams{Heads: pc.heads, HeadDim: pc.headDim, StateDim: pc.stateDim, Groups: pc.groups}
		n := pc.tokens * pc.seqs
		in := recInputs(pc.seed,
			[]int{p.SlotSize() * pc.seqs, p.Heads * p.HeadDim * n, p.Heads * n, p.Heads, p.Groups * p.StateDim * n, p.Groups * p.StateDim * n, p.Heads, p.Heads},
			[]float32{0.5, 1, 2, 0.01, 1, 1, 0.5, 1}, []float32{0, 0, 22, -0.02, 0, 0, 0, 0})
		p.DtBias, p.D = in[6], in[7]
		c := ssmCase{p: p, seqs: evenSeqs(pc.tokens, pc.seqs), states: in[0], x: in[1], dt: in[2], a: in[3], bm: in[4], c: in[5]}
		checkPeer(t, fmt.Sprintf("%d.%d.%d.%d.%dx%d", pc.stateDim, pc.headDim, pc.heads, pc.groups, pc.tokens, pc.seqs), c.run, pc.y, pc.states)
	}
}

// ssmReference is the selective scan written out plainly in float64, one
// sequence of tokens tokens from state st (updated in place): the test's
// own reading of ggml_ssm_scan.
func ssmReference(p kernels.SSMScanParams, st []float64, x, dt, a, bm, c []float32, tokens int) []float64 {
	nh, hd, nc, ng := p.Heads, p.HeadDim, p.StateDim, p.Groups
	y := make([]float64, tokens*nh*hd)
	for t := range tokens {
		for h := range nh {
			d := float64(dt[t*nh+h])
			if d <= 20 {
				d = math.Log1p(math.Exp(d))
			}
			dA := math.Exp(d * float64(a[h]))
			g := h / (nh / ng)
			for i := range hd {
				xdt := float64(x[(t*nh+h)*hd+i]) * d
				var sum float64
				for n := range nc {
					e := (h*hd+i)*nc + n
					st[e] = st[e]*dA + float64(bm[(t*ng+g)*nc+n])*xdt
					sum += st[e] * float64(c[(t*ng+g)*nc+n])
				}
				y[(t*nh+h)*hd+i] = sum
			}
		}
	}
	return y
}

// TestSSMScanReference checks the scan against ssmReference over a batch
// of sequences of different lengths in shuffled slots, with decays from
// the whole range of softplus, on the oracle and every kernel set.
func TestSSMScanReference(t *testing.T) {
	tests := []struct {
		name   string
		p      kernels.SSMScanParams
		tokens []int
	}{
		{"tail only", kernels.SSMScanParams{Heads: 4, HeadDim: 8, StateDim: 16, Groups: 1}, []int{3}},
		{"granite", kernels.SSMScanParams{Heads: 8, HeadDim: 16, StateDim: 128, Groups: 1}, []int{5, 1, 0, 9}},
		{"nemotron groups", kernels.SSMScanParams{Heads: 8, HeadDim: 8, StateDim: 128, Groups: 8}, []int{1, 2}},
		{"vector and tail", kernels.SSMScanParams{Heads: 6, HeadDim: 4, StateDim: 200, Groups: 3}, []int{4, 7}},
	}
	for _, tt := range tests {
		p := tt.p
		seqs, n, slots := recBatch(tt.tokens)
		in := recInputs(uint64(len(tt.name)), []int{p.SlotSize() * slots, p.Heads * p.HeadDim * n, p.Heads * n, p.Heads,
			p.Groups * p.StateDim * n, p.Groups * p.StateDim * n},
			[]float32{0.5, 1, 6, 2, 1, 1}, []float32{0, 0, -2, -3, 0, 0})
		in[2][0] = 25 // one step past softplus's cut-off
		c := ssmCase{p: p, seqs: seqs, states: in[0], x: in[1], dt: in[2], a: in[3], bm: in[4], c: in[5]}
		checkReference(t, tt.name, c.run, seqs, c.states, p.SlotSize(), func(r int, s kernels.RecurrentSeq, st []float64) []float64 {
			rows := func(v []float32, w int) []float32 { return v[r*w : (r+s.Tokens)*w] }
			return ssmReference(p, st, rows(c.x, p.Heads*p.HeadDim), rows(c.dt, p.Heads), c.a,
				rows(c.bm, p.Groups*p.StateDim), rows(c.c, p.Groups*p.StateDim), s.Tokens)
		})
	}
}

// TestSSMScanSplit checks that a batch gives each sequence the bits it
// gets alone, and that a prompt run in two chunks (the second from the
// state the first left) gives the bits it gets in one.
func TestSSMScanSplit(t *testing.T) {
	p := kernels.SSMScanParams{Heads: 4, HeadDim: 8, StateDim: 128, Groups: 2}
	c := newSSMCase(p, 6, 2, 11)
	c.dt = recInputs(12, []int{len(c.dt)}, []float32{6}, []float32{-2})[0]
	checkChunks(t, c.run, c.states, 2, 6, 32, p.SlotSize(), [][2]int{{0, 4}, {4, 6}}, func(r0, r1 int, st []float32) recRun {
		return ssmCase{p: p, seqs: []kernels.RecurrentSeq{{Slot: 0, Tokens: r1 - r0}}, states: st,
			x: c.x[r0*32 : r1*32], dt: c.dt[r0*4 : r1*4], a: c.a, bm: c.bm[r0*256 : r1*256], c: c.c[r0*256 : r1*256]}.run
	})
}

// TestSSMScanErrors checks that operands that do not fit are refused.
func TestSSMScanErrors(t *testing.T) {
	b := NewReference(1)
	p := kernels.SSMScanParams{Heads: 2, HeadDim: 4, StateDim: 16, Groups: 1}
	mk := func(c, r int) kernels.Tensor { return newF32(t, b, c, r) }
	x, dt, a, bc, st := mk(8, 3), mk(2, 3), mk(1, 2), mk(16, 3), mk(p.SlotSize(), 2)
	one := []kernels.RecurrentSeq{{Slot: 0, Tokens: 3}}
	rs := seqRefusals(func(seqs []kernels.RecurrentSeq) error { return b.SSMScan(mk(8, 3), x, dt, a, bc, bc, st, seqs, p) }, 3, 2)
	rs = append(rs, []refusal{
		{"groups", func() error {
			q := p
			q.Groups = 3
			return b.SSMScan(mk(8, 3), x, dt, a, bc, bc, st, one, q)
		}},
		{"states", func() error { return b.SSMScan(mk(8, 3), x, dt, a, bc, bc, mk(100, 1), one, p) }},
		{"decays", func() error { return b.SSMScan(mk(8, 3), x, dt, mk(3, 1), bc, bc, st, one, p) }},
		{"b", func() error { return b.SSMScan(mk(8, 3), x, dt, a, mk(8, 3), bc, st, one, p) }},
		{"alias", func() error { return b.SSMScan(x, x, dt, a, bc, bc, st, one, p) }},
		{"nil", func() error { return b.SSMScan(mk(8, 3), x, nil, a, bc, bc, st, one, p) }},
		{"biases", func() error {
			q := p
			q.DtBias = []float32{1}
			return b.SSMScan(mk(8, 3), x, dt, a, bc, bc, st, one, q)
		}},
		{"skip weights", func() error {
			q := p
			q.D = []float32{1, 2, 3}
			return b.SSMScan(mk(8, 3), x, dt, a, bc, bc, st, one, q)
		}},
	}...)
	checkRefusals(t, rs, func() error { return b.SSMScan(mk(8, 3), x, dt, a, bc, bc, st, one, p) })
}

// BenchmarkSSMScan runs a Granite-4-sized Mamba-2 layer's scan (48 heads
// of 64, d_state 128, one group) for a decode step and a prompt of 64
// tokens, on the oracle and the newest kernel set (two threads, and one),
// with the CPU time per call, steadier than the wall clock on a shared
// machine.
func BenchmarkSSMScan(b *testing.B) {
	p := kernels.SSMScanParams{Heads: 48, HeadDim: 64, StateDim: 128, Groups: 1}
	for _, tokens := range []int{1, 64} {
		c := newSSMCase(p, tokens, 1, 1)
		for _, be := range []*Backend{NewReference(2), New(2), New(1)} {
			b.Run(fmt.Sprintf("t%d/%s/%dthreads", tokens, be.Kernels(), be.Threads()), func(b *testing.B) {
				n := tokens
				st, _ := be.New(quant.TypeF32, p.SlotSize())
				args := []kernels.Tensor{}
				for _, v := range []struct {
					d    []float32
					c, r int
				}{{c.x, p.Heads * p.HeadDim, n}, {c.dt, p.Heads, n}, {c.a, p.Heads, 1}, {c.bm, p.StateDim, n}, {c.c, p.StateDim, n}} {
					tt, _ := be.New(quant.TypeF32, v.c, v.r)
					_ = be.Write(tt, v.d)
					args = append(args, tt)
				}
				y, _ := be.New(quant.TypeF32, p.Heads*p.HeadDim, n)
				seqs := []kernels.RecurrentSeq{{Slot: 0, Tokens: n}}
				b.SetBytes(int64(4 * p.SlotSize() * tokens))
				cpuTime(b, func() {
					for b.Loop() {
						if err := be.SSMScan(y, args[0], args[1], args[2], args[3], args[4], st, seqs, p); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}
