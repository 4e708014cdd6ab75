package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"
	"unsafe"

	"saji/kernels/quant"
)

// avx512TileRefs returns, for each K-quant tile kernel the avx512-vnni set
// registers in place of an AVX2 one, the AVX2 kernel of the same shape
// (nil for a new shape), or skips when the CPU lacks the set.
func avx512TileRefs(tb testing.TB) (k *kernelSet, refs map[quant.Type][]*tileKernel) {
	tb.Helper()
	k = kernelSetFor(tb, setAVX512)
	old := kernelSetFor(tb, setAVX2)
	refs = map[quant.Type][]*tileKernel{}
	for typ, tks := range k.tiles {
		for i := range tks {
			var ref *tileKernel
			for j, o := range old.tiles[typ] {
				if o.mr == tks[i].mr && o.nr == tks[i].nr {
					ref = &old.tiles[typ][j]
				}
			}
			refs[typ] = append(refs[typ], ref)
		}
	}
	return k, refs
}

// TestAVX512TilesK checks the avx512-vnni set's K-quant tile kernels bit
// for bit against the single-row kernel, the oracle and the AVX2 tile of
// the same shape, on TestAVX2TilesK's cases.
func TestAVX512TilesK(t *testing.T) {
	skipUnderRace(t)
	k, refs := avx512TileRefs(t)
	rng := rand.New(rand.NewPCG(51, 52))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K} {
		for i, tk := range k.tiles[typ] {
			testTileK(t, rng, typ, tk, k.q8K[typ], refs[typ][i])
		}
	}
}

// BenchmarkAVX512Tile runs each avx512-vnni K-quant tile kernel and the
// AVX2 tile of the same shape on the same cache-resident data (k = 2048),
// alternating batches of calls of the two in one loop, and reports the
// fastest batch of each (ns per call: the least disturbed by other
// processes on a shared machine) and their ratio, avx2/avx512; a tile
// with no AVX2 counterpart is compared with the AVX2 single-row kernel.
// SAJI_TILE_BENCH_GEMV=1 runs Q4_K's prompt tiles in gemv order.
func BenchmarkAVX512Tile(b *testing.B) {
	k, refs := avx512TileRefs(b)
	old := kernelSetFor(b, setAVX2)
	const cols = 2048
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K} {
		for i, tk := range k.tiles[typ] {
			ref := refs[typ][i]
			if ref == nil {
				// No AVX2 tile: the AVX2 single-row kernel computes the
				// tile's outputs one by one.
				ref = &tileKernel{mr: tk.mr, nr: tk.nr, fn: singleTile(old.q8K[typ], typ, tk.mr, tk.nr)}
			}
			nb := cols / quant.QK_K
			rb := nb * typ.TypeSize()
			c := tileCase{typ: typ, tk: tk, nb: nb, wstride: rb, xstride: nb * 292, ostride: tk.mr}
			c.w = kWeights(b, rng, typ, nb*tk.mr, 1)
			c.x = kActs(rng, nb*tk.nr, true)
			if typ == quant.TypeQ4_K && tk.nr > 1 && os.Getenv("SAJI_TILE_BENCH_GEMV") != "1" {
				c.gemm = 1<<tk.nr - 1
			}
			b.Run(fmt.Sprintf("%v/%dx%d", typ, tk.mr, tk.nr), func(b *testing.B) {
				old, fast := benchPair(b, ref.fn, tk.fn, &c)
				b.ReportMetric(old, "avx2-ns")
				b.ReportMetric(fast, "avx512-ns")
				b.ReportMetric(old/fast, "x")
			})
		}
	}
}

// singleTile returns a tile kernel of mr×nr outputs of type typ that
// computes each with the single-row kernel dot.
func singleTile(dot func(w []byte, x []q8KBlock, gemm bool) float32, typ quant.Type, mr, nr int) func(a *tileArgs) {
	return func(a *tileArgs) {
		rb := a.n * typ.TypeSize()
		for j := range nr {
			x := unsafe.Slice((*q8KBlock)(unsafe.Add(a.x, j*a.xstride)), a.n)
			for i := range mr {
				w := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(a.w), i*a.wstride)), rb)
				*(*float32)(unsafe.Add(unsafe.Pointer(a.out), 4*(j*a.ostride+i))) = dot(w, x, a.gemm&(1<<j) != 0)
			}
		}
	}
}

// benchPair runs the tile kernels old and fast on c alternately, in
// batches of 32 calls, and returns the fastest batch of each in ns per
// call.
func benchPair(b *testing.B, old, fast func(*tileArgs), c *tileCase) (oldNS, fastNS float64) {
	out := make([]float32, c.tk.nr*c.ostride)
	a := tileArgs{w: &c.w[0], wstride: c.wstride, x: unsafe.Pointer(&c.x[0]), xstride: c.xstride,
		n: c.nb, out: &out[0], ostride: c.ostride, gemm: c.gemm}
	const batch = 32
	best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
	for b.Loop() {
		for i, fn := range []func(*tileArgs){old, fast} {
			t0 := time.Now()
			for range batch {
				fn(&a)
			}
			best[i] = min(best[i], time.Since(t0))
		}
	}
	return float64(best[0].Nanoseconds()) / batch, float64(best[1].Nanoseconds()) / batch
}

// BenchmarkAVX512MatMul compares matrix products on the avx2 and the
// avx512-vnni kernel sets, two threads each, alternating batches of products
// in one loop: decode (one activation row, 2048×32768 weights, read from
// DRAM) and a prompt of 128 rows (2048×2048 weights). It reports the
// fastest product of each set in ms and their ratio, avx2/avx512.
func BenchmarkAVX512MatMul(b *testing.B) {
	kernelSetFor(b, setAVX512)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K} {
		for _, s := range []struct {
			name    string
			k, m, n int
		}{{"decode", 2048, 32768, 1}, {"prompt", 2048, 2048, 128}} {
			w := randn(rng, s.k*s.m, 0.02)
			data := make([]byte, s.m*s.k/typ.BlockSize()*typ.TypeSize())
			if err := quant.Quantize(typ, w, data); err != nil {
				b.Fatal(err)
			}
			x := randn(rng, s.k*s.n, 1)
			b.Run(fmt.Sprintf("%v/%s", typ, s.name), func(b *testing.B) {
				var runs [2]func()
				for i, name := range []string{setAVX2, setAVX512} {
					bk, err := NewWithKernels(2, name)
					if err != nil {
						b.Fatal(err)
					}
					wt, _ := bk.Weight(typ, []int{s.k, s.m}, data)
					xt, _ := bk.New(quant.TypeF32, s.k, s.n)
					_ = bk.Write(xt, x)
					dst, _ := bk.New(quant.TypeF32, s.m, s.n)
					runs[i] = func() {
						if err := bk.MatMul(dst, wt, xt); err != nil {
							b.Fatal(err)
						}
					}
				}
				// Each set runs a batch of products in turn, so that one
				// set's idle workers (which spin a while) do not share the
				// cores with the other's products.
				const batch = 4
				best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
				for b.Loop() {
					for i, run := range runs {
						run()
						for range batch {
							t0 := time.Now()
							run()
							best[i] = min(best[i], time.Since(t0))
						}
					}
				}
				b.ReportMetric(float64(best[0].Microseconds())/1000, "avx2-ms")
				b.ReportMetric(float64(best[1].Microseconds())/1000, "avx512-ms")
				b.ReportMetric(float64(best[0])/float64(best[1]), "x")
			})
		}
	}
}

// TestAVX512KDots checks the avx512-vnni set's single-row K-quant kernels
// bit for bit against the oracle (and so the AVX2 kernels) on
// TestAVX2KDots' cases.
func TestAVX512KDots(t *testing.T) {
	skipUnderRace(t)
	k := kernelSetFor(t, setAVX512)
	old := kernelSetFor(t, setAVX2)
	rng := rand.New(rand.NewPCG(53, 54))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K, quant.TypeQ2_K, quant.TypeIQ4_XS, quant.TypeQ3_K} {
		testKDots(t, rng, typ, k.q8K[typ])
		w, x := kWeights(t, rng, typ, 9, 1), kActs(rng, 9, false)
		for _, gemm := range []bool{false, true} {
			if got, want := k.q8K[typ](w, x, gemm), old.q8K[typ](w, x, gemm); math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("%v gemm=%v: %v, AVX2 kernel %v", typ, gemm, got, want)
			}
		}
	}
}

// BenchmarkAVX512KDot compares the avx512-vnni single-row K-quant kernels
// with the AVX2 ones on one cache-resident row of k = 4096, alternating
// batches of calls, and reports the fastest batch of each in ns per call
// and their ratio, avx2/avx512.
func BenchmarkAVX512KDot(b *testing.B) {
	k := kernelSetFor(b, setAVX512)
	old := kernelSetFor(b, setAVX2)
	const nb = 16
	rng := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K, quant.TypeQ2_K, quant.TypeIQ4_XS, quant.TypeQ3_K} {
		w, x := kWeights(b, rng, typ, nb, 1), kActs(rng, nb, true)
		for _, gemm := range []bool{false, true} {
			b.Run(fmt.Sprintf("%v/gemm=%v", typ, gemm), func(b *testing.B) {
				const batch = 32
				best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
				var s float32
				for b.Loop() {
					for i, dot := range []func([]byte, []q8KBlock, bool) float32{old.q8K[typ], k.q8K[typ]} {
						t0 := time.Now()
						for range batch {
							s += dot(w, x, gemm)
						}
						best[i] = min(best[i], time.Since(t0))
					}
				}
				_ = s
				b.ReportMetric(float64(best[0].Nanoseconds())/batch, "avx2-ns")
				b.ReportMetric(float64(best[1].Nanoseconds())/batch, "avx512-ns")
				b.ReportMetric(float64(best[0])/float64(best[1]), "x")
			})
		}
	}
}
