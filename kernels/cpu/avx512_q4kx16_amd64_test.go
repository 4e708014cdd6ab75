package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// q4KX16Kernels are the sixteen-row Q4_K kernels of each x86 set.
var q4KX16Kernels = []struct {
	set        string
	gemv, gemm func(a *tileArgs, rows int)
	tile       func(a *tileArgs)
}{
	{setAVX512, gemvQ4KX16AVX512, gemmQ4KX16AVX512, tileQ4KX16},
	{setAVX2, gemvQ4KX16AVX2, gemmQ4KX16AVX2, tileQ4KX16A2},
	{setAVXVNNI, gemvQ4KX16VNNI, gemmQ4KX16VNNI, tileQ4KX16V},
}

// TestGemvQ4KX16 checks each set's sixteen-row Q4_K decode kernel bit for
// bit against the file layout's single-row kernel, dotQ4KAVX2.
func TestGemvQ4KX16(t *testing.T) {
	for _, k := range q4KX16Kernels {
		t.Run(k.set, func(t *testing.T) { testGemvQ4KX16(t, k.set, k.gemv) })
	}
}

// testGemvQ4KX16 is TestGemvQ4KX16 on the kernel set set's gemv.
func testGemvQ4KX16(t *testing.T, set string, gemv func(a *tileArgs, rows int)) {
	kernelSetFor(t, set)
	rng := rand.New(rand.NewPCG(171, 172))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, extreme := range []bool{false, true} {
			w := kWeights(t, rng, quant.TypeQ4_K, s.nb*s.rows, 1)
			x := kActs(rng, s.nb, false)
			if extreme {
				x = kExtremeActs(rng, s.nb)
			}
			rb := s.nb * q4KBytes
			p := make([]byte, q4KX16.size(s.rows, rb))
			packQ4KX16(p, w, 0, s.rows/x16Rows, s.nb)
			got := make([]float32, s.rows)
			b := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), n: s.nb, out: &got[0]}
			gemv(&b, s.rows)
			for i := range got {
				want := dotQ4KAVX2(&w[i*rb], &x[0], s.nb, false)
				if math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("rows=%d nb=%d extreme=%v: out[%d] = %v, want %v", s.rows, s.nb, extreme, i, got[i], want)
				}
			}
		}
	}
}

// TestGemmQ4KX16 checks each set's sixteen-row Q4_K prompt kernel bit for
// bit against dotQ4KAVX2's gemm order on the file's layout
// (TestQ4KX16Tile checks the other orders).
func TestGemmQ4KX16(t *testing.T) {
	for _, k := range q4KX16Kernels {
		t.Run(k.set, func(t *testing.T) { testGemmQ4KX16(t, k.set, k.gemm) })
	}
}

// testGemmQ4KX16 is TestGemmQ4KX16 on the kernel set set's gemm.
func testGemmQ4KX16(t *testing.T, set string, gemm func(a *tileArgs, rows int)) {
	kernelSetFor(t, set)
	rng := rand.New(rand.NewPCG(173, 174))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, extreme := range []bool{false, true} {
			w := kWeights(t, rng, quant.TypeQ4_K, s.nb*s.rows, 1)
			x := make([]q8KBlock, 4*s.nb)
			quantizeQ8K(randn(rng, 4*s.nb*quant.QK_K, 1), x, true)
			if extreme {
				x = kExtremeActs(rng, 4*s.nb)
			}
			rb := s.nb * q4KBytes
			const ostride = 70
			p := make([]byte, q4KX16.size(s.rows, rb))
			packQ4KX16(p, w, 0, s.rows/x16Rows, s.nb)
			got := make([]float32, 4*ostride)
			b := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), xstride: s.nb * 292, n: s.nb, out: &got[0], ostride: ostride}
			gemm(&b, s.rows)
			for j := range 4 {
				for r := range s.rows {
					want := dotQ4KAVX2(&w[r*rb], &x[j*s.nb], s.nb, true)
					if v := got[j*ostride+r]; math.Float32bits(v) != math.Float32bits(want) {
						t.Fatalf("rows=%d nb=%d extreme=%v: out[%d][%d] = %v, want %v", s.rows, s.nb, extreme, j, r, v, want)
					}
				}
			}
		}
	}
}

// BenchmarkGemmQ4KX16 compares the sixteen-row prompt kernel with the
// file layout's AVX-512 tile on cache-resident weights (k = 2048, 64
// rows) and four activation rows, in weight GB/s.
func BenchmarkGemmQ4KX16(b *testing.B) {
	kernelSetFor(b, setAVX512)
	const cols, rows = 2048, 64
	rng := rand.New(rand.NewPCG(39, 40))
	nb := cols / quant.QK_K
	rb := nb * 144
	w := kWeights(b, rng, quant.TypeQ4_K, nb*rows, 1)
	x := make([]q8KBlock, 4*nb)
	quantizeQ8K(randn(rng, 4*cols, 1), x, true)
	out := make([]float32, 4*rows)
	p := make([]byte, q4KX16.size(rows, rb))
	packQ4KX16(p, w, 0, rows/x16Rows, nb)
	a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 292, n: nb, out: &out[0], ostride: rows}
	b.Run("file", func(b *testing.B) {
		for b.Loop() {
			tileQ4KAVX512(&a, rows, true)
		}
		b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
	b.Run("x16", func(b *testing.B) {
		c := a
		c.w = &p[0]
		for b.Loop() {
			gemmQ4KX16AVX512(&c, rows)
		}
		b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}

func BenchmarkGemvQ4KX16(b *testing.B) {
	kernelSetFor(b, setAVX512)
	for _, rows := range []int{64, 8192} {
		const cols = 2048
		rng := rand.New(rand.NewPCG(37, 38))
		nb := cols / quant.QK_K
		rb := nb * 144
		w := kWeights(b, rng, quant.TypeQ4_K, nb*rows, 1)
		x := kActs(rng, nb, false)
		out := make([]float32, rows)
		p := make([]byte, q4KX16.size(rows, rb))
		packQ4KX16(p, w, 0, rows/x16Rows, nb)
		b.Run(fmt.Sprintf("file/rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				for r := 0; r < rows; r += gemvRows {
					a := tileArgs{w: &w[r*rb], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 292, n: nb, out: &out[r], ostride: rows}
					gemvQ4KAVX512(&a, gemvRows)
				}
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
		b.Run(fmt.Sprintf("x16/rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				for r := 0; r < rows; r += 64 {
					a := tileArgs{w: &p[r/16*nb*x16BlockBytes], x: unsafe.Pointer(&x[0]), n: nb, out: &out[r]}
					gemvQ4KX16AVX512(&a, 64)
				}
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
