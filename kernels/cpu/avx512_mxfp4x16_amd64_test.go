package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// TestMXFP4X16 checks the sixteen-row MXFP4 kernels (one and four
// activation rows) bit for bit against the single-row kernel on the
// file's layout, on random bytes (every code, every scale byte, the
// subnormal scales of e = 0 and 1 among them) and on ±127 activations;
// and that unpacking gives the file's bytes back.
func TestMXFP4X16(t *testing.T) {
	k := kernelSetFor(t, setAVX512)
	dot := k.dotQ8(quant.TypeMXFP4)
	rng := rand.New(rand.NewPCG(77, 78))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {48, 9}, {16, 90}} {
		w := make([]byte, s.rows*s.nb*17)
		for i := range w {
			w[i] = byte(rng.Uint32())
		}
		for r := range 4 {
			w[r*s.nb*17] = byte(r) // scales 0, 1, 2, 3
		}
		x := make([]q8Block, 4*s.nb)
		quantizeQ8(randn(rng, 4*s.nb*32, 1), x, false)
		for i := range x[s.nb].q {
			x[s.nb].q[i] = 127 - int8(254*(i&1))
		}
		rb := s.nb * 17
		p := make([]byte, mxfp4X16.size(s.rows, rb))
		packMXFP4X16(p, w, 0, s.rows/x16Rows, s.nb)
		back := make([]byte, rb)
		for r := range s.rows {
			unpackMXFP4X16(back, p, r, rb)
			if string(back) != string(w[r*rb:(r+1)*rb]) {
				t.Fatalf("rows=%d nb=%d: row %d unpacks differently", s.rows, s.nb, r)
			}
		}
		const ostride = 70
		got := make([]float32, 4*ostride)
		a := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), xstride: s.nb * int(unsafe.Sizeof(q8Block{})), n: s.nb, out: &got[0], ostride: ostride}
		tileMXFP4X16AVX512(&a, s.rows)
		one := make([]float32, s.rows)
		for j := range 4 {
			g := a
			g.x, g.out = unsafe.Pointer(&x[j*s.nb]), &one[0]
			gemvMXFP4X16AVX512(&g, s.rows)
			for r := range s.rows {
				want := dot(w[r*rb:(r+1)*rb], x[j*s.nb:(j+1)*s.nb])
				for _, v := range []float32{got[j*ostride+r], one[r]} {
					if math.Float32bits(v) != math.Float32bits(want) {
						t.Fatalf("rows=%d nb=%d: out[%d][%d] = %v, single-row kernel %v", s.rows, s.nb, j, r, v, want)
					}
				}
			}
		}
	}
}

// BenchmarkMXFP4X16 compares the sixteen-row MXFP4 decode kernel with the
// file layout's on cache-resident weights (k = 2880, gpt-oss's width, 64
// rows) and on 8192 rows, in weight GB/s.
func BenchmarkMXFP4X16(b *testing.B) {
	k := kernelSetFor(b, setAVX512)
	for _, rows := range []int{64, 8192} {
		const cols = 2880
		rng := rand.New(rand.NewPCG(41, 42))
		nb := cols / 32
		rb := nb * 17
		w := make([]byte, rows*rb)
		for i := range w {
			w[i] = byte(rng.Uint32()&0x7f) | 0x40
		}
		x := make([]q8Block, nb)
		quantizeQ8(randn(rng, cols, 1), x, false)
		out := make([]float32, rows)
		p := make([]byte, mxfp4X16.size(rows, rb))
		packMXFP4X16(p, w, 0, rows/x16Rows, nb)
		tk := k.tile(quant.TypeMXFP4, 1)
		b.Run(fmt.Sprintf("file/rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				for r := 0; r < rows; r += tk.mr {
					a := tileArgs{w: &w[r*rb], wstride: rb, x: unsafe.Pointer(&x[0]), n: nb, out: &out[r], ostride: rows}
					tk.fn(&a)
				}
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
		b.Run(fmt.Sprintf("x16/rows=%d", rows), func(b *testing.B) {
			for b.Loop() {
				for r := 0; r < rows; r += 64 {
					a := tileArgs{w: &p[r*rb], x: unsafe.Pointer(&x[0]), n: nb, out: &out[r]}
					gemvMXFP4X16AVX512(&a, 64)
				}
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkPackX16 measures what the sixteen-row layouts cost at load:
// packing 256 MB of Q4_K, Q6_K and MXFP4 rows of 2048 values on one and two
// threads, in GB/s of weights. The first iteration writes fresh memory, as
// a load does.
func BenchmarkPackX16(b *testing.B) {
	for _, c := range []struct {
		typ  quant.Type
		kern packedKernel
	}{{quant.TypeQ4_K, q4KX16}, {quant.TypeQ6_K, q6KX16}, {quant.TypeMXFP4, mxfp4X16}} {
		rb := 2048 / c.typ.BlockSize() * c.typ.TypeSize()
		m := (256 << 20) / rb / x16Rows * x16Rows
		src := make([]byte, m*rb)
		for i := range src {
			src[i] = byte(i)
		}
		dst := make([]byte, c.kern.size(m, rb))
		for _, threads := range []int{1, 2} {
			bk := NewReference(threads)
			b.Run(fmt.Sprintf("%v/t=%d", c.typ, threads), func(b *testing.B) {
				for b.Loop() {
					c.kern.pack(bk, dst, src, m, rb)
				}
				b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}
