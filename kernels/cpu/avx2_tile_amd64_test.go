package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// avx2TileSet returns a kernel set with the single-row K-quant kernels and
// the tile kernels, or skips when the CPU lacks AVX2, FMA or F16C.
func avx2TileSet(tb testing.TB) *kernelSet {
	tb.Helper()
	k := avx2KSet(tb)
	addAVX2Q8(k)
	addAVX2Tiles(k)
	return k
}

// tileCase is one tile to compute: mr weight rows of nb super-blocks at
// wstride bytes apart, nr activation rows at xstride bytes apart, outputs
// ostride floats apart, and the gemm bits.
type tileCase struct {
	typ     quant.Type
	tk      tileKernel
	nb      int
	w       []byte // mr rows, wstride apart
	wstride int
	x       []q8KBlock // nr rows, xstride/292 blocks apart
	xstride int
	ostride int
	gemm    uint64
}

// run calls the tile kernel and returns its outputs, out[j*ostride+i];
// the slots between outputs are filled with a NaN pattern that must
// survive.
func (c *tileCase) run() []float32 {
	out := make([]float32, c.tk.nr*c.ostride)
	for i := range out {
		out[i] = math.Float32frombits(0x7fc0dead)
	}
	a := tileArgs{w: &c.w[0], wstride: c.wstride, x: unsafe.Pointer(&c.x[0]), xstride: c.xstride,
		n: c.nb, out: &out[0], ostride: c.ostride, gemm: c.gemm}
	c.tk.fn(&a)
	return out
}

// TestAVX2TilesK checks every K-quant tile kernel bit for bit against the
// single-row kernel and the oracle for each of its outputs: quantized
// normal weights and activations, random weight bytes with large scales
// against ±127 and zero activations, all-zero weights; 1 to 17
// super-blocks; row strides larger than a row; every gemm mask of the
// tile (mixed ones included); the output slots between the tile's outputs
// left untouched.
func TestAVX2TilesK(t *testing.T) {
	k := avx2TileSet(t)
	rng := rand.New(rand.NewPCG(21, 22))
	for typ, tks := range k.tiles {
		if typ.BlockSize() != quant.QK_K {
			continue
		}
		for _, tk := range tks {
			testTileK(t, rng, typ, tk, k.q8K[typ], nil)
		}
	}
}

// testTileK runs TestAVX2TilesK's cases on the tile kernel tk of type typ:
// every output must equal the single-row kernel's, the oracle's and, when
// ref is not nil, the output of the tile kernel ref (of the same shape).
func testTileK(t *testing.T, rng *rand.Rand, typ quant.Type, tk tileKernel, single func(w []byte, x []q8KBlock, gemm bool) float32, ref *tileKernel) {
	for _, nb := range []int{1, 2, 3, 5, 17} {
		for _, wk := range []string{"normal", "raw-large", "extreme", "zero"} {
			t.Run(fmt.Sprintf("%v/%dx%d/%d/%s", typ, tk.mr, tk.nr, nb, wk), func(t *testing.T) {
				rb := nb * typ.TypeSize()
				c := tileCase{typ: typ, tk: tk, nb: nb, wstride: rb + 13, xstride: (nb + 1) * 292, ostride: tk.mr + 3}
				c.w = make([]byte, tk.mr*c.wstride)
				c.x = make([]q8KBlock, tk.nr*(nb+1))
				masks := []uint64{0, 1<<tk.nr - 1}
				if typ == quant.TypeQ4_K || typ == quant.TypeQ2_K {
					masks = masks[:0]
					for m := range uint64(1 << tk.nr) {
						masks = append(masks, m)
					}
				}
				for _, mask := range masks {
					c.gemm = mask
					for i := range tk.mr {
						var w []byte
						switch wk {
						case "normal":
							w = kWeights(t, rng, typ, nb, 1)
						case "raw-large":
							w = kRawWeights(rng, typ, nb, 30000)
						case "extreme":
							w = kRawWeights(rng, typ, nb, 1)
						case "zero":
							w = make([]byte, rb)
						}
						copy(c.w[i*c.wstride:], w)
					}
					for j := range tk.nr {
						var x []q8KBlock
						if wk == "normal" || wk == "zero" {
							x = kActs(rng, nb, mask&(1<<j) != 0)
						} else {
							x = kExtremeActs(rng, nb)
						}
						copy(c.x[j*(nb+1):], x)
					}
					out := c.run()
					var refOut []float32
					if ref != nil {
						rc := c
						rc.tk = *ref
						refOut = rc.run()
					}
					for j := range tk.nr {
						x := c.x[j*(nb+1) : j*(nb+1)+nb]
						g := mask&(1<<j) != 0
						for i := range c.ostride {
							got := out[j*c.ostride+i]
							if i >= tk.mr {
								if math.Float32bits(got) != 0x7fc0dead {
									t.Fatalf("mask %b: slot (%d,%d) outside the tile written", mask, i, j)
								}
								continue
							}
							w := c.w[i*c.wstride : i*c.wstride+rb]
							want, oracle := single(w, x, g), oracleK(typ, w, x, g)
							if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
								t.Fatalf("mask %b: output (%d,%d) = %v (%#x), single-row %v (%#x), oracle %v",
									mask, i, j, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
							}
							if refOut != nil && math.Float32bits(got) != math.Float32bits(refOut[j*c.ostride+i]) {
								t.Fatalf("mask %b: output (%d,%d) = %v, reference tile %v", mask, i, j, got, refOut[j*c.ostride+i])
							}
						}
					}
				}
			})
		}
	}
}

// TestAVX2TilesMatMul checks matrix products running the tile kernels
// against the pure-Go oracle bit for bit, over shapes whose weight and
// activation row counts leave edges in both directions (and batches
// smaller than a tile), so tiles, edge rows and edge columns all meet.
func TestAVX2TilesMatMul(t *testing.T) {
	fast := New(2)
	if fast.Kernels() == "go" {
		t.Skip("cpu: this CPU has no SIMD kernels (or SAJI_SIMD=off)")
	}
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(23, 24))
	shapes := []struct{ k, m, n int }{{256, 4, 4}, {512, 13, 9}, {768, 6, 7}, {256, 9, 3}, {1024, 17, 22}}
	for typ := range fast.k.tiles {
		if fast.k.tile(typ, 128) == nil {
			t.Fatalf("%v: no tile for a batch of 128", typ)
		}
		for _, s := range shapes {
			if s.k%typ.BlockSize() != 0 {
				continue
			}
			t.Run(fmt.Sprintf("%v/%dx%dx%d", typ, s.k, s.m, s.n), func(t *testing.T) {
				w := randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k)))
				x := randn(rng, s.k*s.n, 1)
				x[0], x[len(x)-1] = 9, -9
				got, want := matmulOn(t, fast, typ, w, x, s.k, s.m, s.n), matmulOn(t, ref, typ, w, x, s.k, s.m, s.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Errorf("output %d (row %d, col %d): %v, oracle %v", i, i%s.m, i/s.m, got[i], want[i])
					}
				}
			})
		}
	}
}

// BenchmarkTile measures each tile kernel on cache-resident data (one tile
// of weight rows against one tile of activation rows, k = 2048) against
// the single-row kernel computing the same outputs, in multiply-adds per
// nanosecond. SAJI_TILE_BENCH_GEMV=1 runs Q4_K's gemv order.
func BenchmarkTile(b *testing.B) {
	k := avx2TileSet(b)
	const cols = 2048
	rng := rand.New(rand.NewPCG(5, 6))
	gemv := os.Getenv("SAJI_TILE_BENCH_GEMV") == "1"
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K} {
		for _, tk := range k.tiles[typ] {
			nb := cols / quant.QK_K
			rb := nb * typ.TypeSize()
			c := tileCase{typ: typ, tk: tk, nb: nb, wstride: rb, xstride: nb * 292, ostride: tk.mr}
			c.w = kWeights(b, rng, typ, nb*tk.mr, 1)
			c.x = kActs(rng, nb*tk.nr, true)
			if typ == quant.TypeQ4_K && !gemv {
				c.gemm = 1<<tk.nr - 1
			}
			macs := float64(tk.mr * tk.nr * cols)
			b.Run(fmt.Sprintf("%v/%dx%d/tile", typ, tk.mr, tk.nr), func(b *testing.B) {
				out := make([]float32, tk.nr*c.ostride)
				a := tileArgs{w: &c.w[0], wstride: c.wstride, x: unsafe.Pointer(&c.x[0]), xstride: c.xstride,
					n: nb, out: &out[0], ostride: c.ostride, gemm: c.gemm}
				for b.Loop() {
					tk.fn(&a)
				}
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
			b.Run(fmt.Sprintf("%v/%dx%d/single", typ, tk.mr, tk.nr), func(b *testing.B) {
				dot := k.q8K[typ]
				var s float32
				for b.Loop() {
					for j := range tk.nr {
						x := c.x[j*nb : (j+1)*nb]
						for i := range tk.mr {
							s += dot(c.w[i*rb:(i+1)*rb], x, c.gemm&(1<<j) != 0)
						}
					}
				}
				_ = s
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
		}
	}
}

// BenchmarkTileMatMul compares matrix products of 2048×2048 weights with a
// prompt of 128 activation rows on the SIMD backend with its tile kernels
// ("tiles") and with the tiles removed, so that every output goes through
// the single-row kernels ("rows"), in GOP/s (two per multiply-add).
func BenchmarkTileMatMul(b *testing.B) {
	const k, m, n = 2048, 2048, 128
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ8_0, quant.TypeF16} {
		w := randn(rng, k*m, 0.02)
		data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
		if err := quant.Quantize(typ, w, data); err != nil {
			b.Fatal(err)
		}
		x := randn(rng, k*n, 1)
		for _, kind := range []string{"rows", "tiles"} {
			bk := New(0)
			if bk.Kernels() == "go" {
				b.Skip("no SIMD kernels")
			}
			if kind == "rows" {
				ks := *bk.k
				ks.tiles = nil
				bk.k = &ks
			} else if bk.k.tile(typ, n) == nil {
				continue
			}
			b.Run(fmt.Sprintf("%v/%s", typ, kind), func(b *testing.B) {
				wt, _ := bk.Weight(typ, []int{k, m}, data)
				xt, _ := bk.New(quant.TypeF32, k, n)
				_ = bk.Write(xt, x)
				dst, _ := bk.New(quant.TypeF32, m, n)
				for b.Loop() {
					if err := bk.MatMul(dst, wt, xt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(k*m*n)/b.Elapsed().Seconds()*float64(b.N)/1e9, "GOP/s")
			})
		}
	}
}
