//go:build linux

package cuda

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/cuda/emu"
	"saji/kernels/gpu"
	"saji/kernels/gpu/gputest"
	"saji/kernels/quant"
)

// The tests of this file run every kernel of kernels.cu through the GPU
// backend against the CPU backend (the oracle), on every CUDA device there
// is: the emulator, and the machine's GPU where it has one (devices).
// Where the CPU rounds differently on purpose (flash attention over F16
// caches), they compare with a float64 reference of the same operation.

// openDevice opens the device of the CUDA driver library path ("" for the
// installed driver's), for emu.Backends.
func openDevice(path string) (gpu.Device, error) {
	d, err := Open(Options{Library: path})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// backends is the pair of backends a test compares.
type backends struct {
	gputest.Backends
	// emulated is set on the emulator, which rounds every product and sum
	// on its own; the GPU may fuse a product into an addition (emu.Flags),
	// which moves some results by an ulp.
	emulated bool
}

// devices runs fn as a subtest on the emulator ("emulator") and on the
// machine's GPU ("cuda:0"; skipped where there is none, failed where
// SAJI_CUDA_REQUIRE=1), each with a CPU backend to compare with.
func devices(t *testing.T, fn func(t *testing.T, bs backends)) {
	t.Helper()
	emu.Backends(t, openDevice, func(t *testing.T, tg emu.Target) {
		fn(t, backends{Backends: gputest.Backends{G: tg.Backend, C: cpu.New(1)}, emulated: tg.Emulated()})
	})
}

// exact is 0 on the emulator, where a kernel computes the CPU's float
// operations bit for bit, and tol on a GPU, which may fuse some of them.
func (bs backends) exact(tol float64) float64 {
	if bs.emulated {
		return 0
	}
	return tol
}

// rms is the root mean square of v (at least tiny, to divide by).
func rms(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return max(math.Sqrt(s/float64(max(len(v), 1))), 1e-30)
}

// compare fails t where got differs from want by more than tol relative
// to |want| plus the typical magnitude of want (its RMS), so that values
// near zero are held to the scale of their neighbours.
func compare(t testing.TB, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale := rms(want)
	worst, at := 0.0, -1
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsNaN(g) != math.IsNaN(w) {
			t.Fatalf("%s: value %d is %v, want %v", what, i, g, w)
		}
		e := math.Abs(g-w) / (math.Abs(w) + scale)
		if e > worst {
			worst, at = e, i
		}
	}
	if worst > tol {
		t.Errorf("%s: value %d is %v, want %v (relative error %.2e > %.0e)", what, at, got[at], want[at], worst, tol)
	} else {
		t.Logf("%s: largest relative error %.2e (tolerance %.0e)", what, worst, tol)
	}
}

func TestBackendElementwise(t *testing.T) {
	type op struct {
		name string
		tol  float64 // on the emulator; on a GPU at least 1e-6
		run  func(b kernels.Backend, dst, a, bias, full kernels.Tensor) error
	}
	ops := []op{
		{"add", 0, func(b kernels.Backend, d, a, _, f kernels.Tensor) error { return b.Add(d, a, f) }},
		{"add bias", 0, func(b kernels.Backend, d, a, bias, _ kernels.Tensor) error { return b.Add(d, a, bias) }},
		{"mul", 0, func(b kernels.Backend, d, a, _, f kernels.Tensor) error { return b.Mul(d, a, f) }},
		{"mul bias", 0, func(b kernels.Backend, d, a, bias, _ kernels.Tensor) error { return b.Mul(d, a, bias) }},
		{"scale", 0, func(b kernels.Backend, d, a, _, _ kernels.Tensor) error { return b.Scale(d, a, -0.37) }},
		{"softcap", 1e-6, func(b kernels.Backend, d, a, _, _ kernels.Tensor) error { return b.Softcap(d, a, 2.5) }},
		{"glu silu", 1e-6, func(b kernels.Backend, d, a, _, f kernels.Tensor) error { return b.GLU(d, a, f, kernels.SiLU) }},
		// GELU's result is rounded to F16: a last-bit difference of tanh
		// may round it one F16 step (2^-11) the other way.
		{"glu gelu", 1e-3, func(b kernels.Backend, d, a, _, f kernels.Tensor) error { return b.GLU(d, a, f, kernels.GELU) }},
		{"glu swiglu_oai", 1e-6, func(b kernels.Backend, d, a, _, f kernels.Tensor) error { return b.GLU(d, a, f, kernels.SwiGLUOAI) }},
		{"glu relu", 0, func(b kernels.Backend, d, a, _, f kernels.Tensor) error { return b.GLU(d, a, f, kernels.ReLU) }},
		{"glu relu squared", 0, func(b kernels.Backend, d, a, _, _ kernels.Tensor) error { return b.GLU(d, a, a, kernels.ReLU) }},
	}
	devices(t, func(t *testing.T, bs backends) {
		r := rand.New(rand.NewPCG(1, 2))
		const cols, rows = 70, 3 // 210 values: a partial block of 256 threads
		// Inputs span GELU's clamps (beyond ±10) and softcap's saturation.
		a := gputest.RandFloats(r, cols*rows, 12)
		full := gputest.RandFloats(r, cols*rows, 3)
		bias := gputest.RandFloats(r, cols, 3)
		for _, o := range ops {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s in-place=%v", o.name, inPlace), func(t *testing.T) {
					x := bs.F32(t, a, cols, rows)
					f := bs.F32(t, full, cols, rows)
					bi := bs.F32(t, bias, cols)
					dst := x
					if !inPlace {
						dst = bs.F32(t, nil, cols, rows)
					}
					if err := o.run(bs.G, dst.G, x.G, bi.G, f.G); err != nil {
						t.Fatal(err)
					}
					if err := o.run(bs.C, dst.C, x.C, bi.C, f.C); err != nil {
						t.Fatal(err)
					}
					g, c := bs.Read(t, dst)
					tol := o.tol
					if !bs.emulated && o.tol > 0 {
						tol = max(tol, 1e-6)
					}
					compare(t, o.name, g, c, tol)
				})
			}
		}
	})
}

func TestBackendRMSNorm(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		wlen       int // 0: no weight
		eps        float32
	}{
		{"row weight", 70, 3, 70, 1e-5},
		{"long rows", 4096 + 64, 2, 4096 + 64, 1e-6},
		{"per head", 128, 3, 32, 1e-6},
		{"no weight", 96, 2, 0, 1e-5},
		{"one value", 1, 5, 1, 1e-5},
	}
	devices(t, func(t *testing.T, bs backends) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				x := bs.F32(t, gputest.RandFloats(r, tt.cols*tt.rows, 4), tt.cols, tt.rows)
				dst := bs.F32(t, nil, tt.cols, tt.rows)
				var wg, wc kernels.Tensor
				if tt.wlen > 0 {
					w := bs.F32(t, gputest.RandFloats(r, tt.wlen, 2), tt.wlen)
					wg, wc = w.G, w.C
				}
				if err := bs.G.RMSNorm(dst.G, x.G, wg, tt.eps); err != nil {
					t.Fatal(err)
				}
				if err := bs.C.RMSNorm(dst.C, x.C, wc, tt.eps); err != nil {
					t.Fatal(err)
				}
				g, c := bs.Read(t, dst)
				// The sum of squares in another order than the CPU's.
				compare(t, "rms_norm", g, c, 1e-6)
			})
		}
	})
}

func TestBackendRope(t *testing.T) {
	pos := []int32{0, 1, 17, 4095, 131071}
	tests := []struct {
		name    string
		heads   int
		p       kernels.RopeParams
		factors bool
		inPlace bool
	}{
		{"norm 64", 2, kernels.RopeParams{HeadDim: 64, Dims: 64, Base: 10000}, false, false},
		{"neox 128", 2, kernels.RopeParams{HeadDim: 128, Dims: 128, Base: 1000000, Neox: true}, false, true},
		{"neox 80 partial", 3, kernels.RopeParams{HeadDim: 80, Dims: 32, Base: 10000, Neox: true}, false, false},
		{"norm partial scaled", 2, kernels.RopeParams{HeadDim: 64, Dims: 48, Base: 500000, FreqScale: 0.25}, false, true},
		{"factors", 2, kernels.RopeParams{HeadDim: 128, Dims: 128, Base: 500000, Neox: true}, true, false},
		{"yarn gpt-oss", 2, kernels.RopeParams{HeadDim: 64, Dims: 64, Base: 150000, FreqScale: 1.0 / 32, Neox: true,
			YaRN: kernels.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 4096}}, false, false},
		{"yarn norm partial factors", 2, kernels.RopeParams{HeadDim: 64, Dims: 48, Base: 10000, FreqScale: 0.25,
			YaRN: kernels.YaRN{ExtFactor: 0.5, AttnFactor: 0.8, BetaFast: 16, BetaSlow: 2, OrigContext: 512}}, true, true},
	}
	for _, c := range gputest.RopeCases {
		tests = append(tests, struct {
			name    string
			heads   int
			p       kernels.RopeParams
			factors bool
			inPlace bool
		}{c.Name, c.Heads, c.P, false, false})
	}
	devices(t, func(t *testing.T, bs backends) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				p := tt.p
				if tt.factors {
					p.Factors = make([]float32, p.Dims/2)
					for i := range p.Factors {
						p.Factors[i] = 1 + 7*r.Float32()
					}
				}
				cols := tt.heads * p.HeadDim
				x := bs.F32(t, gputest.RandFloats(r, cols*len(pos), 2), cols, len(pos))
				dst := x
				if !tt.inPlace {
					dst = bs.F32(t, nil, cols, len(pos))
				}
				pp := gputest.RopePositions(p, pos)
				if err := bs.G.Rope(dst.G, x.G, pp, p); err != nil {
					t.Fatal(err)
				}
				if err := bs.C.Rope(dst.C, x.C, pp, p); err != nil {
					t.Fatal(err)
				}
				g, c := bs.Read(t, dst)
				// sin and cos of angles up to 1.3e5 radians: about 1e-6
				// absolute against glibc's sinf/cosf.
				compare(t, "rope", g, c, 1e-5)
			})
		}
	})
}

func TestBackendGetRows(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, typ := range gpu.WeightTypes {
			t.Run(typ.String(), func(t *testing.T) {
				cols := 3 * typ.BlockSize()
				if typ.BlockSize() == 1 {
					cols = 70
				}
				const rows = 5
				vals := gputest.RandFloats(r, cols*rows, 3)
				table := bs.Weight(t, typ, gputest.Quantize(t, typ, vals), cols, rows)
				ids := []int32{4, 0, 2, 4, 1}
				dst := bs.F32(t, nil, cols, len(ids))
				if err := bs.G.GetRows(dst.G, table.G, ids); err != nil {
					t.Fatal(err)
				}
				if err := bs.C.GetRows(dst.C, table.C, ids); err != nil {
					t.Fatal(err)
				}
				g, c := bs.Read(t, dst)
				// A K-quant's d·scale·q − dmin·min may be one FMA on a GPU.
				compare(t, "get_rows", g, c, bs.exact(1e-6))
			})
		}
	})
}

func TestBackendSetRows(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, typ := range gpu.CacheTypes {
			for _, cols := range []int{32, 96, 256} {
				t.Run(fmt.Sprintf("%v/%d", typ, cols), func(t *testing.T) {
					src := gputest.RandFloats(r, cols*3, 5)
					src[0], src[1] = 0, 1e-9 // a zero and a tiny value in the first block
					if cols >= 64 {
						for i := 32; i < 64; i++ {
							src[i] = 0 // an all-zero Q8_0 block: d = 0
						}
					}
					s := bs.F32(t, src, cols, 3)
					dst := bs.Typed(t, typ, nil, cols, 7)
					rows := []int32{5, 0, 3}
					if err := bs.G.SetRows(dst.G, s.G, rows); err != nil {
						t.Fatal(err)
					}
					if err := bs.C.SetRows(dst.C, s.C, rows); err != nil {
						t.Fatal(err)
					}
					g, c := bs.Read(t, dst)
					compare(t, "set_rows", g, c, 0)
				})
			}
		}
	})
}

// productTol is the largest difference accepted between two matrix
// products of the same rounded operands (the activations rounded to F16
// or quantized to Q8_0/Q8_K the same way on both sides), relative to the
// products' magnitude: float32 sums in different orders (the GPU's per
// lane, then across the warp), a few ulps of the largest partial sum.
const productTol = 2e-6

// checkProduct fails t where got differs from want by more than
// productTol of mag, and returns the largest difference relative to mag.
func checkProduct(t testing.TB, what string, got, want []float32, mag []float64, m int) float64 {
	t.Helper()
	worst := 0.0
	for i := range got {
		e := math.Abs(float64(got[i])-float64(want[i])) / max(mag[i], 1e-30)
		if math.IsNaN(e) || math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) {
			t.Fatalf("%s: dst[%d][%d] = %v, want %v", what, i/m, i%m, got[i], want[i])
		}
		if e > productTol {
			t.Fatalf("%s: dst[%d][%d] = %v, want %v (error %.2e of the products' magnitude %.3g > %.0e)",
				what, i/m, i%m, got[i], want[i], e, mag[i], productTol)
		}
		worst = max(worst, e)
	}
	return worst
}

// matmulShapes are the (m, n) of the matrix-product tests: m not a
// multiple of the 4 rows of a mul_mat_vec block or the 64 of a mul_mat
// tile, n from 1 to 9 tokens (every count of a mul_mat_vec block's 8
// and one over), 17 and 70 (a tile and a bit).
func matmulShapes() [][2]int {
	s := [][2]int{{67, 70}, {130, 70}, {1, 3}, {5, 17}}
	for n := 1; n <= 9; n++ {
		s = append(s, [2]int{67, n})
	}
	if testing.Short() {
		s = [][2]int{{67, 70}, {67, 1}, {67, 9}, {5, 17}}
	}
	return s
}

// launchActivations uploads x (n rows of k floats) and converts it to
// the activation format of weights of typ with quantize_q8_0 or
// quantize_q8_k, as gpu.Backend.MatMul does; F32 and F16 weights take x
// as it is.
func launchActivations(t testing.TB, dev gpu.Device, typ quant.Type, x []float32, k, n int) gpu.Buf {
	t.Helper()
	xb := gputest.Upload(t, dev, f32Bytes(x))
	act := gpu.ActType(typ)
	if act == quant.TypeF32 {
		return xb
	}
	nb := n * k / act.BlockSize()
	qb := gputest.Upload(t, dev, make([]byte, nb*act.TypeSize()))
	name, grid := "quantize_q8_0", gpu.Dim3{X: uint32((nb + 7) / 8), Y: 1, Z: 1}
	if act == quant.TypeQ8_K {
		name, grid = "quantize_q8_k", gpu.Dim3{X: uint32(nb), Y: 1, Z: 1}
	}
	kd, _ := gpu.Lookup(name)
	if err := dev.Launch(name, grid, gpu.Dim3{X: kd.Block, Y: 1, Z: 1}, gpu.P(xb, 0), gpu.P(qb, 0), gpu.I(nb)); err != nil {
		t.Fatal(err)
	}
	return qb
}

// TestKernelsMatMul launches both matrix-product kernels of every weight
// type directly (the Backend picks one by the number of tokens) over the
// activations the quantize kernels make, and compares them with the CPU
// backend's product: both round the activations alike, so they differ
// by the order of the float32 sums only.
func TestKernelsMatMul(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) {
		dev := bs.G.Device()
		r := rand.New(rand.NewPCG(11, 12))
		worst := map[string]float64{}
		for _, typ := range gpu.WeightTypes {
			k := 2 * typ.BlockSize()
			if typ.BlockSize() == 1 {
				k = 172 // stories260K's feed-forward width: not a multiple of 32
			}
			for _, shape := range matmulShapes() {
				m, n := shape[0], shape[1]
				wdata := gputest.Quantize(t, typ, gputest.RandFloats(r, k*m, 1))
				x := gputest.RandFloats(r, k*n, 2)
				mag := gputest.ProductMagnitude(gputest.Dequantize(t, typ, wdata, k*m), x, k, m, n)
				want := gputest.MatMul(t, bs.C, typ, wdata, x, k, m, n)
				for _, kernel := range []string{"mul_mat_vec_", "mul_mat_"} {
					name := kernel + gpu.Suffix(typ)
					t.Run(fmt.Sprintf("%s/k%d/m%d/n%d", name, k, m, n), func(t *testing.T) {
						wb := gputest.Upload(t, dev, wdata)
						xb := launchActivations(t, dev, typ, x, k, n)
						db := gputest.Upload(t, dev, make([]byte, 4*m*n))
						grid := gpu.Dim3{X: uint32((m + gpu.MatVecRows - 1) / gpu.MatVecRows),
							Y: uint32((n + gpu.MatVecTokens - 1) / gpu.MatVecTokens), Z: 1}
						if kernel == "mul_mat_" {
							grid = gpu.Dim3{X: uint32((m + gpu.TileM - 1) / gpu.TileM), Y: uint32((n + gpu.TileN - 1) / gpu.TileN), Z: 1}
						}
						kd, _ := gpu.Lookup(name)
						err := dev.Launch(name, grid, gpu.Dim3{X: kd.Block, Y: 1, Z: 1},
							gpu.P(wb, 0), gpu.P(xb, 0), gpu.P(db, 0), gpu.I(k), gpu.I(m), gpu.I(n), gpu.I(len(wdata)/m))
						if err != nil {
							t.Fatal(err)
						}
						got := make([]float32, m*n)
						if err := dev.Download(db, 0, f32Bytes(got)); err != nil {
							t.Fatal(err)
						}
						worst[name] = max(worst[name], checkProduct(t, name, got, want, mag, m))
					})
				}
			}
		}
		logWorst(t, "largest difference from the CPU's product, of the products' magnitude", worst)
	})
}

// logWorst logs the largest error of each kernel, in name order.
func logWorst(t testing.TB, what string, worst map[string]float64) {
	t.Helper()
	names := slices.Sorted(maps.Keys(worst))
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\n  %-22s %.2e", n, worst[n])
	}
	t.Logf("%s:%s", what, b.String())
}

// quantizeInputs are the activations of the quantize tests: random
// blocks of several scales, and blocks that test the rounding: all zero,
// halves that round to even, a tie between +max and −max (Q8_K takes the
// first), a largest value that is positive and one that is negative, and
// tiny and huge ones.
func quantizeInputs(r *rand.Rand, blocks int) []float32 {
	x := gputest.RandFloats(r, blocks*256, 3)
	for i := 256; i < 512 && i < len(x); i++ {
		x[i] *= 1e-30 // tiny: d is an F16 subnormal or zero
	}
	for i := 512; i < 768 && i < len(x); i++ {
		x[i] *= 1e4
	}
	special := [][]float32{
		make([]float32, 256),                            // zero
		{127, 2.5, -3.5, 0.5, -0.5, 1.5, 126.5, -126.5}, // amax 127: q = x, halves to even
		{-127, 2.5, -3.5, 0.5, -0.5, 1.5, 127, 126.5},   // −max first
		{-2.5, 1.25, 0.75, 2.5},                         // ties of the largest magnitude
		{1e-38, -2e-38, 3e-39},                          // 127/max|x| is infinite: d = 0
		{65504, -60000, 1},                              // the largest F16
		{1e7, -3e6, 1},                                  // Q8_0's d = amax/127 is beyond F16: infinite
	}
	for i, s := range special {
		at := (3 + i) * 256
		if at+256 > len(x) {
			break
		}
		clear(x[at : at+256])
		for j := 0; j < 256; j += len(s) {
			copy(x[at+j:at+256], s)
		}
	}
	return x
}

// underflows reports whether a block of values x, not all zero, has the
// scale d = 0 (F16 or float32 bytes): values so small that 127/max|x|
// is infinite or d is below the smallest F16.
func underflows(d []byte, x []float32) bool {
	return !slices.ContainsFunc(d, func(b byte) bool { return b != 0 }) &&
		slices.ContainsFunc(x, func(v float32) bool { return v != 0 })
}

// TestKernelsQuantize checks quantize_q8_0 and quantize_q8_k byte for
// byte against the activation formats ggml's CPU backend makes (Q8_0 as
// gputest.Q8_0Activations, Q8_K as quant.Quantize's), over block counts
// that leave a launch block partly idle.
func TestKernelsQuantize(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) {
		dev := bs.G.Device()
		r := rand.New(rand.NewPCG(19, 20))
		for _, blocks := range []int{1, 9, 13} { // of 256 values
			all := quantizeInputs(r, blocks)
			for _, tt := range []struct {
				typ  quant.Type // a weight type of the activation format
				trim int        // values left off the end
				ref  func([]float32) []byte
			}{
				{quant.TypeQ8_0, 5 * 32, gputest.Q8_0Activations}, // 8·blocks−5 Q8_0 blocks: the last warps idle
				{quant.TypeQ4_K, 0, func(x []float32) []byte { return gputest.Quantize(t, quant.TypeQ8_K, x) }},
			} {
				act := gpu.ActType(tt.typ)
				x := all[:len(all)-tt.trim]
				t.Run(fmt.Sprintf("%v/%d", act, len(x)), func(t *testing.T) {
					want := tt.ref(x)
					qb := launchActivations(t, dev, tt.typ, x, len(x), 1)
					got := make([]byte, len(want))
					if err := dev.Download(qb, 0, got); err != nil {
						t.Fatal(err)
					}
					size, dBytes := act.TypeSize(), 2 // F16 d
					if act == quant.TypeQ8_K {
						dBytes = 4 // float32 d
					}
					for b := range len(want) / size {
						g, w := got[b*size:(b+1)*size], want[b*size:(b+1)*size]
						if underflows(w[:dBytes], x[b*act.BlockSize():(b+1)*act.BlockSize()]) {
							// d is 0: the quants are unspecified (ggml's are
							// those of an infinite scale).
							g, w = g[:dBytes], w[:dBytes]
						}
						if !bytes.Equal(g, w) {
							t.Fatalf("block %d:\n got  %x\n want %x", b, g, w)
						}
					}
				})
			}
		}
	})
}

// TestBackendMatMul multiplies through the Backend (quantize kernels,
// then one of the products by the number of tokens) and checks against
// the CPU backend.
func TestBackendMatMul(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, typ := range gpu.WeightTypes {
			for _, n := range []int{3, 40} {
				t.Run(fmt.Sprintf("%v/n%d", typ, n), func(t *testing.T) {
					k, m := 512, 37
					wdata := gputest.Quantize(t, typ, gputest.RandFloats(r, k*m, 1))
					w := bs.Weight(t, typ, wdata, k, m)
					xv := gputest.RandFloats(r, k*n, 2)
					x := bs.F32(t, xv, k, n)
					dst := bs.F32(t, nil, m, n)
					if err := bs.G.MatMul(dst.G, w.G, x.G); err != nil {
						t.Fatal(err)
					}
					if err := bs.C.MatMul(dst.C, w.C, x.C); err != nil {
						t.Fatal(err)
					}
					g, c := bs.Read(t, dst)
					checkProduct(t, "matmul", g, c, gputest.ProductMagnitude(gputest.Dequantize(t, typ, wdata, k*m), xv, k, m, n), m)
				})
			}
		}
	})
}

// f32Bytes views v as bytes.
func f32Bytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

// attentionRef is causal attention in float64 over the cache values k, v
// (rows of kv·hd and kv·vd values) as the spec defines it.
func attentionRef(q, k, v []float32, cells []int32, n int, pos []int32, p kernels.AttentionParams) []float32 {
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	out := make([]float32, len(pos)*nh*vd)
	for j, ps := range pos {
		for h := range nh {
			kh := h / (nh / nkv)
			lo, hi := 0, min(int(ps), n-1)
			if p.Window > 0 {
				lo = max(0, int(ps)-p.Window+1)
			}
			if hi < lo {
				continue
			}
			sink := math.Inf(-1) // a score without a value
			if p.Sinks != nil {
				sink = float64(p.Sinks[h])
			}
			qh := q[(j*nh+h)*hd : (j*nh+h+1)*hd]
			scores := make([]float64, hi-lo+1)
			best := math.Inf(-1)
			for c := lo; c <= hi; c++ {
				row := c
				if cells != nil {
					row = int(cells[c])
				}
				kr := k[(row*nkv+kh)*hd : (row*nkv+kh+1)*hd]
				s := 0.0
				for i := range hd {
					s += float64(qh[i]) * float64(kr[i])
				}
				if p.Softcap > 0 {
					s = float64(p.Softcap) * math.Tanh(s/float64(p.Softcap))
				}
				s *= float64(p.Scale)
				scores[c-lo] = s
				best = max(best, s)
			}
			best = max(best, sink)
			sum := math.Exp(sink - best)
			for i := range scores {
				scores[i] = math.Exp(scores[i] - best)
				sum += scores[i]
			}
			o := out[(j*nh+h)*vd : (j*nh+h+1)*vd]
			for c := lo; c <= hi; c++ {
				row := c
				if cells != nil {
					row = int(cells[c])
				}
				vr := v[(row*nkv+kh)*vd : (row*nkv+kh+1)*vd]
				for i := range vd {
					o[i] += float32(scores[c-lo] / sum * float64(vr[i]))
				}
			}
		}
	}
	return out
}

// attnCase is one attention test: a cache of len cells in rows rows
// (paged: cells scattered over them, those before released = -1).
type attnCase struct {
	heads, kvHeads, headDim, valueDim int
	window                            int
	softcap                           float32
	paged, released                   bool
	sinks                             bool
}

func (c attnCase) String() string {
	s := fmt.Sprintf("h%d-kv%d-d%d-v%d", c.heads, c.kvHeads, c.headDim, c.valueDim)
	if c.window > 0 {
		s += fmt.Sprintf("-window%d", c.window)
	}
	if c.softcap > 0 {
		s += fmt.Sprintf("-softcap%g", c.softcap)
	}
	if c.paged {
		s += "-paged"
	}
	if c.released {
		s += "-released"
	}
	if c.sinks {
		s += "-sinks"
	}
	return s
}

// attnCases are the attention tests: head lengths 8, 64, 80, 96/64, 128
// and 256; plain, grouped and multi-query heads; windows, softcap, paged
// cells with released ones.
func attnCases() []attnCase {
	shapes := []attnCase{
		{heads: 8, kvHeads: 4, headDim: 8, valueDim: 8}, // stories260K's
		{heads: 4, kvHeads: 4, headDim: 64, valueDim: 64},
		{heads: 4, kvHeads: 2, headDim: 80, valueDim: 80},
		{heads: 4, kvHeads: 1, headDim: 96, valueDim: 64},
		{heads: 6, kvHeads: 2, headDim: 128, valueDim: 128},
		{heads: 2, kvHeads: 1, headDim: 256, valueDim: 256},
	}
	variants := []attnCase{{}, {window: 8}, {softcap: 30, paged: true}, {window: 5, paged: true, released: true}, {window: 6, sinks: true}}
	if testing.Short() {
		shapes = shapes[:3]
		variants = variants[2:]
	}
	var cs []attnCase
	for _, s := range shapes {
		for _, v := range variants {
			c := s
			c.window, c.softcap, c.paged, c.released, c.sinks = v.window, v.softcap, v.paged, v.released, v.sinks
			cs = append(cs, c)
		}
	}
	return cs
}

// TestBackendAttention compares attention over every cache type with the
// float64 reference over the cache's values, and with the CPU over F32
// caches (over F16 ones the CPU runs ggml's flash attention, which rounds
// to F16 on purpose).
func TestBackendAttention(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) { testAttention(t, bs) })
}

func testAttention(t *testing.T, bs backends) {
	r := rand.New(rand.NewPCG(15, 16))
	const n, rows = 37, 48 // cells, and rows of the (paged) cache
	pos := []int32{32, 33, 34, 35, 36, 36, 3}
	for _, typ := range gpu.CacheTypes {
		for _, c := range attnCases() {
			if typ == quant.TypeQ8_0 && (c.headDim%32 != 0 || c.valueDim%32 != 0) {
				continue // the Backend refuses: Q8_0 heads are whole blocks
			}
			t.Run(fmt.Sprintf("%v/%v", typ, c), func(t *testing.T) {
				ac := newAttnCache(t, bs, r, typ, c, n, rows)
				qpos := pos
				if c.released {
					// No query sees the cells before min(pos)-window+1.
					qpos = pos[:5]
					for i := range max(0, 32-c.window+1) {
						ac.cells[i] = -1
					}
				}
				ac.check(t, bs, r, qpos, "attention")
			})
		}
	}
}

// attnCache is a key/value cache of n cells, of one type, on the GPU and
// the CPU.
type attnCache struct {
	c      attnCase
	p      kernels.AttentionParams
	typ    quant.Type
	k, v   gputest.Pair
	rows   int
	n      int
	cells  []int32 // nil: cell i is row i
	target []int32 // the rows of the cells
}

// newAttnCache stores n cells of random keys and values in caches of typ
// of rows rows on both backends: rows 0.. n-1 or, for a paged case, rows
// scattered over the cache.
func newAttnCache(t *testing.T, bs backends, r *rand.Rand, typ quant.Type, c attnCase, n, rows int) *attnCache {
	t.Helper()
	ac := &attnCache{c: c, typ: typ, rows: rows, n: n,
		p: kernels.AttentionParams{Heads: c.heads, KVHeads: c.kvHeads, HeadDim: c.headDim, ValueDim: c.valueDim,
			Scale: float32(1 / math.Sqrt(float64(c.headDim))), Window: c.window, Softcap: c.softcap}}
	if c.sinks {
		// The first head's sink above every score, the others among them.
		ac.p.Sinks = gputest.RandFloats(r, c.heads, 3)
		ac.p.Sinks[0] = 12
	}
	kcols, vcols := c.kvHeads*c.headDim, c.kvHeads*c.valueDim
	ac.k = bs.Typed(t, typ, nil, kcols, rows)
	ac.v = bs.Typed(t, typ, nil, vcols, rows)
	ac.target = make([]int32, n)
	for i := range ac.target {
		ac.target[i] = int32(i)
	}
	if c.paged {
		for i, row := range r.Perm(rows)[:n] {
			ac.target[i] = int32(row)
		}
		ac.cells = append([]int32(nil), ac.target...)
	}
	// Keys large enough that the softmax is far from uniform.
	ks := bs.F32(t, gputest.RandFloats(r, kcols*n, 3), kcols, n)
	vs := bs.F32(t, gputest.RandFloats(r, vcols*n, 2), vcols, n)
	for _, b := range []struct {
		b              kernels.Backend
		kc, vc, ks, vs kernels.Tensor
	}{{bs.G, ac.k.G, ac.v.G, ks.G, vs.G}, {bs.C, ac.k.C, ac.v.C, ks.C, vs.C}} {
		if err := b.b.SetRows(b.kc, b.ks, ac.target); err != nil {
			t.Fatal(err)
		}
		if err := b.b.SetRows(b.vc, b.vs, ac.target); err != nil {
			t.Fatal(err)
		}
	}
	return ac
}

// check runs attention of random queries at positions qpos over the cache
// on both backends, and compares the GPU's with the float64 reference
// over the cache's values and, over an F32 cache, with the CPU's (over
// F16 the CPU runs ggml's flash attention, which rounds to F16 on
// purpose).
func (ac *attnCache) check(t *testing.T, bs backends, r *rand.Rand, qpos []int32, what string) {
	t.Helper()
	c, p := ac.c, ac.p
	q := gputest.RandFloats(r, len(qpos)*c.heads*c.headDim, 1)
	qs := bs.F32(t, q, c.heads*c.headDim, len(qpos))
	dst := bs.F32(t, nil, c.heads*c.valueDim, len(qpos))
	kv := func(k, v kernels.Tensor) kernels.KV { return kernels.KV{K: k, V: v, Len: ac.n, Cells: ac.cells} }
	if err := bs.G.Attention(dst.G, qs.G, kv(ac.k.G, ac.v.G), qpos, p); err != nil {
		t.Fatal(err)
	}
	if err := bs.C.Attention(dst.C, qs.C, kv(ac.k.C, ac.v.C), qpos, p); err != nil {
		t.Fatal(err)
	}
	g, cpuOut := bs.Read(t, dst)
	kvals := make([]float32, c.kvHeads*c.headDim*ac.rows)
	vvals := make([]float32, c.kvHeads*c.valueDim*ac.rows)
	if err := bs.C.Read(ac.k.C, kvals); err != nil {
		t.Fatal(err)
	}
	if err := bs.C.Read(ac.v.C, vvals); err != nil {
		t.Fatal(err)
	}
	compare(t, what+" vs float64", g, attentionRef(q, kvals, vvals, ac.cells, ac.n, qpos, p), 1e-5)
	if ac.typ == quant.TypeF32 {
		compare(t, what+" vs CPU", g, cpuOut, 1e-5)
	}
}

// TestBackendAttentionSeqs runs a batch of two sequences, one of them
// with an empty cache (zeros), over their own caches.
func TestBackendAttentionSeqs(t *testing.T) {
	devices(t, testAttentionSeqs)
}

func testAttentionSeqs(t *testing.T, bs backends) {
	r := rand.New(rand.NewPCG(17, 18))
	p := kernels.AttentionParams{Heads: 4, KVHeads: 2, HeadDim: 64, ValueDim: 64, Scale: 0.125}
	cols := p.KVHeads * p.HeadDim
	cache := func(n int) (k, v gputest.Pair) {
		return bs.F32(t, gputest.RandFloats(r, cols*n, 2), cols, n), bs.F32(t, gputest.RandFloats(r, cols*n, 2), cols, n)
	}
	k1, v1 := cache(20)
	k2, v2 := cache(9)
	k3, v3 := cache(1)
	pos1, pos2, pos3 := []int32{17, 18, 19}, []int32{8}, []int32{0}
	rowsQ := len(pos1) + len(pos2) + len(pos3)
	qs := bs.F32(t, gputest.RandFloats(r, rowsQ*p.Heads*p.HeadDim, 1), p.Heads*p.HeadDim, rowsQ)
	dst := bs.F32(t, nil, p.Heads*p.ValueDim, rowsQ)
	seqs := func(g bool) []kernels.SeqKV {
		pick := func(x gputest.Pair) kernels.Tensor {
			if g {
				return x.G
			}
			return x.C
		}
		return []kernels.SeqKV{
			{KV: kernels.KV{K: pick(k1), V: pick(v1), Len: 20}, Pos: pos1},
			{KV: kernels.KV{K: pick(k2), V: pick(v2), Len: 9}, Pos: pos2},
			{KV: kernels.KV{K: pick(k3), V: pick(v3), Len: 0}, Pos: pos3}, // nothing visible: zeros
		}
	}
	if err := bs.G.AttentionSeqs(dst.G, qs.G, seqs(true), p); err != nil {
		t.Fatal(err)
	}
	if err := bs.C.AttentionSeqs(dst.C, qs.C, seqs(false), p); err != nil {
		t.Fatal(err)
	}
	g, c := bs.Read(t, dst)
	compare(t, "attention_seqs", g, c, 1e-5)
	for i, v := range g[(rowsQ-1)*p.Heads*p.ValueDim:] {
		if v != 0 {
			t.Fatalf("empty cache: value %d is %v, want 0", i, v)
		}
	}
}

// TestBackendAttentionSlices runs decode steps over caches long enough
// that the Backend splits each query row's cells into slices (see
// gpu.AttnSliceCells) and merges them: over every cache type, paged, with
// a window (which leaves some slices empty) and softcap, against the
// float64 reference and, over F32 caches, the CPU.
func TestBackendAttentionSlices(t *testing.T) {
	devices(t, testAttentionSlices)
}

func testAttentionSlices(t *testing.T, bs backends) {
	r := rand.New(rand.NewPCG(19, 20))
	const n, rows = 1100, 1200 // cells, and rows of the paged cache: 4 slices
	for _, typ := range gpu.CacheTypes {
		for _, c := range []attnCase{
			{heads: 4, kvHeads: 2, headDim: 64, valueDim: 64, paged: true},
			{heads: 4, kvHeads: 1, headDim: 128, valueDim: 64, window: 300, softcap: 20},
			{heads: 4, kvHeads: 2, headDim: 64, valueDim: 64, window: 500, sinks: true},
		} {
			t.Run(fmt.Sprintf("%v/%v", typ, c), func(t *testing.T) {
				ac := newAttnCache(t, bs, r, typ, c, n, rows)
				// One query row, then two: the last cell, and a position
				// whose window leaves the later slices empty.
				ac.check(t, bs, r, []int32{n - 1}, "1 query row")
				ac.check(t, bs, r, []int32{n - 1, 150}, "2 query rows")
			})
		}
	}
}

// TestBackendRecurrent checks the selective scan and the gated delta net
// (gputest.Recurrent) against the CPU: sums in another order, so within
// float tolerance on the emulator too.
func TestBackendRecurrent(t *testing.T) {
	devices(t, func(t *testing.T, bs backends) {
		bs.Recurrent(t, rand.New(rand.NewPCG(24, 2)), func(t *testing.T, what string, g, c []float32) {
			compare(t, what, g, c, 1e-5)
		})
	})
}
