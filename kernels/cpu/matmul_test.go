package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// TestMatMulSIMD compares the backend's SIMD matrix products with the
// pure-Go oracle's for every weight type, over row lengths of one block to
// several, odd row counts and batch sizes that do not fill a tile. Most
// kernels reproduce the oracle's float order and must agree bit for bit;
// the rest must agree within 1e-5 of the sum of the terms' magnitudes.
func TestMatMulSIMD(t *testing.T) {
	fast := New(2)
	if fast.Kernels() == "go" {
		t.Skip("cpu: this CPU has no SIMD kernels (or SAJI_SIMD=off)")
	}
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(11, 12))
	shapes := []struct{ k, m, n int }{{256, 13, 1}, {512, 7, 3}, {768, 5, 4}, {2048, 9, 37}}
	if testing.Short() {
		shapes = shapes[:3]
	}
	for _, typ := range matmulTypes {
		for _, s := range shapes {
			if s.k%typ.BlockSize() != 0 {
				continue
			}
			t.Run(fmt.Sprintf("%v/%dx%dx%d", typ, s.k, s.m, s.n), func(t *testing.T) {
				w := randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k)))
				x := randn(rng, s.k*s.n, 1)
				x[0], x[len(x)-1] = 9, -9 // outliers set the activation scales
				got, want := matmulOn(t, fast, typ, w, x, s.k, s.m, s.n), matmulOn(t, ref, typ, w, x, s.k, s.m, s.n)
				exact := 0
				for i := range got {
					if math.Float32bits(got[i]) == math.Float32bits(want[i]) {
						exact++
						continue
					}
					j, r := i/s.m, i%s.m
					var scale float64
					for l := range s.k {
						scale += math.Abs(float64(w[r*s.k+l] * x[j*s.k+l]))
					}
					if d := math.Abs(float64(got[i] - want[i])); d > 1e-5*scale {
						t.Errorf("output %d (row %d, col %d): %g, oracle %g (diff %.2e, scale %.2e)", i, r, j, got[i], want[i], d, scale)
					}
				}
				t.Logf("%s: %d/%d outputs equal to the oracle's bit for bit", fast.Kernels(), exact, len(got))
			})
		}
	}
}

// matmulOn multiplies w ([k, m], quantized to typ) by x ([k, n]) on b.
func matmulOn(t testing.TB, b *Backend, typ quant.Type, w, x []float32, k, m, n int) []float32 {
	t.Helper()
	data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
	if err := quant.Quantize(typ, w, data); err != nil {
		t.Fatal(err)
	}
	wt, err := b.Weight(typ, []int{k, m}, data)
	if err != nil {
		t.Fatal(err)
	}
	return productOn(t, b, wt, x, k, m, n)
}

// productOn returns w·x on b for a weight tensor w [k, m] and host
// activations x [k, n].
func productOn(t testing.TB, b *Backend, w kernels.Tensor, x []float32, k, m, n int) []float32 {
	t.Helper()
	xt, err := b.New(quant.TypeF32, k, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(xt, x); err != nil {
		t.Fatal(err)
	}
	dst, err := b.New(quant.TypeF32, m, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.MatMul(dst, w, xt); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, m*n)
	if err := b.Read(dst, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkMatMul measures matrix products of Llama-3.2-1B's shapes: the
// attention projection (2048x2048) and the feed-forward up projection
// (2048 -> 8192), for one token (decode) and a prompt of 128, on the
// pure-Go oracle and on the SIMD kernels, with the backend's threads set to
// GOMAXPROCS. Weight bytes per second are reported for decode.
func BenchmarkMatMul(b *testing.B) {
	types := []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ8_0, quant.TypeF16, quant.TypeQ4_0, quant.TypeQ5_K}
	shapes := []struct {
		name string
		k, m int
	}{{"attn", 2048, 2048}, {"ffn_up", 2048, 8192}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range types {
		for _, s := range shapes {
			w := randn(rng, s.k*s.m, 0.02)
			data := make([]byte, s.m*s.k/typ.BlockSize()*typ.TypeSize())
			if err := quant.Quantize(typ, w, data); err != nil {
				b.Fatal(err)
			}
			for _, n := range []int{1, 128} {
				x := randn(rng, s.k*n, 1)
				for _, kind := range []string{"go", "simd"} {
					bk := New(0)
					if kind == "go" {
						bk = NewReference(0)
					} else if bk.Kernels() == "go" {
						continue
					}
					b.Run(fmt.Sprintf("%v/%s/n=%d/%s", typ, s.name, n, kind), func(b *testing.B) {
						wt, _ := bk.Weight(typ, []int{s.k, s.m}, data)
						xt, _ := bk.New(quant.TypeF32, s.k, n)
						_ = bk.Write(xt, x)
						dst, _ := bk.New(quant.TypeF32, s.m, n)
						for b.Loop() {
							if err := bk.MatMul(dst, wt, xt); err != nil {
								b.Fatal(err)
							}
						}
						sec := b.Elapsed().Seconds() / float64(b.N)
						if n == 1 {
							b.ReportMetric(float64(len(data))/sec/1e9, "GB/s")
						} else {
							b.ReportMetric(2*float64(s.k*s.m*n)/sec/1e9, "GOP/s")
						}
					})
				}
			}
		}
	}
}

// TestTiledBlocks checks the tiling of matrix products over register-
// blocked kernels (full tiles to the kernel, edges to the single-row
// kernel, or with overlap one more tile over the last rows; weight rows in
// groups that each block of activation rows passes; gemm bits per
// activation row) with a Go tile kernel of 3×2 built from the oracle.
func TestTiledBlocks(t *testing.T) {
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ8_0} {
		k := newKernelSet("test")
		var calls atomic.Int64
		switch typ {
		case quant.TypeQ4_K:
			k.q8K[typ] = func(w []byte, x []q8KBlock, gemm bool) float32 {
				var r rowK
				r.reset(len(x) * quant.QK_K)
				decodeK(typ, w, &r)
				return dotK(&r, x, gemm)
			}
		case quant.TypeQ8_0:
			k.q8[typ] = func(w []byte, x []q8Block) float32 {
				var r row32
				r.reset(len(x) * 32)
				decode32(typ, w, &r)
				return dot32(&r, x)
			}
		}
		k.tiles[typ] = []tileKernel{{mr: 3, nr: 2, fn: func(a *tileArgs) {
			calls.Add(1)
			rb := typ.TypeSize() * a.n
			for j := range 2 {
				for i := range 3 {
					w := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(a.w), i*a.wstride)), rb)
					var v float32
					if typ == quant.TypeQ8_0 {
						v = k.q8[typ](w, unsafe.Slice((*q8Block)(unsafe.Add(a.x, j*a.xstride)), a.n))
					} else {
						v = k.q8K[typ](w, unsafe.Slice((*q8KBlock)(unsafe.Add(a.x, j*a.xstride)), a.n), a.gemm&(1<<j) != 0)
					}
					*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = v
				}
			}
		}}}
		fast := NewReference(2)
		fast.k = k
		ref := NewReference(2)
		rng := rand.New(rand.NewPCG(3, 4))
		for _, c := range []struct {
			overlap bool
			group   int
		}{{false, 0}, {true, 0}, {false, 6}, {true, 9}} {
			overlap := c.overlap
			k.tiles[typ][0].overlap, k.tiles[typ][0].group = c.overlap, c.group
			for _, s := range []struct{ k, m, n int }{{512, 7, 9}, {256, 6, 4}, {256, 2, 5}, {512, 11, 1}, {256, 9, 11}, {256, 20, 7}} {
				w := randn(rng, s.k*s.m, 0.05)
				x := randn(rng, s.k*s.n, 1)
				calls.Store(0)
				got, want := matmulOn(t, fast, typ, w, x, s.k, s.m, s.n), matmulOn(t, ref, typ, w, x, s.k, s.m, s.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Errorf("%v %v overlap %v group %d: output %d = %g, oracle %g", typ, s, overlap, c.group, i, got[i], want[i])
					}
				}
				if wantCalls := (s.m / 3) * (s.n / 2); s.m >= 6 && calls.Load() < int64(wantCalls/2) {
					t.Errorf("%v %v: %d tile calls, want about %d", typ, s, calls.Load(), wantCalls)
				}
			}
		}
	}
}

// TestRecycle checks that a recycled activation's memory comes back zeroed
// from New (a large one cleared over the threads), that a recycled tensor
// can no longer be used, and that weights are never recycled.
func TestRecycle(t *testing.T) {
	for _, c := range []struct{ threads, n int }{{1, 4}, {3, 1<<18 + 3}} {
		b := NewReference(c.threads)
		ones := make([]float32, c.n)
		for i := range ones {
			ones[i] = 1
		}
		x := f32(t, b, ones, c.n)
		first := &x.(*tensor).f[0]
		b.Recycle(x, x) // twice is harmless
		if err := b.Scale(x, x, 2); err == nil {
			t.Error("Scale of a recycled tensor succeeded")
		}
		shape := []int{c.n} // a buffer is reused by length, whatever the shape
		if c.n%2 == 0 {
			shape = []int{c.n / 2, 2}
		}
		y := newF32(t, b, shape...)
		if &y.(*tensor).f[0] != first {
			t.Errorf("%d values: New did not reuse the recycled buffer", c.n)
		}
		for i, v := range read(t, y) {
			if v != 0 {
				t.Fatalf("%d values: reused value %d = %g, want 0", c.n, i, v)
			}
		}
	}
	b := NewReference(1)
	data := make([]byte, 16)
	w, err := b.Weight(quant.TypeF32, []int{4}, data)
	if err != nil {
		t.Fatal(err)
	}
	b.Recycle(w)
	if z := newF32(t, b, 4); &z.(*tensor).f[0] == &w.(*tensor).f[0] {
		t.Error("a weight's memory was recycled")
	}
}

// TestMatMulEmpty checks products with no rows, no batch or empty rows on
// both kernel sets: no panic, and zeros for empty sums.
func TestMatMulEmpty(t *testing.T) {
	for _, b := range []*Backend{New(2), NewReference(2)} {
		for _, s := range []struct{ k, m, n int }{{0, 3, 2}, {32, 0, 2}, {32, 3, 0}} {
			for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0} {
				if s.k%typ.BlockSize() != 0 {
					continue
				}
				w, err := b.Weight(typ, []int{s.k, s.m}, make([]byte, s.m*s.k/typ.BlockSize()*typ.TypeSize()))
				if err != nil {
					t.Fatal(err)
				}
				x := newF32(t, b, s.k, s.n)
				dst := newF32(t, b, s.m, s.n)
				if err := b.MatMul(dst, w, x); err != nil {
					t.Errorf("%s %v %v: %v", b.Kernels(), typ, s, err)
				}
			}
		}
	}
}
