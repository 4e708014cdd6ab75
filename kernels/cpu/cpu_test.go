package cpu

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

func randn(rng *rand.Rand, n int, scale float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * scale)
	}
	return x
}

// f32 wraps host values as an F32 tensor.
func f32(t *testing.T, b *Backend, x []float32, shape ...int) kernels.Tensor {
	t.Helper()
	tt, err := b.New(quant.TypeF32, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(tt, x); err != nil {
		t.Fatal(err)
	}
	return tt
}

func read(t *testing.T, x kernels.Tensor) []float32 {
	t.Helper()
	out := make([]float32, kernels.Cols(x)*kernels.Rows(x))
	if err := x.Backend().Read(x, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func newF32(t *testing.T, b *Backend, shape ...int) kernels.Tensor {
	t.Helper()
	tt, err := b.New(quant.TypeF32, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// weight quantizes w ([k, m]) to typ and wraps it.
func weight(t *testing.T, b *Backend, typ quant.Type, w []float32, k, m int) kernels.Tensor {
	t.Helper()
	data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
	if err := quant.Quantize(typ, w, data); err != nil {
		t.Fatal(err)
	}
	wt, err := b.Weight(typ, []int{k, m}, data)
	if err != nil {
		t.Fatal(err)
	}
	return wt
}

var matmulTypes = []quant.Type{
	quant.TypeF32, quant.TypeF16, quant.TypeBF16, quant.TypeQ4_0, quant.TypeQ4_1, quant.TypeQ5_0,
	quant.TypeQ5_1, quant.TypeQ8_0, quant.TypeQ2_K, quant.TypeQ3_K, quant.TypeQ4_K, quant.TypeQ5_K,
	quant.TypeQ6_K, quant.TypeIQ4_NL, quant.TypeIQ4_XS, quant.TypeMXFP4,
	quant.TypeTQ1_0, quant.TypeTQ2_0,
}

// TestMatMul checks every weight type twice: exactly (within float
// rounding) against float64 products of the dequantized weights with the
// activations as the backend quantizes them, and loosely against the
// unquantized product.
func TestMatMul(t *testing.T) {
	const k, m = 512, 12
	rng := rand.New(rand.NewPCG(7, 8))
	w := randn(rng, k*m, 1/math.Sqrt(k))
	for _, n := range []int{1, 5} {
		x := randn(rng, k*n, 1)
		for _, typ := range matmulTypes {
			t.Run(fmt.Sprintf("%v/n=%d", typ, n), func(t *testing.T) {
				b := New(3)
				wt := weight(t, b, typ, w, k, m)
				dst := newF32(t, b, m, n)
				if err := b.MatMul(dst, wt, f32(t, b, x, k, n)); err != nil {
					t.Fatal(err)
				}
				got := read(t, dst)
				wd := make([]float32, k*m)
				if err := quant.Dequantize(typ, wt.(*tensor).data, wd); err != nil {
					t.Fatal(err)
				}
				xq := activationsAsComputed(typ, x, k, n)
				for j := range n {
					for i := range m {
						var exact, loose, scale float64
						for l := range k {
							exact += float64(wd[i*k+l]) * float64(xq[j*k+l])
							loose += float64(w[i*k+l]) * float64(x[j*k+l])
							scale += math.Abs(float64(w[i*k+l]) * float64(x[j*k+l]))
						}
						g := float64(got[j*m+i])
						if d := math.Abs(g - exact); d > 1e-5*scale+1e-3*scale*sumTermTol(typ) {
							t.Errorf("row %d col %d: %g, exact %g (diff %.2e, scale %.2e)", i, j, g, exact, d, scale)
						}
						if d := math.Abs(g - loose); d > looseTol(typ)*scale {
							t.Errorf("row %d col %d: %g, unquantized %g (diff %.2e, scale %.2e)", i, j, g, loose, d, scale)
						}
					}
				}
			})
		}
	}
}

// activationsAsComputed returns x as the backend feeds it to a dot product
// with typ weights: quantized and dequantized, or rounded.
func activationsAsComputed(typ quant.Type, x []float32, k, n int) []float32 {
	kind, sums, _ := dotKindOf(typ)
	out := make([]float32, len(x))
	switch kind {
	case dotF32:
		copy(out, x)
	case dotF16:
		for i, v := range x {
			out[i] = roundF16(v)
		}
	case dotBF16:
		for i, v := range x {
			out[i] = roundBF16(v)
		}
	case dotQ8:
		q := make([]q8Block, k/32)
		for j := range n {
			quantizeQ8(x[j*k:(j+1)*k], q, sums)
			for bi, blk := range q {
				for l, v := range blk.q {
					out[j*k+32*bi+l] = blk.d * float32(v)
				}
			}
		}
	case dotQ8K:
		q := make([]q8KBlock, k/quant.QK_K)
		for j := range n {
			quantizeQ8K(x[j*k:(j+1)*k], q, (typ == quant.TypeQ4_K || typ == quant.TypeQ2_K) && j < n-n%4)
			for bi, blk := range q {
				for l, v := range blk.q {
					out[j*k+quant.QK_K*bi+l] = blk.d * float32(v)
				}
			}
		}
	}
	return out
}

// sumTermTol is the extra relative error of the types whose dot product
// uses Q8_1's F16-rounded block sums.
func sumTermTol(t quant.Type) float64 {
	if t == quant.TypeQ4_1 || t == quant.TypeQ5_1 {
		return 1
	}
	return 0
}

// looseTol bounds the difference from the unquantized product, relative to
// Σ|w·x|, by the weight format's precision.
func looseTol(t quant.Type) float64 {
	switch t {
	case quant.TypeF32:
		return 1e-6
	case quant.TypeF16:
		return 2e-3
	case quant.TypeBF16:
		return 1e-2
	case quant.TypeQ8_0:
		return 2e-2
	case quant.TypeQ6_K, quant.TypeQ5_0, quant.TypeQ5_1, quant.TypeQ5_K:
		return 6e-2
	case quant.TypeQ2_K, quant.TypeQ3_K:
		return 0.4
	case quant.TypeTQ1_0, quant.TypeTQ2_0: // ternary: most Gaussian weights round to 0
		return 0.5
	}
	return 0.12
}

func TestGetRows(t *testing.T) {
	const k, m = 256, 6
	rng := rand.New(rand.NewPCG(1, 1))
	w := randn(rng, k*m, 1)
	for _, typ := range matmulTypes {
		b := New(2)
		wt := weight(t, b, typ, w, k, m)
		dst := newF32(t, b, k, 3)
		ids := []int32{5, 0, 5}
		if err := b.GetRows(dst, wt, ids); err != nil {
			t.Fatal(err)
		}
		all := make([]float32, k*m)
		if err := quant.Dequantize(typ, wt.(*tensor).data, all); err != nil {
			t.Fatal(err)
		}
		got := read(t, dst)
		for r, id := range ids {
			for i := range k {
				if got[r*k+i] != all[int(id)*k+i] {
					t.Fatalf("%v: row %d element %d: %g, want %g", typ, r, i, got[r*k+i], all[int(id)*k+i])
				}
			}
		}
		if err := b.GetRows(dst, wt, []int32{0, 1, 6}); err == nil {
			t.Errorf("%v: out-of-range row accepted", typ)
		}
	}
}

func TestSetRows(t *testing.T) {
	b := New(1)
	for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16} {
		cache, err := b.New(typ, 4, 3)
		if err != nil {
			t.Fatal(err)
		}
		src := f32(t, b, []float32{1, 2, 3, 4, 0.1, 0.2, 0.3, 0.4}, 4, 2)
		if err := b.SetRows(cache, src, []int32{2, 0}); err != nil {
			t.Fatal(err)
		}
		got := read(t, cache)
		want := []float32{0.1, 0.2, 0.3, 0.4, 0, 0, 0, 0, 1, 2, 3, 4}
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-3 {
				t.Errorf("%v: element %d = %g, want %g", typ, i, got[i], want[i])
			}
		}
		if err := b.SetRows(cache, src, []int32{3, 0}); err == nil {
			t.Errorf("%v: out-of-range row accepted", typ)
		}
	}
}

// TestSetRowsConverts checks SetRows against quant.Quantize row by row,
// bytes for bytes, for every cache type: a prompt's rows in order (split
// over the threads, F16 through the set's narrowing kernel), rows in order
// with gaps, and rows out of order that name one row twice, where the
// last source row wins.
func TestSetRowsConverts(t *testing.T) {
	const cols, cells = 256, 300
	rng := rand.New(rand.NewPCG(91, 92))
	src := randn(rng, 160*cols, 3)
	for i, v := range []float32{65520, -1e6, 3e-8, -6e-6, 0, float32(math.Copysign(0, -1)), float32(math.Inf(1))} {
		src[17*i+5] = v
	}
	prompt := make([]int32, 160)
	for i := range prompt {
		prompt[i] = int32(100 + i)
	}
	tests := []struct {
		name string
		rows []int32
	}{
		{"prompt", prompt},
		{"gaps", []int32{0, 2, 9, 40, 41, 299}},
		{"repeated", []int32{7, 3, 7, 1}},
	}
	for _, threads := range []int{1, 3} {
		b := New(threads)
		for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0} {
			for _, tc := range tests {
				t.Run(fmt.Sprintf("t%d/%v/%s", threads, typ, tc.name), func(t *testing.T) {
					cache, err := b.New(typ, cols, cells)
					if err != nil {
						t.Fatal(err)
					}
					n := len(tc.rows)
					if err := b.SetRows(cache, f32(t, b, src[:n*cols], cols, n), tc.rows); err != nil {
						t.Fatal(err)
					}
					rowBytes := len(cache.(*tensor).row(0))
					want := make([][]byte, cells)
					for r, row := range tc.rows {
						want[row] = make([]byte, rowBytes)
						if err := quant.Quantize(typ, src[r*cols:(r+1)*cols], want[row]); err != nil {
							t.Fatal(err)
						}
					}
					for row := range int32(cells) {
						got, err := b.RowBytes(cache, []int32{row}, nil)
						if err != nil {
							t.Fatal(err)
						}
						w := want[row]
						if w == nil {
							w = make([]byte, rowBytes)
						}
						if !bytes.Equal(got, w) {
							t.Fatalf("row %d differs from quant.Quantize", row)
						}
					}
				})
			}
		}
	}
}

func TestElementwise(t *testing.T) {
	b := New(2)
	a := []float32{1, -2, 3, 4, 5, -6}
	bias := []float32{0.5, 1, -1}
	full := []float32{2, 2, 2, 3, 3, 3}
	tests := []struct {
		name string
		run  func(dst kernels.Tensor) error
		want func(i int) float64
	}{
		{"add broadcast", func(d kernels.Tensor) error { return b.Add(d, f32(t, b, a, 3, 2), f32(t, b, bias, 3)) },
			func(i int) float64 { return float64(a[i] + bias[i%3]) }},
		{"add", func(d kernels.Tensor) error { return b.Add(d, f32(t, b, a, 3, 2), f32(t, b, full, 3, 2)) },
			func(i int) float64 { return float64(a[i] + full[i]) }},
		{"mul broadcast", func(d kernels.Tensor) error { return b.Mul(d, f32(t, b, a, 3, 2), f32(t, b, bias, 3)) },
			func(i int) float64 { return float64(a[i] * bias[i%3]) }},
		{"scale", func(d kernels.Tensor) error { return b.Scale(d, f32(t, b, a, 3, 2), 0.25) },
			func(i int) float64 { return float64(a[i]) * 0.25 }},
		{"softcap", func(d kernels.Tensor) error { return b.Softcap(d, f32(t, b, a, 3, 2), 2) },
			func(i int) float64 { return 2 * math.Tanh(float64(a[i])/2) }},
	}
	for _, tt := range tests {
		d := newF32(t, b, 3, 2)
		if err := tt.run(d); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i, v := range read(t, d) {
			if math.Abs(float64(v)-tt.want(i)) > 1e-6 {
				t.Errorf("%s: element %d = %g, want %g", tt.name, i, v, tt.want(i))
			}
		}
	}
}

func TestRMSNorm(t *testing.T) {
	b := New(2)
	rng := rand.New(rand.NewPCG(3, 3))
	x := randn(rng, 64*3, 2)
	for _, group := range []int{64, 16} {
		w := randn(rng, group, 1)
		d := newF32(t, b, 64, 3)
		if err := b.RMSNorm(d, f32(t, b, x, 64, 3), f32(t, b, w, group), 1e-5); err != nil {
			t.Fatal(err)
		}
		got := read(t, d)
		for g := 0; g < len(x); g += group {
			var ss float64
			for _, v := range x[g : g+group] {
				ss += float64(v) * float64(v)
			}
			s := 1 / math.Sqrt(ss/float64(group)+1e-5)
			for i := range group {
				want := float64(x[g+i]) * s * float64(w[i])
				if math.Abs(float64(got[g+i])-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("group %d: element %d = %g, want %g", group, g+i, got[g+i], want)
				}
			}
		}
	}
}

func TestRope(t *testing.T) {
	b := New(2)
	rng := rand.New(rand.NewPCG(4, 4))
	const hd, heads = 16, 3
	pos := []int32{0, 1, 7, 93}
	x := randn(rng, hd*heads*len(pos), 1)
	factors := []float32{1, 1, 2, 4, 8, 16}
	for _, p := range []kernels.RopeParams{
		{HeadDim: hd, Dims: hd, Base: 10000},
		{HeadDim: hd, Dims: hd, Base: 1e6, Neox: true},
		{HeadDim: hd, Dims: 12, Base: 500000, Factors: factors, Neox: true},
		{HeadDim: hd, Dims: 8, Base: 10000, FreqScale: 0.25},
		// YaRN as gpt-oss configures it (factor 32), in both layouts, and
		// a partial one with its own betas and an attention factor.
		{HeadDim: hd, Dims: hd, Base: 150000, FreqScale: 1.0 / 32, Neox: true,
			YaRN: kernels.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 4096}},
		{HeadDim: hd, Dims: hd, Base: 10000, FreqScale: 0.25,
			YaRN: kernels.YaRN{ExtFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 64}},
		{HeadDim: hd, Dims: 12, Base: 1e6, FreqScale: 0.5, Factors: factors, Neox: true,
			YaRN: kernels.YaRN{ExtFactor: 0.5, AttnFactor: 0.9, BetaFast: 16, BetaSlow: 2, OrigContext: 8192}},
	} {
		d := newF32(t, b, hd*heads, len(pos))
		if err := b.Rope(d, f32(t, b, x, hd*heads, len(pos)), pos, p); err != nil {
			t.Fatal(err)
		}
		got := read(t, d)
		scale := float64(p.FreqScale)
		if scale == 0 {
			scale = 1
		}
		for j, ps := range pos {
			for h := range heads {
				off := j*hd*heads + h*hd
				want := make([]float64, hd)
				for i := range want {
					want[i] = float64(x[off+i])
				}
				for i := 0; i < p.Dims/2; i++ {
					extrap := float64(ps) * math.Pow(float64(p.Base), -2*float64(i)/float64(p.Dims))
					if p.Factors != nil {
						extrap /= float64(p.Factors[i])
					}
					theta, mscale := yarnRef(p, i, extrap, scale)
					i0, i1 := 2*i, 2*i+1
					if p.Neox {
						i0, i1 = i, i+p.Dims/2
					}
					a, c := float64(x[off+i0]), float64(x[off+i1])
					want[i0] = (a*math.Cos(theta) - c*math.Sin(theta)) * mscale
					want[i1] = (a*math.Sin(theta) + c*math.Cos(theta)) * mscale
				}
				for i, w := range want {
					if math.Abs(float64(got[off+i])-w) > 2e-5 {
						t.Fatalf("%+v pos %d head %d elem %d: %g, want %g", p, ps, h, i, got[off+i], w)
					}
				}
			}
		}
	}
}

// yarnRef is YaRN's angle of pair i and the magnitude of its rotation in
// float64 (the formula of the YaRN paper as ggml's rope_yarn writes it):
// the interpolated angle scale·θ mixed with the extrapolated θ by the ramp
// between the correction dims, and the magnitude AttnFactor·(1+0.1·ln(1/scale)).
func yarnRef(p kernels.RopeParams, i int, extrap, scale float64) (theta, mscale float64) {
	y := p.YaRN
	mscale = 1
	if y.AttnFactor != 0 {
		mscale = float64(y.AttnFactor)
	}
	if y.ExtFactor == 0 {
		return extrap * scale, mscale
	}
	corr := func(rot float64) float64 {
		return float64(p.Dims) * math.Log(float64(y.OrigContext)/(rot*2*math.Pi)) / (2 * math.Log(float64(p.Base)))
	}
	low := math.Max(0, math.Floor(corr(float64(y.BetaFast))))
	high := math.Min(float64(p.Dims-1), math.Ceil(corr(float64(y.BetaSlow))))
	ramp := 1 - math.Min(1, math.Max(0, (float64(i)-low)/math.Max(0.001, high-low)))
	mix := ramp * float64(y.ExtFactor)
	return extrap*scale*(1-mix) + extrap*mix, mscale * (1 + 0.1*math.Log(1/scale))
}

func TestGLU(t *testing.T) {
	b := New(2)
	rng := rand.New(rand.NewPCG(5, 5))
	const n = 40 // not a multiple of 16: both the vector and the tail paths
	g := randn(rng, 2*n, 4)
	g[3], g[4] = -12, 11 // GELU's clamps
	u := randn(rng, 2*n, 1)
	g[5], u[6], u[7] = 9, -8, 7.5 // SwiGLUOAI's clamps
	for _, act := range []kernels.Activation{kernels.SiLU, kernels.GELU, kernels.SwiGLUOAI, kernels.ReLU} {
		d := newF32(t, b, n, 2)
		if err := b.GLU(d, f32(t, b, g, n, 2), f32(t, b, u, n, 2), act); err != nil {
			t.Fatal(err)
		}
		for i, v := range read(t, d) {
			x := float64(g[i])
			var want, tol float64
			switch act {
			case kernels.SiLU:
				want, tol = x/(1+math.Exp(-x))*float64(u[i]), 1e-6
			case kernels.SwiGLUOAI:
				gc, uc := math.Min(x, 7), math.Max(-7, math.Min(float64(u[i]), 7))
				want, tol = gc/(1+math.Exp(-1.702*gc))*(uc+1), 1e-6
			case kernels.ReLU:
				want = float64(g[i] * u[i])
				if g[i] <= 0 {
					want = 0
					if math.Signbit(float64(v)) {
						t.Errorf("relu element %d (x=%g): -0, want +0", i, x)
					}
				}
			default:
				want = 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*x*(1+0.044715*x*x))) * float64(u[i])
				tol = 2e-3 // F16 table
			}
			if math.Abs(float64(v)-want) > tol*(1+math.Abs(want)) {
				t.Errorf("act %d element %d (x=%g): %g, want %g", act, i, x, v, want)
			}
		}
	}
}

// TestGeluTable checks geluF16's table against its definition, GELU's
// tanh form at the input rounded to F16, rounded to F16: bit for bit at
// every F16 value and at random float32 inputs between the clamps.
func TestGeluTable(t *testing.T) {
	def := func(x float32) float32 {
		switch {
		case x <= -10:
			return 0
		case x >= 10:
			return x
		}
		return roundF16(geluTanh(roundF16(x)))
	}
	same := func(a, b float32) bool {
		return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
	}
	for h := range 1 << 16 {
		x := quant.F16ToF32(uint16(h))
		if got, want := geluF16(x), def(x); !same(got, want) {
			t.Fatalf("geluF16(%g = F16 %#04x) = %g, want %g", x, h, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 100000 {
		x := float32(rng.Float64()*20 - 10)
		if got, want := geluF16(x), def(x); !same(got, want) {
			t.Fatalf("geluF16(%g) = %g, want %g", x, got, want)
		}
	}
}

func TestExpV(t *testing.T) {
	for x := float32(-100); x < 88; x += 0.0137 {
		got, want := float64(expV(x)), math.Exp(float64(x))
		if math.Abs(got-want) > 3*ulp32(float32(want)) {
			t.Fatalf("expV(%g) = %g, want %g", x, got, want)
		}
	}
	if expV(float32(math.Inf(-1))) != 0 || !math.IsInf(float64(expV(200)), 1) {
		t.Error("expV limits")
	}
}

func ulp32(x float32) float64 {
	return float64(math.Nextafter32(x, float32(math.Inf(1))) - x)
}

// attentionRef is causal attention in float64 over an F32 cache whose
// logical cell c is row rows[c], with p's sinks in the softmax's
// denominator.
func attentionRef(q, k, v []float32, rows []int, pos []int32, p kernels.AttentionParams) []float64 {
	nh, hd, vd := p.Heads, p.HeadDim, p.ValueDim
	kvw, vw := p.KVHeads*hd, p.KVHeads*vd
	out := make([]float64, len(pos)*nh*vd)
	for j, ps := range pos {
		for h := range nh {
			kh := h / (nh / p.KVHeads)
			var cells []int
			for c := 0; c <= int(ps) && c < len(rows); c++ {
				if p.Window == 0 || int(ps)-c < p.Window {
					cells = append(cells, c)
				}
			}
			s := make([]float64, len(cells))
			mx := math.Inf(-1)
			for i, c := range cells {
				for d := range hd {
					s[i] += float64(q[j*nh*hd+h*hd+d]) * float64(k[rows[c]*kvw+kh*hd+d])
				}
				if p.Softcap > 0 {
					s[i] = float64(p.Softcap) * math.Tanh(s[i]/float64(p.Softcap))
				}
				s[i] *= float64(p.Scale)
				mx = math.Max(mx, s[i])
			}
			var sum float64
			if p.Sinks != nil {
				mx = math.Max(mx, float64(p.Sinks[h]))
				sum = math.Exp(float64(p.Sinks[h]) - mx)
			}
			for i := range s {
				s[i] = math.Exp(s[i] - mx)
				sum += s[i]
			}
			for i, c := range cells {
				for d := range vd {
					out[j*nh*vd+h*vd+d] += s[i] / sum * float64(v[rows[c]*vw+kh*vd+d])
				}
			}
		}
	}
	return out
}

func TestAttention(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, tc := range []struct {
		name  string
		p     kernels.AttentionParams
		typ   quant.Type
		pos   []int32
		perm  bool
		tol   float64
		batch int
	}{
		{"gqa batch", kernels.AttentionParams{Heads: 4, KVHeads: 2, HeadDim: 16, ValueDim: 16, Scale: 0.25}, quant.TypeF32, []int32{0, 1, 2, 3, 4, 5, 6, 7}, false, 1e-5, 0},
		{"one token", kernels.AttentionParams{Heads: 2, KVHeads: 1, HeadDim: 64, ValueDim: 32, Scale: 0.125}, quant.TypeF32, []int32{19}, false, 1e-5, 0},
		{"window softcap", kernels.AttentionParams{Heads: 2, KVHeads: 2, HeadDim: 8, ValueDim: 8, Scale: 0.3, Window: 4, Softcap: 5}, quant.TypeF32, []int32{10, 11, 12}, false, 1e-5, 0},
		{"paged cells", kernels.AttentionParams{Heads: 2, KVHeads: 1, HeadDim: 16, ValueDim: 16, Scale: 0.25}, quant.TypeF32, []int32{17, 18}, true, 1e-5, 0},
		{"f16 cache", kernels.AttentionParams{Heads: 2, KVHeads: 1, HeadDim: 16, ValueDim: 16, Scale: 0.25}, quant.TypeF16, []int32{5, 6}, false, 3e-3, 0},
		{"sinks gqa batch", kernels.AttentionParams{Heads: 4, KVHeads: 2, HeadDim: 16, ValueDim: 16, Scale: 0.25, Sinks: []float32{-1, 0.5, 3, 9}}, quant.TypeF32, []int32{0, 1, 2, 3, 4, 5, 6, 7}, false, 1e-5, 0},
		{"sinks one token", kernels.AttentionParams{Heads: 2, KVHeads: 1, HeadDim: 64, ValueDim: 32, Scale: 0.125, Sinks: []float32{2, -20}}, quant.TypeF32, []int32{19}, false, 1e-5, 0},
		{"sinks window paged", kernels.AttentionParams{Heads: 2, KVHeads: 2, HeadDim: 8, ValueDim: 8, Scale: 0.3, Window: 4, Sinks: []float32{0, 4}}, quant.TypeF32, []int32{10, 11, 12}, true, 1e-5, 0},
		{"sinks f16 cache", kernels.AttentionParams{Heads: 2, KVHeads: 1, HeadDim: 16, ValueDim: 16, Scale: 0.25, Sinks: []float32{1, 5}}, quant.TypeF16, []int32{0, 5, 6}, false, 3e-3, 0},
	} {
		for _, be := range []struct {
			name string
			b    *Backend
		}{{"simd", New(3)}, {"oracle", NewReference(3)}} {
			t.Run(tc.name+"/"+be.name, func(t *testing.T) {
				testAttention(t, be.b, rng, tc.p, tc.typ, tc.pos, tc.perm, tc.tol)
			})
		}
	}
}

// testAttention checks b's attention of random queries at positions pos
// over a random cache of typ (its cells reversed when perm) against
// attentionRef, to tol.
func testAttention(t *testing.T, b *Backend, rng *rand.Rand, p kernels.AttentionParams, typ quant.Type, pos []int32, perm bool, tol float64) {
	const cells = 20
	kv := randn(rng, cells*p.KVHeads*p.HeadDim, 1)
	vv := randn(rng, cells*p.KVHeads*p.ValueDim, 1)
	q := randn(rng, len(pos)*p.Heads*p.HeadDim, 1)
	rows := make([]int, cells)
	var cellMap []int32
	for i := range rows {
		rows[i] = i
		if perm {
			rows[i] = cells - 1 - i
			cellMap = append(cellMap, int32(rows[i]))
		}
	}
	kt, _ := b.New(typ, p.KVHeads*p.HeadDim, cells)
	vt, _ := b.New(typ, p.KVHeads*p.ValueDim, cells)
	if err := b.Write(kt, kv); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(vt, vv); err != nil {
		t.Fatal(err)
	}
	d := newF32(t, b, p.Heads*p.ValueDim, len(pos))
	view := kernels.KV{K: kt, V: vt, Len: cells, Cells: cellMap}
	if err := b.Attention(d, f32(t, b, q, p.Heads*p.HeadDim, len(pos)), view, pos, p); err != nil {
		t.Fatal(err)
	}
	want := attentionRef(q, kv, vv, rows, pos, p)
	var worst float64
	for i, v := range read(t, d) {
		worst = max(worst, math.Abs(float64(v)-want[i]))
		if math.Abs(float64(v)-want[i]) > tol {
			t.Fatalf("element %d: %g, want %g", i, v, want[i])
		}
	}
	t.Logf("max |diff| from the float64 reference: %.2e", worst)
}

// TestThreadsDeterministic checks that the thread count does not change
// any result.
func TestThreadsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const k, m, n = 256, 40, 7
	w := randn(rng, k*m, 0.1)
	x := randn(rng, k*n, 1)
	var first []float32
	for _, threads := range []int{1, 2, 5} {
		b := New(threads)
		d := newF32(t, b, m, n)
		if err := b.MatMul(d, weight(t, b, quant.TypeQ4_K, w, k, m), f32(t, b, x, k, n)); err != nil {
			t.Fatal(err)
		}
		got := read(t, d)
		if first == nil {
			first = got
			continue
		}
		for i := range got {
			if got[i] != first[i] {
				t.Fatalf("threads %d: element %d = %g, with 1 thread %g", threads, i, got[i], first[i])
			}
		}
	}
}

func TestErrors(t *testing.T) {
	b, other := New(1), New(1)
	x := newF32(t, b, 8, 2)
	w, _ := b.New(quant.TypeF32, 8, 4)
	bad := []struct {
		name string
		err  error
	}{
		{"matmul shape", b.MatMul(newF32(t, b, 3, 2), w, x)},
		{"matmul alias", b.MatMul(x, newF32(t, b, 8, 8), x)},
		{"matmul other backend", b.MatMul(newF32(t, b, 4, 2), w, newF32(t, other, 8, 2))},
		{"add shape", b.Add(x, x, newF32(t, b, 4, 1))},
		{"rms group", b.RMSNorm(x, x, newF32(t, b, 3), 1e-5)},
		{"rope dims", b.Rope(x, x, []int32{0, 1}, kernels.RopeParams{HeadDim: 8, Dims: 10})},
		{"rope positions", b.Rope(x, x, []int32{0}, kernels.RopeParams{HeadDim: 8, Dims: 8})},
		{"glu shape", b.GLU(x, x, newF32(t, b, 8, 1), kernels.SiLU)},
		{"softcap zero", b.Softcap(x, x, 0)},
		{"attention heads", b.Attention(newF32(t, b, 8, 2), x, kernels.KV{K: w, V: w, Len: 4}, []int32{0, 1},
			kernels.AttentionParams{Heads: 3, KVHeads: 2, HeadDim: 8, ValueDim: 8})},
		{"attention len", b.Attention(newF32(t, b, 8, 2), x, kernels.KV{K: w, V: w, Len: 5}, []int32{0, 1},
			kernels.AttentionParams{Heads: 1, KVHeads: 1, HeadDim: 8, ValueDim: 8})},
		{"write size", b.Write(x, make([]float32, 3))},
	}
	for _, tc := range bad {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if err := b.MatMul(newF32(t, b, 3, 2), w, x); !errors.Is(err, kernels.ErrShape) {
		t.Errorf("shape error does not wrap ErrShape: %v", err)
	}
	if _, err := b.Weight(quant.TypeQ4_0, []int{33, 1}, make([]byte, 18)); err == nil {
		t.Error("Weight: row length not a multiple of the block accepted")
	}
	if _, err := b.Weight(quant.TypeQ4_0, []int{32, 2}, make([]byte, 18)); err == nil {
		t.Error("Weight: short data accepted")
	}
	if _, err := b.New(quant.TypeQ4_0, 32); err == nil {
		t.Error("New: Q4_0 accepted")
	}
}

func TestMove(t *testing.T) {
	a, b := New(1), New(2)
	x := f32(t, a, []float32{1, 2, 3, 4}, 2, 2)
	if y, err := kernels.Move(a, x); err != nil || y != x {
		t.Fatalf("same backend: %v, %v", y, err)
	}
	y, err := kernels.Move(b, x)
	if err != nil {
		t.Fatal(err)
	}
	if y.Backend() != kernels.Backend(b) {
		t.Fatal("moved tensor is not on the target backend")
	}
	got := read(t, y)
	for i, v := range []float32{1, 2, 3, 4} {
		if got[i] != v {
			t.Fatalf("element %d = %g", i, got[i])
		}
	}
}

// skipUnderRace skips a test of kernel arithmetic that starts no
// goroutine (kernels called directly, no thread pool) when the race
// detector is on: it has nothing to check there, and those tests took
// about a third of the package's time in CI's race step.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("cpu: single-threaded kernel arithmetic, nothing for the race detector to check")
	}
}

// TestRopeSections checks the rope with several positions per row
// (M-RoPE) against its formula in float64: Qwen2-VL's language model
// (sections in order over NeoX halves, some dims passing through),
// Qwen3-VL's interleaved sections, and Qwen2-VL's encoder (vision mode:
// whole heads, each section's angles from its own position).
func TestRopeSections(t *testing.T) {
	b := New(2)
	rng := rand.New(rand.NewPCG(5, 5))
	const hd, heads = 16, 2
	// Four positions per row: time, height, width, extra.
	pos := [][4]int32{{0, 0, 0, 0}, {5, 7, 9, 0}, {12, 13, 19, 3}, {40, 40, 40, 40}}
	rows := len(pos)
	flat := make([]int32, 4*rows)
	for j, p := range pos {
		for k := range 4 {
			flat[j+k*rows] = p[k]
		}
	}
	x := randn(rng, hd*heads*rows, 1)
	for _, tc := range []struct {
		p kernels.RopeParams
		// sec is the section of each pair (time 0, height 1, width 2,
		// extra 3) and exp its angle's exponent.
		sec, exp []int
	}{
		{kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 1e6, Neox: true, Sections: [4]int{2, 3, 3, 0}},
			[]int{0, 0, 1, 1, 1, 2, 2, 2}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{kernels.RopeParams{HeadDim: hd, Dims: 12, Base: 10000, Neox: true, Sections: [4]int{1, 2, 2, 1}},
			[]int{0, 1, 1, 2, 2, 3}, []int{0, 1, 2, 3, 4, 5}},
		{kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 5e6, Neox: true, Sections: [4]int{3, 2, 2, 0}, Interleaved: true},
			[]int{0, 1, 2, 0, 1, 2, 0, 0}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{kernels.RopeParams{HeadDim: hd, Dims: hd / 2, Base: 10000, Sections: [4]int{4, 4, 4, 4}, Vision: true},
			[]int{0, 0, 0, 0, 1, 1, 1, 1}, []int{0, 1, 2, 3, 0, 1, 2, 3}},
	} {
		p := tc.p
		d := newF32(t, b, hd*heads, rows)
		if err := b.Rope(d, f32(t, b, x, hd*heads, rows), flat, p); err != nil {
			t.Fatal(err)
		}
		got := read(t, d)
		half := p.Dims / 2
		if p.Vision {
			half = p.Dims
		}
		for j := range rows {
			for h := range heads {
				off := j*hd*heads + h*hd
				want := make([]float64, hd)
				for i := range want {
					want[i] = float64(x[off+i])
				}
				for i := range tc.sec {
					if s := p.Section(i); s != tc.sec[i] {
						t.Fatalf("%+v: pair %d in section %d, want %d", p, i, s, tc.sec[i])
					}
					theta := float64(pos[j][tc.sec[i]]) * math.Pow(float64(p.Base), -2*float64(tc.exp[i])/float64(p.Dims))
					i0, i1 := i, i+half
					a, c := float64(x[off+i0]), float64(x[off+i1])
					want[i0] = a*math.Cos(theta) - c*math.Sin(theta)
					want[i1] = a*math.Sin(theta) + c*math.Cos(theta)
				}
				for i, w := range want {
					if math.Abs(float64(got[off+i])-w) > 2e-5 {
						t.Fatalf("%+v row %d head %d elem %d: %g, want %g", p, j, h, i, got[off+i], w)
					}
				}
			}
		}
	}
	// A rope with sections reads four positions a row, and its sections
	// must turn NeoX halves (or whole heads in the vision mode).
	x2 := f32(t, b, x, hd*heads, rows)
	for _, bad := range []struct {
		p   kernels.RopeParams
		pos []int32
	}{
		{kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 1e4, Neox: true, Sections: [4]int{2, 3, 3, 0}}, flat[:rows]},
		{kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 1e4, Sections: [4]int{2, 3, 3, 0}}, flat},
		{kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 1e4, Sections: [4]int{4, 4, 4, 4}, Vision: true}, flat},
		{kernels.RopeParams{HeadDim: hd, Dims: hd, Base: 1e4, Neox: true, Interleaved: true}, flat[:rows]},
	} {
		if err := b.Rope(x2, x2, bad.pos, bad.p); err == nil {
			t.Errorf("%+v with %d positions: no error", bad.p, len(bad.pos))
		}
	}
}

// TestParallelGuided checks that parallelGuided hands every index of
// [0, n) to exactly one part, in parts that do not grow, on pools of
// several sizes, including work too small to split.
func TestParallelGuided(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 8} {
		b := New(threads)
		for _, n := range []int{0, 1, 3, 7, 16, 128, 1000} {
			seen := make([]int, n)
			sizes := partSizes(b.parallelGuided, n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("threads %d, n %d: index %d taken %d times", threads, n, i, c)
				}
			}
			prev := n
			for lo := 0; lo < n; lo += sizes[lo] {
				if sizes[lo] > prev {
					t.Errorf("threads %d, n %d: part at %d has %d, more than the %d before it", threads, n, lo, sizes[lo], prev)
				}
				prev = sizes[lo]
			}
		}
	}
}

// TestProductSplit checks that products of several activation rows split
// their weight rows in shrinking parts and decode in equal ones.
func TestProductSplit(t *testing.T) {
	b := New(2)
	for _, n := range []int{1, guidedRows - 1, guidedRows, 16, 128} {
		sizes := slices.Collect(maps.Values(partSizes(b.productSplit(n), 128, func(int, int) {})))
		lo, hi := slices.Min(sizes), slices.Max(sizes)
		if guided := n >= guidedRows; guided != (hi > lo) {
			t.Errorf("%d activation rows: parts of %d to %d weight rows, want shrinking parts %v", n, lo, hi, guided)
		}
	}
}

// partSizes runs split over [0, n), calling fn for each part under a lock,
// and returns each part's size by its start.
func partSizes(split func(int, func(lo, hi int)), n int, fn func(lo, hi int)) map[int]int {
	var mu sync.Mutex
	sizes := map[int]int{}
	split(n, func(lo, hi int) {
		mu.Lock()
		defer mu.Unlock()
		sizes[lo] = hi - lo
		fn(lo, hi)
	})
	return sizes
}
