package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"saji/kernels/quant"
)

// zFloatTypes are the weight types with AVX-512 float tiles.
var zFloatTypes = []quant.Type{quant.TypeF16, quant.TypeBF16, quant.TypeF32}

// widenRow returns the float32 values of a row of F16, BF16 or F32
// weights.
func widenRow(typ quant.Type, w []byte) []float32 {
	f := make([]float32, len(w)/typ.TypeSize())
	for l := range f {
		switch typ {
		case quant.TypeF16:
			f[l] = quant.F16ToF32(binary.LittleEndian.Uint16(w[2*l:]))
		case quant.TypeBF16:
			f[l] = quant.BF16ToF32(binary.LittleEndian.Uint16(w[2*l:]))
		default:
			f[l] = math.Float32frombits(binary.LittleEndian.Uint32(w[4*l:]))
		}
	}
	return f
}

// TestAVX512FloatTiles checks every AVX-512 float tile bit for bit against
// the AVX2 single-row kernel, the AVX-512 set's single-row kernel and the
// oracle (dotTiny on the widened weights) for each of its outputs, over the
// cases of TestAVX2FloatTiles (normal, extreme and zero values; rows of 0
// to 16 Ki values; row strides larger than a row; the output slots between
// the tile's outputs untouched).
func TestAVX512FloatTiles(t *testing.T) {
	skipUnderRace(t)
	k := kernelSetFor(t, setAVX512)
	k2 := kernelSetFor(t, setAVX2)
	rng := rand.New(rand.NewPCG(51, 52))
	for _, typ := range zFloatTypes {
		six := zFloatTile(typ)
		if best := k.tile(typ, 128); best == nil || best.mr != six.mr || best.nr != six.nr {
			t.Fatalf("%v: the avx512 set's tile for 128 rows is %+v, want the %dx%d AVX-512 tile", typ, best, six.mr, six.nr)
		}
		if six.short == nil || six.short.nr != six.nr-1 {
			t.Fatalf("%v: the %dx%d tile's short tile is %+v, want one of %d rows", typ, six.mr, six.nr, six.short, six.nr-1)
		}
		for _, tk := range []tileKernel{six, *six.short} {
			for _, n := range []int{0, 16, 32, 48, 80, 160, 512, 528, 544, 1040, 4096, 4112, 16384} {
				for _, kind := range []string{"normal", "extreme", "zero"} {
					t.Run(fmt.Sprintf("%v/%dx%d/%d/%s", typ, tk.mr, tk.nr, n, kind), func(t *testing.T) {
						rb := n * typ.TypeSize()
						c := ftileCase{typ: typ, tk: tk, n: n, wstride: rb + 6, ostride: tk.mr + 3}
						if typ == quant.TypeF32 {
							c.wstride = rb + 12 // the F32 weights stay 4-byte aligned
						}
						c.w = make([]byte, tk.mr*c.wstride)
						c.xstride = 4 * (n + 8)
						c.xf = make([]float32, tk.nr*(n+8))
						c.fill(t, rng, kind)
						c.check(t, k2, k)
					})
				}
			}
		}
	}
}

// TestAVX512FloatDots checks the AVX-512 single-row dotVec kernels (F16,
// BF16, F32) bit for bit against the oracle and the AVX2 kernels: normal,
// extreme (values over many magnitudes, subnormals included) and zero
// weights against normal and extreme activations, rows of 0 to 16 Ki + 17
// values (tails after the last 64 included).
func TestAVX512FloatDots(t *testing.T) {
	k := kernelSetFor(t, setAVX512)
	k2 := kernelSetFor(t, setAVX2)
	rng := rand.New(rand.NewPCG(59, 60))
	for _, typ := range zFloatTypes {
		for _, n := range []int{0, 1, 15, 16, 48, 63, 64, 65, 100, 128, 200, 1040, 4096 + 17, 16384} {
			for _, kind := range []string{"normal", "extreme", "zero"} {
				c := ftileCase{typ: typ, n: n, xstride: 4 * n, xf: make([]float32, n+1)}
				ftileActs(rng, &c, 0, kind)
				x := c.xf[:n]
				w := ftileWeights(t, rng, typ, n, kind)
				wf := widenRow(typ, w)
				var got, old float32
				switch typ {
				case quant.TypeF16:
					got, old = k.f16Vec(w, x), k2.f16Vec(w, x)
				case quant.TypeBF16:
					got, old = k.bf16Vec(w, x), k2.bf16Vec(w, x)
				default:
					got, old = k.f32Vec(wf, x), k2.f32Vec(wf, x)
				}
				want := dotVec(wf, x, typ != quant.TypeF32)
				if g := math.Float32bits(got); g != math.Float32bits(want) || g != math.Float32bits(old) {
					t.Errorf("%v/%d/%s: AVX-512 %v (%#x), AVX2 %v (%#x), oracle %v (%#x)",
						typ, n, kind, got, g, old, math.Float32bits(old), want, math.Float32bits(want))
				}
			}
		}
	}
}

// TestAVX512FloatMatMul checks F16, BF16 and F32 matrix products on the
// avx512 set (AVX-512 tiles for the full tiles, single-row kernels for the
// edges and for one activation row) against the pure-Go oracle and the
// avx2 set bit for bit, over shapes whose weight and activation row counts
// leave edges in both directions, batches smaller than a tile and of one
// row, long rows, and row lengths that are and are not multiples of 16.
func TestAVX512FloatMatMul(t *testing.T) {
	kernelSetFor(t, setAVX512)
	fast, err := NewWithKernels(2, setAVX512)
	if err != nil {
		t.Fatal(err)
	}
	avx2, err := NewWithKernels(2, setAVX2)
	if err != nil {
		t.Fatal(err)
	}
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(53, 54))
	shapes := []struct{ k, m, n int }{
		{64, 16, 6}, {32, 35, 13}, {96, 48, 2}, {256, 17, 7}, {528, 33, 12}, {1040, 64, 19}, {48, 20, 8}, {24, 18, 9}, {2048, 32, 128}, {16384, 16, 35}, {2048, 37, 13},
		{2048, 33, 1}, {1040, 12, 1}, {100, 9, 1}, {64, 4, 1}, {4096, 21, 1},
		// Batches that go in blocks of six and five rows (20: four of
		// five; 23: three of six, one of five; 127: seventeen of six, five
		// of five), and one of 16 Ki values a row in several cache tiles
		// (F16: 60, 60 and 10 rows, the last two blocks of five).
		{64, 16, 20}, {256, 33, 23}, {2048, 32, 127}, {16384, 16, 130},
		// Rows with a tail past their 64s and no tiny order (k not a multiple
		// of 16): halfVecBlocks for F16 (two weight rows by three activation
		// rows, groups of 18, odd rows and columns left over), halfVecRows,
		// four activation rows at a time and the rest.
		{100, 9, 11}, {1060, 7, 9}, {3420, 3, 5}, {40, 5, 6}, {1060, 37, 41}, {3420, 16, 20}, {200, 2, 3},
	}
	for _, typ := range zFloatTypes {
		for _, s := range shapes {
			t.Run(fmt.Sprintf("%v/%dx%dx%d", typ, s.k, s.m, s.n), func(t *testing.T) {
				w := randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k)))
				x := randn(rng, s.k*s.n, 1)
				x[0], x[len(x)-1] = 9, -9
				got := matmulOn(t, fast, typ, w, x, s.k, s.m, s.n)
				want, old := matmulOn(t, ref, typ, w, x, s.k, s.m, s.n), matmulOn(t, avx2, typ, w, x, s.k, s.m, s.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(got[i]) != math.Float32bits(old[i]) {
						t.Fatalf("output %d (row %d, col %d): %v, oracle %v, avx2 %v", i, i%s.m, i/s.m, got[i], want[i], old[i])
					}
				}
			})
		}
	}
}

// BenchmarkAVX512FloatTile measures the AVX-512 float tiles against the
// AVX2 2×3 tiles computing the same outputs (16 weight rows by 6
// activation rows of k = 2048, cache-resident), in multiply-adds per
// nanosecond.
func BenchmarkAVX512FloatTile(b *testing.B) {
	k := kernelSetFor(b, setAVX512)
	const cols = 2048
	rng := rand.New(rand.NewPCG(55, 56))
	for _, typ := range zFloatTypes {
		tk := zFloatTile(typ)
		old := k.tiles[typ][0] // the AVX2 2×3 tile
		rb := cols * typ.TypeSize()
		c := ftileCase{typ: typ, tk: tk, n: cols, wstride: rb, ostride: tk.mr, xstride: 4 * cols}
		for range tk.mr {
			c.w = append(c.w, ftileWeights(b, rng, typ, cols, "normal")...)
		}
		c.xf = make([]float32, tk.nr*cols)
		for j := range tk.nr {
			ftileActs(rng, &c, j, "normal")
		}
		macs := float64(tk.mr * tk.nr * cols)
		out := make([]float32, tk.nr*c.ostride)
		a := c.args(out)
		b.Run(fmt.Sprintf("%v/avx512", typ), func(b *testing.B) {
			for b.Loop() {
				tk.fn(&a)
			}
			b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
		b.Run(fmt.Sprintf("%v/avx2", typ), func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < tk.mr; i += old.mr {
					for j := 0; j < tk.nr; j += old.nr {
						s := a
						s.w = (*byte)(unsafe.Add(unsafe.Pointer(a.w), i*a.wstride))
						s.x = unsafe.Add(a.x, j*a.xstride)
						s.out = &out[j*c.ostride+i]
						old.fn(&s)
					}
				}
			}
			b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
		})
	}
}

// BenchmarkAVX512FloatMatMul measures one thread's share of F16 and BF16
// matrix products (the tiled loop the matrix product runs on each thread,
// on the benchmark's goroutine) through Llama-3.2-1B's attention
// projection (k = 2048) and feed-forward down projection (k = 8192), 1024
// weight rows, for a 128-token prompt and for one token (decode), on the
// avx2 and the avx512 sets' kernels in turn, in multiply-adds per
// nanosecond. The decode weights (4 and 16 MiB) stay in L3 between runs,
// so the decode figures are the kernels' speed, not the memory's.
func BenchmarkAVX512FloatMatMul(b *testing.B) {
	sets := map[string]*kernelSet{setAVX512: kernelSetFor(b, setAVX512), setAVX2: kernelSetFor(b, setAVX2)}
	const m = 1024
	rng := rand.New(rand.NewPCG(57, 58))
	for _, typ := range []quant.Type{quant.TypeF16, quant.TypeBF16} {
		for _, s := range []struct {
			name string
			k    int
		}{{"attn", 2048}, {"ffn_down", 8192}} {
			data := make([]byte, m*s.k*typ.TypeSize())
			if err := quant.Quantize(typ, randn(rng, s.k*m, 0.02), data); err != nil {
				b.Fatal(err)
			}
			for _, n := range []int{128, 1} {
				c := ftileCase{typ: typ, n: s.k, xstride: 4 * s.k, xf: make([]float32, n*s.k)}
				for j := range n {
					ftileActs(rng, &c, j, "normal")
				}
				out := make([]float32, m*n)
				base := tileArgs{w: &data[0], wstride: 2 * s.k, x: unsafe.Pointer(&c.xf[0]), xstride: 4 * s.k, n: s.k, out: &out[0], ostride: m}
				for _, set := range []string{setAVX2, setAVX512} {
					k := sets[set]
					dot, tk := k.halfDot(dotBF16, n, s.k), k.tile(typ, n)
					if typ == quant.TypeF16 {
						dot = k.halfDot(dotF16, n, s.k)
					}
					single := func(i, j0, j1 int) {
						for j := j0; j < j1; j++ {
							out[j*m+i] = dot(data[i*2*s.k:(i+1)*2*s.k], c.xf[j*s.k:(j+1)*s.k])
						}
					}
					b.Run(fmt.Sprintf("%v/%s/n=%d/%s", typ, s.name, n, set), func(b *testing.B) {
						t0, runs := time.Now(), 0
						for b.Loop() {
							if tk == nil {
								tiledRows(0, m, 0, n, rowTile(n, 4*s.k), single)
							} else {
								tk.blocks(0, m, 0, n, tk.rowTile(n, 4*s.k), base, 0, single)
							}
							runs++
						}
						b.ReportMetric(float64(s.k*m*n)*float64(runs)/float64(time.Since(t0).Nanoseconds()), "MAC/ns")
					})
				}
			}
		}
	}
}
