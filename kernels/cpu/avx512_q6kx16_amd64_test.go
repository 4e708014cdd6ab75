package cpu

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"saji/kernels/quant"
)

// TestGemvQ6KX16 checks the sixteen-row Q6_K decode kernel and its tile
// bit for bit against gemvQ6KAVX512 on the file's layout, and that
// unpacking gives back the file's rows.
func TestGemvQ6KX16(t *testing.T) {
	kernelSetFor(t, setAVX512)
	rng := rand.New(rand.NewPCG(75, 76))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, extreme := range []bool{false, true} {
			w := kWeights(t, rng, quant.TypeQ6_K, s.nb*s.rows, 1)
			rb := s.nb * q6KBytes
			if extreme {
				// Every quant 0 or 63 and every scale ±127 or -128.
				for r := range s.rows * s.nb {
					blk := w[r*q6KBytes:][:q6KBytes]
					for i := range 192 {
						blk[i] = byte(rng.Uint32()) | 0x0f*byte(r%2)
					}
					for i := 192; i < 208; i++ {
						blk[i] = []byte{127, 0x80, 0x81}[rng.IntN(3)]
					}
				}
			}
			p := make([]byte, q6KX16.size(s.rows, rb))
			packQ6KX16(p, w, 0, s.rows/x16Rows, s.nb)
			row := make([]byte, rb)
			for r := range s.rows {
				unpackQ6KX16(row, p, r, rb)
				if !bytes.Equal(row, w[r*rb:(r+1)*rb]) {
					t.Fatalf("rows=%d nb=%d: row %d unpacks to other bytes", s.rows, s.nb, r)
				}
			}
			x := make([]q8KBlock, 4*s.nb)
			quantizeQ8K(randn(rng, 4*s.nb*quant.QK_K, 1), x, true)
			if extreme {
				x = kExtremeActs(rng, 4*s.nb)
			}
			const ostride = 70
			want := make([]float32, 4*ostride)
			for j := range 4 {
				a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[j*s.nb]), n: s.nb, out: &want[j*ostride]}
				gemvQ6KAVX512(&a, s.rows)
			}
			got := make([]float32, 4*ostride)
			b := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), n: s.nb, out: &got[0]}
			gemvQ6KX16AVX512(&b, s.rows)
			for i := range s.rows {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("rows=%d nb=%d extreme=%v: gemv out[%d] = %v, want %v", s.rows, s.nb, extreme, i, got[i], want[i])
				}
			}
			clear(got)
			for g := range s.rows / x16Rows {
				c := tileArgs{w: &p[g*s.nb*q6KX16BlockBytes], x: unsafe.Pointer(&x[0]), xstride: s.nb * 292, n: s.nb, out: &got[g*x16Rows], ostride: ostride}
				tileQ6KX16(&c)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("rows=%d nb=%d extreme=%v: tile out[%d] = %v, want %v", s.rows, s.nb, extreme, i, got[i], want[i])
				}
			}
			if !extreme && (want[0] == 0 || want[3*ostride+s.rows-1] == 0) {
				t.Fatalf("rows=%d nb=%d: outputs not written", s.rows, s.nb)
			}
		}
	}
}

// BenchmarkGemvQ6KX16 compares the sixteen-row Q6_K decode kernel with
// the file layout's AVX-512 gemv on weights of k = 2048 (64 rows: in the
// cache; 8192 rows: the two layouts together overflow the L3 cache of
// most CPUs; 65536 rows: from memory), alternating batches of calls, and
// reports the fastest batch of each in weight GB/s and their ratio.
func BenchmarkGemvQ6KX16(b *testing.B) {
	kernelSetFor(b, setAVX512)
	for _, rows := range []int{64, 8192, 65536} {
		const cols = 2048
		rng := rand.New(rand.NewPCG(37, 38))
		nb := cols / quant.QK_K
		rb := nb * q6KBytes
		w := kWeights(b, rng, quant.TypeQ6_K, nb*rows, 1)
		x := kActs(rng, nb, true)
		out := make([]float32, rows)
		p := make([]byte, q6KX16.size(rows, rb))
		packQ6KX16(p, w, 0, rows/x16Rows, nb)
		file := func() {
			for r := 0; r < rows; r += gemvRows {
				a := tileArgs{w: &w[r*rb], wstride: rb, x: unsafe.Pointer(&x[0]), n: nb, out: &out[r]}
				gemvQ6KAVX512(&a, gemvRows)
			}
		}
		x16 := func() {
			for r := 0; r < rows; r += 64 {
				a := tileArgs{w: &p[r/16*nb*q6KX16BlockBytes], x: unsafe.Pointer(&x[0]), n: nb, out: &out[r]}
				gemvQ6KX16AVX512(&a, 64)
			}
		}
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			compareLayouts(b, max(1, 4096/rows), len(w), file, x16)
		})
	}
}

// BenchmarkTileQ6KX16 compares the sixteen-row layout's prompt tile with
// the file layout's AVX-512 tile on
// cache-resident weights (k = 2048, 64 rows) and four activation rows,
// alternating batches, in weight GB/s and their ratio.
func BenchmarkTileQ6KX16(b *testing.B) {
	kernelSetFor(b, setAVX512)
	const rows, cols = 64, 2048
	rng := rand.New(rand.NewPCG(39, 40))
	nb := cols / quant.QK_K
	rb := nb * q6KBytes
	w := kWeights(b, rng, quant.TypeQ6_K, nb*rows, 1)
	x := make([]q8KBlock, 4*nb)
	quantizeQ8K(randn(rng, 4*nb*quant.QK_K, 1), x, true)
	out := make([]float32, 4*rows)
	p := make([]byte, q6KX16.size(rows, rb))
	packQ6KX16(p, w, 0, rows/x16Rows, nb)
	file := func() {
		a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 292, n: nb, out: &out[0], ostride: rows}
		tileQ6KAVX512(&a, rows)
	}
	x16 := func() {
		for g := range rows / x16Rows {
			a := tileArgs{w: &p[g*nb*q6KX16BlockBytes], x: unsafe.Pointer(&x[0]), xstride: nb * 292, n: nb, out: &out[g*x16Rows], ostride: rows}
			tileQ6KX16(&a)
		}
	}
	compareLayouts(b, 64, len(w), file, x16)
}

// compareLayouts runs file and x16, each batch times over a weight of
// bytes, alternating, and reports the fastest batch of each in weight GB/s
// and their ratio.
func compareLayouts(b *testing.B, batch, bytes int, file, x16 func()) {
	best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
	for b.Loop() {
		for i, fn := range []func(){file, x16} {
			t0 := time.Now()
			for range batch {
				fn()
			}
			best[i] = min(best[i], time.Since(t0))
		}
	}
	gbs := func(d time.Duration) float64 { return float64(bytes*batch) / d.Seconds() / 1e9 }
	b.ReportMetric(gbs(best[0]), "file-GB/s")
	b.ReportMetric(gbs(best[1]), "x16-GB/s")
	b.ReportMetric(float64(best[0])/float64(best[1]), "x")
}

// TestPackQ6KX16 checks packQ6KX16, which writes whole bytes, against the
// layout's definition element by element (the oracle's quants, decodeK's,
// into q6KX16Quad's place), over two groups of random super-blocks.
func TestPackQ6KX16(t *testing.T) {
	const groups, nb = 2, 3
	rng := rand.New(rand.NewPCG(6, 16))
	src := make([]byte, groups*x16Rows*nb*q6KBytes)
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	got := make([]byte, groups*nb*q6KX16BlockBytes)
	packQ6KX16(got, src, 0, groups, nb)
	want := make([]byte, len(got))
	var row rowK
	row.reset(quant.QK_K)
	for g := range groups {
		for b := range nb {
			o := want[(g*nb+b)*q6KX16BlockBytes:][:q6KX16BlockBytes]
			for r := range x16Rows {
				blk := src[((g*x16Rows+r)*nb+b)*q6KBytes:][:q6KBytes]
				copy(o[2*r:], blk[208:210])
				for p := range 8 {
					copy(o[32+32*p+2*r:][:2], blk[192+2*p:][:2])
				}
				decodeK(quant.TypeQ6_K, blk, &row)
				for e := range 256 {
					v := uint8(row.q[e] + 32)
					lo, ls, hi, hs := q6KX16Quad(e/32, e%32/4, e%4, r)
					o[lo] |= (v & 0xf) << ls
					o[hi] |= (v >> 4) << hs
				}
			}
		}
	}
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("packQ6KX16: byte %d is %#x, want %#x", i, got[i], want[i])
	}
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
