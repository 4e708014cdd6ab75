package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// TestGemvQ4KX16 checks the sixteen-row Q4_K decode kernel bit for bit
// against gemvQ4KAVX512 on the file's layout.
func TestGemvQ4KX16(t *testing.T) {
	kernelSetFor(t, setAVX512)
	rng := rand.New(rand.NewPCG(71, 72))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, extreme := range []bool{false, true} {
			w := kWeights(t, rng, quant.TypeQ4_K, s.nb*s.rows, 1)
			x := kActs(rng, s.nb, false)
			if extreme {
				x = kExtremeActs(rng, s.nb)
			}
			rb := s.nb * 144
			want := make([]float32, s.rows)
			a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: s.nb * 292, n: s.nb, out: &want[0], ostride: s.rows}
			gemvQ4KAVX512(&a, s.rows)
			p := make([]byte, q4KX16.size(s.rows, rb))
			packQ4KX16(p, w, 0, s.rows/x16Rows, s.nb)
			got := make([]float32, s.rows)
			b := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), n: s.nb, out: &got[0]}
			gemvQ4KX16AVX512(&b, s.rows)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("rows=%d nb=%d extreme=%v: out[%d] = %v, want %v", s.rows, s.nb, extreme, i, got[i], want[i])
				}
			}
		}
	}
}

// TestGemmQ4KX16 checks the sixteen-row Q4_K prompt kernel bit for bit
// against tileQ4KAVX512's gemm order on the file's layout.
func TestGemmQ4KX16(t *testing.T) {
	kernelSetFor(t, setAVX512)
	rng := rand.New(rand.NewPCG(73, 74))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, extreme := range []bool{false, true} {
			w := kWeights(t, rng, quant.TypeQ4_K, s.nb*s.rows, 1)
			x := make([]q8KBlock, 4*s.nb)
			quantizeQ8K(randn(rng, 4*s.nb*quant.QK_K, 1), x, true)
			if extreme {
				x = kExtremeActs(rng, 4*s.nb)
			}
			rb := s.nb * 144
			const ostride = 70
			want := make([]float32, 4*ostride)
			a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: s.nb * 292, n: s.nb, out: &want[0], ostride: ostride}
			tileQ4KAVX512(&a, s.rows, true)
			p := make([]byte, q4KX16.size(s.rows, rb))
			packQ4KX16(p, w, 0, s.rows/x16Rows, s.nb)
			got := make([]float32, 4*ostride)
			b := a
			b.w, b.out = &p[0], &got[0]
			gemmQ4KX16AVX512(&b, s.rows)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("rows=%d nb=%d extreme=%v: out[%d] = %v, want %v", s.rows, s.nb, extreme, i, got[i], want[i])
				}
			}
			if want[0] == 0 || want[ostride+s.rows-1] == 0 {
				t.Fatalf("rows=%d nb=%d: outputs not written", s.rows, s.nb)
			}
			// The gemv order, and mixed orders, a group at a time: each output as the
			// single-row kernel computes it in its row's order.
			for _, gemm := range []uint64{0, 1, 6, 9, 15} {
				c := b
				c.gemm = gemm
				for g := range s.rows / x16Rows {
					c.w = &p[g*s.nb*x16BlockBytes]
					c.out = &got[g*x16Rows]
					tileQ4KX16(&c)
				}
				for j := range 4 {
					for r := range s.rows {
						want := dotQ4KAVX512(&w[r*rb], &x[j*s.nb], s.nb, gemm&(1<<j) != 0)
						if v := got[j*ostride+r]; math.Float32bits(v) != math.Float32bits(want) {
							t.Fatalf("rows=%d nb=%d gemm=%b: out[%d][%d] = %v, want %v", s.rows, s.nb, gemm, j, r, v, want)
						}
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
