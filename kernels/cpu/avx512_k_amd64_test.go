package cpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
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
	k, refs := avx512TileRefs(t)
	rng := rand.New(rand.NewPCG(51, 52))
	for _, typ := range []quant.Type{quant.TypeQ4_K} {
		for i, tk := range k.tiles[typ] {
			testTileK(t, rng, typ, tk, k.q8K[typ], refs[typ][i])
		}
	}
}

// BenchmarkAVX512Tile runs each avx512-vnni K-quant tile kernel and the
// AVX2 tile of the same shape on the same cache-resident data (k = 2048),
// in multiply-adds per nanosecond; SAJI_TILE_BENCH_GEMV=1 runs Q4_K's gemv
// order.
func BenchmarkAVX512Tile(b *testing.B) {
	k, refs := avx512TileRefs(b)
	const cols = 2048
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range []quant.Type{quant.TypeQ4_K} {
		for i, tk := range k.tiles[typ] {
			ref := refs[typ][i]
			if ref == nil {
				continue
			}
			nb := cols / quant.QK_K
			rb := nb * typ.TypeSize()
			c := tileCase{typ: typ, tk: tk, nb: nb, wstride: rb, xstride: nb * 292, ostride: tk.mr}
			c.w = kWeights(b, rng, typ, nb*tk.mr, 1)
			c.x = kActs(rng, nb*tk.nr, true)
			if typ == quant.TypeQ4_K && os.Getenv("SAJI_TILE_BENCH_GEMV") != "1" {
				c.gemm = 1<<tk.nr - 1
			}
			macs := float64(tk.mr * tk.nr * cols)
			for _, run := range []struct {
				name string
				fn   func(*tileArgs)
			}{{"avx2", ref.fn}, {"avx512", tk.fn}} {
				b.Run(fmt.Sprintf("%v/%dx%d/%s", typ, tk.mr, tk.nr, run.name), func(b *testing.B) {
					out := make([]float32, tk.nr*c.ostride)
					a := tileArgs{w: &c.w[0], wstride: c.wstride, x: unsafe.Pointer(&c.x[0]), xstride: c.xstride,
						n: nb, out: &out[0], ostride: c.ostride, gemm: c.gemm}
					for b.Loop() {
						run.fn(&a)
					}
					b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
				})
			}
		}
	}
}
