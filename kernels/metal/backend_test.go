package metal

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
	"saji/kernels/gpu/gputest"
	"saji/kernels/quant"
)

// The backend tests run the operations of kernels.Backend through
// gpu.Backend over a device (the emulator's on linux, the GPU on a Mac) and
// compare them with the CPU backend: the Backend's launches (argument
// lists, grids, host arrays, pooled buffers, mapped or uploaded weights)
// against kernels.metal, end to end.

// backendRig is what the backend tests of one device share: the GPU
// backend and the pure-Go CPU backend, its oracle.
type backendRig struct {
	gputest.Backends
	simd *cpu.Backend // the CPU backend with its SIMD kernels (MatMul)
	rng  *rand.Rand
}

func testBackend(t *testing.T, dev gpu.Device) {
	g, err := gpu.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	})
	r := &backendRig{Backends: gputest.Backends{G: g, C: cpu.NewReference(1)}, simd: cpu.New(1), rng: rand.New(rand.NewPCG(3, 5))}
	t.Run("elementwise", r.elementwise)
	t.Run("rms_norm", r.rmsNorm)
	t.Run("rope", r.rope)
	t.Run("get_rows", r.getRows)
	t.Run("set_rows", r.setRows)
	t.Run("matmul", r.matMul)
	t.Run("attention", r.attention)
	t.Run("recurrent", func(t *testing.T) {
		r.Recurrent(t, r.rng, func(t *testing.T, what string, g, c []float32) {
			// Sums in another order than the CPU's: within 1e-5 of the
			// values' magnitude.
			var ss float64
			for _, v := range c {
				ss += float64(v) * float64(v)
			}
			compare(t, what, g, c, []float64{1e-5 * math.Sqrt(ss/float64(len(c)))}, 1e-5)
		})
	})
}

// random returns n values uniform in [-scale, scale).
func (r *backendRig) random(n int, scale float32) []float32 {
	return gputest.RandFloats(r.rng, n, scale)
}

// both runs op on each backend with its side of the operands.
func both(t *testing.T, r *backendRig, op func(b kernels.Backend, side func(gputest.Pair) kernels.Tensor) error) {
	t.Helper()
	if err := op(r.G, func(p gputest.Pair) kernels.Tensor { return p.G }); err != nil {
		t.Fatal(err)
	}
	if err := op(r.C, func(p gputest.Pair) kernels.Tensor { return p.C }); err != nil {
		t.Fatal(err)
	}
}

func (r *backendRig) elementwise(t *testing.T) {
	const cols, rows = 70, 3
	a, full, bias := r.random(cols*rows, 12), r.random(cols*rows, 3), r.random(cols, 3)
	for _, o := range []struct {
		name string
		rtol float64
		run  func(b kernels.Backend, d, x, bias, full kernels.Tensor) error
	}{
		{"add", 0, func(b kernels.Backend, d, x, _, f kernels.Tensor) error { return b.Add(d, x, f) }},
		{"add bias", 0, func(b kernels.Backend, d, x, bi, _ kernels.Tensor) error { return b.Add(d, x, bi) }},
		{"mul", 0, func(b kernels.Backend, d, x, _, f kernels.Tensor) error { return b.Mul(d, x, f) }},
		{"mul bias", 0, func(b kernels.Backend, d, x, bi, _ kernels.Tensor) error { return b.Mul(d, x, bi) }},
		{"scale", 0, func(b kernels.Backend, d, x, _, _ kernels.Tensor) error { return b.Scale(d, x, -0.37) }},
		{"softcap", 1e-6, func(b kernels.Backend, d, x, _, _ kernels.Tensor) error { return b.Softcap(d, x, 2.5) }},
		{"glu silu", 1e-5, func(b kernels.Backend, d, x, _, f kernels.Tensor) error { return b.GLU(d, x, f, kernels.SiLU) }},
		{"glu gelu", 1.0 / 1024, func(b kernels.Backend, d, x, _, f kernels.Tensor) error { return b.GLU(d, x, f, kernels.GELU) }},
	} {
		for _, inPlace := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/in-place=%v", o.name, inPlace), func(t *testing.T) {
				x, f, bi := r.F32(t, a, cols, rows), r.F32(t, full, cols, rows), r.F32(t, bias, cols)
				dst := x
				if !inPlace {
					dst = r.F32(t, nil, cols, rows)
				}
				both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
					return o.run(b, s(dst), s(x), s(bi), s(f))
				})
				g, c := r.Read(t, dst)
				compare(t, o.name, g, c, []float64{1e-7}, o.rtol)
			})
		}
	}
}

func (r *backendRig) rmsNorm(t *testing.T) {
	for _, c := range []struct {
		name             string
		cols, rows, wlen int
	}{
		{"row weight", 70, 3, 70},
		{"per head", 128, 3, 32},
		{"no weight", 96, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, dst := r.F32(t, r.random(c.cols*c.rows, 4), c.cols, c.rows), r.F32(t, nil, c.cols, c.rows)
			var w *gputest.Pair
			if c.wlen > 0 {
				p := r.F32(t, r.random(c.wlen, 2), c.wlen)
				w = &p
			}
			both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
				var wt kernels.Tensor
				if w != nil {
					wt = s(*w)
				}
				return b.RMSNorm(s(dst), s(x), wt, 1e-5)
			})
			g, cv := r.Read(t, dst)
			compare(t, "rms_norm", g, cv, []float64{1e-6}, 1e-5)
		})
	}
}

func (r *backendRig) rope(t *testing.T) {
	pos := []int32{0, 1, 17, 4095, 131071}
	for _, c := range []struct {
		name    string
		heads   int
		p       kernels.RopeParams
		factors bool
		inPlace bool
	}{
		{"norm", 2, kernels.RopeParams{HeadDim: 64, Dims: 64, Base: 10000}, false, false},
		{"neox in place", 2, kernels.RopeParams{HeadDim: 128, Dims: 128, Base: 1e6, Neox: true}, false, true},
		{"partial scaled", 3, kernels.RopeParams{HeadDim: 80, Dims: 32, Base: 500000, FreqScale: 0.25}, false, false},
		{"factors", 2, kernels.RopeParams{HeadDim: 128, Dims: 128, Base: 500000, Neox: true}, true, false},
		{gputest.RopeCases[0].Name, 2, gputest.RopeCases[0].P, false, false},
		{gputest.RopeCases[1].Name, 2, gputest.RopeCases[1].P, false, true},
		{gputest.RopeCases[2].Name, 3, gputest.RopeCases[2].P, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			if c.factors {
				p.Factors = make([]float32, p.Dims/2)
				for i := range p.Factors {
					p.Factors[i] = 1 + 7*r.rng.Float32()
				}
			}
			cols := c.heads * p.HeadDim
			x := r.F32(t, r.random(cols*len(pos), 2), cols, len(pos))
			dst := x
			if !c.inPlace {
				dst = r.F32(t, nil, cols, len(pos))
			}
			both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
				return b.Rope(s(dst), s(x), gputest.RopePositions(p, pos), p)
			})
			g, cv := r.Read(t, dst)
			compare(t, "rope", g, cv, []float64{2e-5}, 1e-5)
		})
	}
}

func (r *backendRig) getRows(t *testing.T) {
	// Q5_0 has no kernels: the Backend converts it to F16 when it uploads.
	for _, typ := range append(append([]quant.Type(nil), gpu.WeightTypes...), quant.TypeQ5_0) {
		t.Run(typ.String(), func(t *testing.T) {
			cols := weightCols(typ, 512, 70)
			const rows = 5
			table := r.Weight(t, typ, gputest.Quantize(t, typ, r.random(cols*rows, 3)), cols, rows)
			ids := []int32{4, 0, 2, 4, 1}
			dst := r.F32(t, nil, cols, len(ids))
			both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
				return b.GetRows(s(dst), s(table), ids)
			})
			g, c := r.Read(t, dst)
			rtol := 0.0
			if typ == quant.TypeQ5_0 {
				rtol = 1.0 / 2048 // rounded to F16
			}
			compare(t, "get_rows", g, c, []float64{0}, rtol)
		})
	}
}

func (r *backendRig) setRows(t *testing.T) {
	for _, typ := range gpu.CacheTypes {
		t.Run(typ.String(), func(t *testing.T) {
			const cols = 96
			src := r.F32(t, r.random(cols*3, 5), cols, 3)
			dst := r.Typed(t, typ, r.random(cols*7, 1), cols, 7)
			rows := []int32{5, 0, 3}
			both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
				return b.SetRows(s(dst), s(src), rows)
			})
			g, c := r.Read(t, dst)
			atol := 0.0
			if typ == quant.TypeQ8_0 {
				atol = 5.0 / 127 // one quantization step of a block of values up to 5
			}
			compare(t, "set_rows", g, c, []float64{atol}, 0)
		})
	}
}

// matMul checks MatMul (quantize_q8_0 or quantize_q8_k first for the
// quantized types, then mul_mat_vec or mul_mat by the number of tokens)
// against the CPU backend's MatMul, with its SIMD kernels and without.
func (r *backendRig) matMul(t *testing.T) {
	const m = 37
	for _, typ := range gpu.WeightTypes {
		k := weightCols(typ, 256, 100)
		for _, n := range productNs {
			t.Run(fmt.Sprintf("%v/n=%d", typ, n), func(t *testing.T) {
				data := gputest.Quantize(t, typ, r.random(k*m, 1))
				xv := r.random(k*n, 2)
				w, err := r.G.Weight(typ, []int{k, m}, data)
				if err != nil {
					t.Fatal(err)
				}
				x, dst := r.F32(t, xv, k, n), r.F32(t, nil, m, n)
				if err := r.G.MatMul(dst.G, w, x.G); err != nil {
					t.Fatal(err)
				}
				got, _ := r.Read(t, dst)
				for _, o := range []struct {
					name string
					b    *cpu.Backend
				}{{"cpu", r.simd}, {"cpu reference", r.C}} {
					want, atol := matMulCPU(t, o.b, typ, data, xv, k, m, n)
					compare(t, "matmul vs "+o.name, got, want, atol, 0)
				}
			})
		}
	}
}

// attention fills caches with SetRows on both backends and compares
// AttentionSeqs (two sequences: a prefill chunk over scattered cells with
// a window, and one decoding token over a plain cache).
func (r *backendRig) attention(t *testing.T) {
	for _, typ := range gpu.CacheTypes {
		t.Run(typ.String(), func(t *testing.T) {
			const heads, kvHeads, hd, vd, rows = 4, 2, 64, 64, 48
			k := r.Typed(t, typ, nil, kvHeads*hd, rows)
			v := r.Typed(t, typ, nil, kvHeads*vd, rows)
			src := r.F32(t, r.random(rows*kvHeads*hd, 1), kvHeads*hd, rows)
			srcV := r.F32(t, r.random(rows*kvHeads*vd, 1), kvHeads*vd, rows)
			all := make([]int32, rows)
			for i := range all {
				all[i] = int32(i)
			}
			both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
				if err := b.SetRows(s(k), s(src), all); err != nil {
					return err
				}
				return b.SetRows(s(v), s(srcV), all)
			})
			// Sequence 0: 30 cells scattered over the rows, the first 20
			// released (the window of 8 hides them from positions 27..29).
			cells := make([]int32, 30)
			for i, row := range r.rng.Perm(rows)[:30] {
				cells[i] = int32(row)
				if i < 20 {
					cells[i] = -1
				}
			}
			seqs := []kernels.SeqKV{
				{KV: kernels.KV{K: nil, V: nil, Len: 30, Cells: cells}, Pos: []int32{27, 28, 29}},
				{KV: kernels.KV{Len: 11}, Pos: []int32{10}},
			}
			q := r.F32(t, r.random(4*heads*hd, 1), heads*hd, 4)
			dst := r.F32(t, nil, heads*vd, 4)
			p := kernels.AttentionParams{Heads: heads, KVHeads: kvHeads, HeadDim: hd, ValueDim: vd, Scale: 0.125, Window: 8}
			both(t, r, func(b kernels.Backend, s func(gputest.Pair) kernels.Tensor) error {
				ss := append([]kernels.SeqKV(nil), seqs...)
				for i := range ss {
					ss[i].KV.K, ss[i].KV.V = s(k), s(v)
				}
				return b.AttentionSeqs(s(dst), s(q), ss, p)
			})
			g, c := r.Read(t, dst)
			atol := 1e-5
			if typ == quant.TypeF16 {
				atol = 2e-3 // the oracle accumulates in F16, as ggml's flash attention
			}
			compare(t, "attention", g, c, []float64{atol}, 1e-4)
		})
	}
}
