package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// avx512Q8Tiles returns the AVX-512 set and the tiles addAVX512Q8 adds, by
// weight type, or skips with what the CPU lacks.
func avx512Q8Tiles(tb testing.TB) (*kernelSet, map[quant.Type][]tileKernel) {
	tb.Helper()
	k := kernelSetFor(tb, setAVX512)
	own := newKernelSet(setAVX512)
	addAVX512Q8(own)
	return k, own.tiles
}

// tile32Weights returns one row of nb blocks of typ: quantized
// normals ("normal"), random blocks with small ("raw") or large
// ("extreme") scales, Q8_0's -128 included, or zeros.
func tile32Weights(tb testing.TB, rng *rand.Rand, typ quant.Type, nb int, kind string) []byte {
	tb.Helper()
	switch kind {
	case "normal":
		w := make([]byte, nb*typ.TypeSize())
		if err := quant.Quantize(typ, randn(rng, 32*nb, 0.02), w); err != nil {
			tb.Fatal(err)
		}
		return w
	case "raw":
		return rawBlocks(rng, typ, nb, 0.01)
	case "extreme":
		return rawBlocks(rng, typ, nb, 3e4)
	}
	return make([]byte, nb*typ.TypeSize())
}

// checkTile32 runs a rows×cols tile of 32-block outputs through run (w
// rows wstride bytes apart, activation rows xstride bytes apart, outputs
// ostride floats apart, a NaN pattern in every other slot) and checks
// each output bit for bit against the single-row kernel of k (the AVX2
// one) and the oracle, and the other slots untouched.
func checkTile32(t *testing.T, k *kernelSet, rng *rand.Rand, typ quant.Type, rows, cols, nb int, kind string, run func(a *tileArgs)) {
	t.Helper()
	rb := nb * typ.TypeSize()
	wstride, ostride := rb+7, rows+3
	w := make([]byte, rows*wstride+1)
	for i := range rows {
		copy(w[i*wstride:], tile32Weights(t, rng, typ, nb, kind))
	}
	_, sums, _ := dotKindOf(typ)
	xs := nb + 1
	x := make([]q8Block, cols*xs)
	for j := range cols {
		xj := q8Acts(rng, nb, sums)
		if kind == "extreme" || j%3 == 2 {
			xj = extremeActs(rng, nb, sums)
		}
		if kind != "zero" && j%4 == 3 {
			clear(xj) // zero activations: d = 0, quants 0
		}
		copy(x[j*xs:], xj)
	}
	out := make([]float32, cols*ostride)
	for i := range out {
		out[i] = math.Float32frombits(0x7fc0dead)
	}
	run(&tileArgs{w: &w[0], wstride: wstride, x: unsafe.Pointer(&x[0]), xstride: 40 * xs, n: nb, out: &out[0], ostride: ostride})
	single := k.q8[typ]
	var r row32
	r.reset(32 * nb)
	for j := range cols {
		for i := range ostride {
			got := out[j*ostride+i]
			if i >= rows {
				if math.Float32bits(got) != 0x7fc0dead {
					t.Fatalf("slot (%d,%d) outside the tile written", i, j)
				}
				continue
			}
			wr, xj := w[i*wstride:i*wstride+rb], x[j*xs:j*xs+nb]
			decode32(typ, wr, &r)
			want, oracle := float32(0), dot32(&r, xj)
			if nb > 0 {
				want = single(wr, xj)
			}
			if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
				t.Fatalf("output (%d,%d) = %v (%#x), AVX2 single-row %v (%#x), oracle %v (%#x)",
					i, j, got, math.Float32bits(got), want, math.Float32bits(want), oracle, math.Float32bits(oracle))
			}
		}
	}
}

// tile32Blocks are the row lengths in blocks the AVX-512 tile tests run:
// none, one to 17, odd counts, 16 Ki values.
var tile32Blocks = []int{0, 1, 2, 3, 5, 8, 17, 64, 127, 512}

// sortedTypes returns m's weight types in order, so that subtests run in
// a fixed order.
func sortedTypes(m map[quant.Type][]tileKernel) []quant.Type {
	ts := make([]quant.Type, 0, len(m))
	for t := range m {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(a, b int) bool { return ts[a] < ts[b] })
	return ts
}

// TestAVX512Q8Tiles checks every tile addAVX512Q8 adds, prompt and decode,
// bit for bit against the AVX2 single-row kernel and the oracle for each
// output: quantized normal weights, random blocks with small and large
// scales (Q8_0's -128 included) against normal, ±127 and zero
// activations, all-zero weights; 0 to 512 blocks; strides larger than a
// row; the output slots between the tile's outputs untouched.
func TestAVX512Q8Tiles(t *testing.T) {
	skipUnderRace(t)
	k, tiles := avx512Q8Tiles(t)
	rng := rand.New(rand.NewPCG(51, 52))
	for _, typ := range sortedTypes(tiles) {
		for _, tk := range tiles[typ] {
			for _, nb := range tile32Blocks {
				for _, kind := range []string{"normal", "raw", "extreme", "zero"} {
					t.Run(fmt.Sprintf("%v/%dx%d/%d/%s", typ, tk.mr, tk.nr, nb, kind), func(t *testing.T) {
						checkTile32(t, k, rng, typ, tk.mr, tk.nr, nb, kind, tk.fn)
					})
				}
			}
		}
	}
}

// TestAVX512Q8MatMul checks matrix products on the AVX-512 set against the
// pure-Go oracle bit for bit, for every weight type addAVX512Q8 gives
// tiles: batches of one to three rows (decode tiles), batches of the
// prompt tiles and more, shapes whose weight and activation row counts
// leave edges in both directions, on two threads.
func TestAVX512Q8MatMul(t *testing.T) {
	kernelSetFor(t, setAVX512)
	fast, err := NewWithKernels(2, setAVX512)
	if err != nil {
		t.Fatal(err)
	}
	_, tiles := avx512Q8Tiles(t)
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(53, 54))
	shapes := []struct{ k, m, n int }{
		{32, 4, 1}, {512, 13, 1}, {768, 6, 2}, {256, 9, 3}, {2048, 67, 1},
		{32, 3, 8}, {64, 7, 9}, {96, 12, 4}, {256, 13, 5}, {128, 9, 6}, {64, 11, 7}, {256, 13, 17}, {512, 9, 13}, {1024, 17, 22}, {96, 8, 8}, {160, 20, 35}, {256, 35, 19},
	}
	for _, typ := range sortedTypes(tiles) {
		for _, s := range shapes {
			t.Run(fmt.Sprintf("%v/%dx%dx%d", typ, s.k, s.m, s.n), func(t *testing.T) {
				w := randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k)))
				x := randn(rng, s.k*s.n, 1)
				x[0], x[len(x)-1] = 9, -9
				got, want := matmulOn(t, fast, typ, w, x, s.k, s.m, s.n), matmulOn(t, ref, typ, w, x, s.k, s.m, s.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("output %d (row %d, col %d): %v, oracle %v", i, i%s.m, i/s.m, got[i], want[i])
					}
				}
			})
		}
	}
}

// BenchmarkAVX512Q8Tiles runs each AVX-512 tile and the AVX2 kernel it
// replaces (the AVX2 tile, or the single-row kernel where the AVX2 set has
// no tile) on the same cache-resident data (k = 2048, 32 weight rows by
// the new tile's activation rows), in multiply-adds per nanosecond and
// CPU time per call: the ratio of the two is the gain.
func BenchmarkAVX512Q8Tiles(b *testing.B) {
	k, tiles := avx512Q8Tiles(b)
	old := kernelSetFor(b, setAVX2)
	const cols, rows = 2048, 32
	rng := rand.New(rand.NewPCG(55, 56))
	for _, typ := range sortedTypes(tiles) {
		for _, tk := range tiles[typ] {
			nb := cols / 32
			rb := nb * typ.TypeSize()
			var w []byte
			for range rows {
				w = append(w, tile32Weights(b, rng, typ, nb, "normal")...)
			}
			_, sums, _ := dotKindOf(typ)
			x := make([]q8Block, 0, tk.nr*nb)
			for range tk.nr {
				x = append(x, q8Acts(rng, nb, sums)...)
			}
			out := make([]float32, rows*tk.nr)
			base := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: 40 * nb, n: nb, out: &out[0], ostride: rows}
			macs := float64(rows * tk.nr * cols)
			runTile := func(b *testing.B, t *tileKernel) {
				cpuTime(b, func() {
					for b.Loop() {
						t.blocks(0, rows, 0, tk.nr, tk.nr, base, 0, func(i, j0, j1 int) {
							for j := j0; j < j1; j++ {
								out[j*rows+i] = k.q8[typ](w[i*rb:(i+1)*rb], x[j*nb:(j+1)*nb])
							}
						})
					}
				})
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			}
			name := fmt.Sprintf("%v/%dx%d", typ, tk.mr, tk.nr)
			b.Run(name+"/avx512", func(b *testing.B) { runTile(b, &tk) })
			b.Run(name+"/avx2", func(b *testing.B) {
				if ot := old.tile(typ, tk.nr); ot != nil {
					runTile(b, ot)
					return
				}
				single := &tileKernel{mr: rows + 1, nr: tk.nr + 1}
				runTile(b, single)
			})
		}
	}
}

// BenchmarkAVX512Q8MatMul compares matrix products on the AVX2 and the
// AVX-512 sets in one process, for every weight type addAVX512Q8 gives
// tiles: a prompt (128 activation rows, k = 2048, m = 2048) in
// multiply-adds per nanosecond, and decode (one row, k = 2048, m = 8192,
// then a 64 MB matrix that streams from memory) in weight GB/s, on one
// and two threads; the weights are random blocks. cpu-ns/op is the
// process's CPU time per product.
func BenchmarkAVX512Q8MatMul(b *testing.B) {
	_, tiles := avx512Q8Tiles(b)
	kernelSetFor(b, setAVX2)
	rng := rand.New(rand.NewPCG(57, 58))
	shapes := []struct {
		name    string
		k, m, n int
	}{{"pp128", 2048, 2048, 128}, {"tg", 2048, 8192, 1}, {"tg-dram", 4096, 0, 1}}
	for _, typ := range sortedTypes(tiles) {
		for _, s := range shapes {
			m := s.m
			if m == 0 {
				m = (64 << 20) / (s.k / 32 * typ.TypeSize()) / 64 * 64
			}
			data := rawBlocks(rng, typ, m*s.k/32, 0.01)
			x := randn(rng, s.k*s.n, 1)
			for _, threads := range []int{1, 2} {
				for _, set := range []string{setAVX2, setAVX512} {
					bk, err := NewWithKernels(threads, set)
					if err != nil {
						b.Fatal(err)
					}
					b.Run(fmt.Sprintf("%v/%s/t=%d/%s", typ, s.name, threads, set), func(b *testing.B) {
						wt, _ := bk.Weight(typ, []int{s.k, m}, data)
						xt, _ := bk.New(quant.TypeF32, s.k, s.n)
						_ = bk.Write(xt, x)
						dst, _ := bk.New(quant.TypeF32, m, s.n)
						cpuTime(b, func() {
							for b.Loop() {
								if err := bk.MatMul(dst, wt, xt); err != nil {
									b.Fatal(err)
								}
							}
						})
						if s.n == 1 {
							b.ReportMetric(float64(len(data))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
						} else {
							b.ReportMetric(float64(s.k*m*s.n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
						}
					})
				}
			}
		}
	}
}
