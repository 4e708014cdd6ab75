package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// ftileSet returns a kernel set with the single-row Q8_0 and float kernels
// and the Q8_0/float tile kernels alone, or skips when the CPU lacks AVX2,
// FMA or F16C.
func ftileSet(tb testing.TB) *kernelSet {
	tb.Helper()
	if detectKernels() == nil {
		tb.Skip("no AVX2/FMA/F16C")
	}
	k := newKernelSet("avx2")
	addAVX2Q8(k)
	addAVX2FloatTiles(k)
	return k
}

// ftileTypes are the weight types with Q8_0/float tiles.
var ftileTypes = []quant.Type{quant.TypeQ8_0, quant.TypeF16, quant.TypeBF16, quant.TypeF32}

// ftileCase is one tile of Q8_0 or float outputs: mr weight rows of n
// values (raw bytes, wstride apart), nr activation rows (xstride bytes
// apart: q8Blocks for Q8_0, float32 values otherwise, rounded to the
// weight type for F16 and BF16), outputs ostride floats apart.
type ftileCase struct {
	typ              quant.Type
	tk               tileKernel
	n                int // values per row
	w                []byte
	wstride          int
	xq               []q8Block
	xf               []float32
	xstride, ostride int
}

// args returns the tile's arguments with out as the outputs.
func (c *ftileCase) args(out []float32) tileArgs {
	a := tileArgs{w: &c.w[0], wstride: c.wstride, xstride: c.xstride, n: c.n, out: &out[0], ostride: c.ostride}
	if c.typ == quant.TypeQ8_0 {
		a.x, a.n = unsafe.Pointer(&c.xq[0]), c.n/32
	} else {
		a.x = unsafe.Pointer(&c.xf[0])
	}
	return a
}

// run calls the tile kernel and returns its outputs, out[j*ostride+i]; the
// slots between outputs hold a NaN pattern that must survive.
func (c *ftileCase) run() []float32 {
	out := make([]float32, c.tk.nr*c.ostride)
	for i := range out {
		out[i] = math.Float32frombits(0x7fc0dead)
	}
	a := c.args(out)
	c.tk.fn(&a)
	return out
}

// single returns output (i, j) from the single-row kernel and from the
// oracle (dot32 after decode32, or dotTiny on the widened weights).
func (c *ftileCase) single(k *kernelSet, i, j int) (simd, oracle float32) {
	w := c.w[i*c.wstride : i*c.wstride+c.n/c.typ.BlockSize()*c.typ.TypeSize()]
	if c.typ == quant.TypeQ8_0 {
		nb := c.n / 32
		x := c.xq[j*c.xstride/40 : j*c.xstride/40+nb]
		var r row32
		r.reset(c.n)
		decode32(c.typ, w, &r)
		return k.q8[c.typ](w, x), dot32(&r, x)
	}
	x := c.xf[j*c.xstride/4 : j*c.xstride/4+c.n]
	wf := make([]float32, c.n)
	for l := range wf {
		h := binary.LittleEndian.Uint16(w[2*l:])
		switch c.typ {
		case quant.TypeF16:
			wf[l] = quant.F16ToF32(h)
		case quant.TypeBF16:
			wf[l] = quant.BF16ToF32(h)
		case quant.TypeF32:
			wf[l] = math.Float32frombits(binary.LittleEndian.Uint32(w[4*l:]))
		}
	}
	switch c.typ {
	case quant.TypeF16:
		return k.f16Tiny(w, x), dotTiny(wf, x)
	case quant.TypeBF16:
		return k.bf16Tiny(w, x), dotTiny(wf, x)
	}
	return k.f32Tiny(wf, x), dotTiny(wf, x)
}

// ftileWeights returns one row of n weights of typ: quantized normals
// ("normal"), random bytes with scales about 3e4 (Q8_0, quants -128
// included) or values spread over many magnitudes, subnormals included
// ("extreme"), or zeros.
func ftileWeights(tb testing.TB, rng *rand.Rand, typ quant.Type, n int, kind string) []byte {
	tb.Helper()
	w := make([]byte, n/typ.BlockSize()*typ.TypeSize())
	switch kind {
	case "normal":
		if err := quant.Quantize(typ, randn(rng, n, 0.02), w); err != nil {
			tb.Fatal(err)
		}
	case "extreme":
		if typ == quant.TypeQ8_0 {
			return rawBlocks(rng, typ, n/32, 3e4)
		}
		f := make([]float32, n)
		for l := range f {
			f[l] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-8)))
		}
		if err := quant.Quantize(typ, f, w); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

// ftileActs fills activation row j of c: random normals (or, for
// "extreme", ±127 quants with large scales for Q8_0 and values over many
// magnitudes, subnormals included, for the float types), quantized to Q8_0
// or rounded to the weight type as the matrix product does.
func ftileActs(rng *rand.Rand, c *ftileCase, j int, kind string) {
	if c.typ == quant.TypeQ8_0 {
		nb := c.n / 32
		x := q8Acts(rng, nb, false)
		if kind == "extreme" {
			x = extremeActs(rng, nb, false)
		}
		copy(c.xq[j*c.xstride/40:], x)
		return
	}
	x := randn(rng, c.n, 1)
	if kind == "extreme" {
		for l := range x {
			x[l] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-40)))
		}
	}
	for l, v := range x {
		switch c.typ {
		case quant.TypeF16:
			v = roundF16(v)
		case quant.TypeBF16:
			v = roundBF16(v)
		}
		c.xf[j*c.xstride/4+l] = v
	}
}

// fill fills c's weight rows and activation rows with kind's values
// (ftileWeights, ftileActs).
func (c *ftileCase) fill(tb testing.TB, rng *rand.Rand, kind string) {
	for i := range c.tk.mr {
		copy(c.w[i*c.wstride:], ftileWeights(tb, rng, c.typ, c.n, kind))
	}
	for j := range c.tk.nr {
		ftileActs(rng, c, j, kind)
	}
}

// check runs c's tile kernel and checks every output bit for bit against
// the oracle and the single-row kernel of each set in ks, and the slots
// between the tile's outputs untouched.
func (c *ftileCase) check(t *testing.T, ks ...*kernelSet) {
	t.Helper()
	out := c.run()
	for j := range c.tk.nr {
		for i := range c.ostride {
			got := out[j*c.ostride+i]
			if i >= c.tk.mr {
				if math.Float32bits(got) != 0x7fc0dead {
					t.Fatalf("slot (%d,%d) outside the tile written", i, j)
				}
				continue
			}
			for _, k := range ks {
				want, oracle := c.single(k, i, j)
				if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
					t.Fatalf("output (%d,%d) = %v (%#x), %s single-row %v (%#x), oracle %v (%#x)",
						i, j, got, math.Float32bits(got), k.name, want, math.Float32bits(want), oracle, math.Float32bits(oracle))
				}
			}
		}
	}
}

// TestAVX2FloatTiles checks every Q8_0 and float tile kernel bit for bit
// against the single-row kernel and the oracle for each of its outputs:
// quantized normal weights and activations, extreme ones (Q8_0: random
// quants with -128 and large scales against ±127 activations; floats:
// values spread over 1e-40..1e20, subnormals included), all-zero weights;
// rows of 0 to 16 Ki values; row strides larger than a row; the output
// slots between the tile's outputs left untouched.
func TestAVX2FloatTiles(t *testing.T) {
	k := ftileSet(t)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, typ := range ftileTypes {
		tks := k.tiles[typ]
		if len(tks) == 0 {
			t.Fatalf("%v: no tile kernel", typ)
		}
		lengths := []int{0, 32, 64, 96, 160, 544, 4096, 16384}
		if typ != quant.TypeQ8_0 {
			lengths = append(lengths, 16, 48, 80, 4112)
		}
		for _, tk := range tks {
			for _, n := range lengths {
				for _, kind := range []string{"normal", "extreme", "zero"} {
					t.Run(fmt.Sprintf("%v/%dx%d/%d/%s", typ, tk.mr, tk.nr, n, kind), func(t *testing.T) {
						rb := n / typ.BlockSize() * typ.TypeSize()
						c := ftileCase{typ: typ, tk: tk, n: n, wstride: rb + 6, ostride: tk.mr + 3}
						c.w = make([]byte, tk.mr*c.wstride)
						if typ == quant.TypeQ8_0 {
							c.xstride = (n/32 + 1) * 40
							c.xq = make([]q8Block, tk.nr*(n/32+1))
						} else {
							c.xstride = 4 * (n + 8)
							c.xf = make([]float32, tk.nr*(n+8))
						}
						c.fill(t, rng, kind)
						c.check(t, k)
					})
				}
			}
		}
	}
}

// TestAVX2FloatTilesMatMul checks matrix products of Q8_0, F16 and BF16
// weights on the SIMD backend (tile kernels for the full tiles, single-row
// kernels for the edges) against the pure-Go oracle bit for bit, over
// shapes whose weight and activation row counts leave edges in both
// directions, batches smaller than a tile and of one row, and (for the
// float types) row lengths that are and are not multiples of 16.
func TestAVX2FloatTilesMatMul(t *testing.T) {
	fast := New(2)
	if fast.Kernels() == "go" {
		t.Skip("cpu: this CPU has no SIMD kernels (or SAJI_SIMD=off)")
	}
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(33, 34))
	shapes := []struct{ k, m, n int }{
		{32, 3, 4}, {64, 7, 9}, {96, 6, 2}, {256, 13, 3}, {512, 9, 13}, {1024, 17, 22}, {48, 5, 7}, {80, 4, 6}, {24, 5, 5}, {256, 70, 11}, {256, 70, 5},
		// One activation row: the float types' many-row decode kernels.
		{64, 5, 1}, {2048, 9, 1}, {96, 3, 1},
	}
	for _, typ := range []quant.Type{quant.TypeQ8_0, quant.TypeF16, quant.TypeBF16} {
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

// BenchmarkFloatTile measures each Q8_0 and float tile kernel on
// cache-resident data (one tile of weight rows against one tile of
// activation rows, k = 2048) against the single-row kernel computing the
// same outputs, in multiply-adds per nanosecond.
func BenchmarkFloatTile(b *testing.B) {
	k := ftileSet(b)
	const cols = 2048
	rng := rand.New(rand.NewPCG(35, 36))
	for _, typ := range ftileTypes {
		for _, tk := range k.tiles[typ] {
			rb := cols / typ.BlockSize() * typ.TypeSize()
			c := ftileCase{typ: typ, tk: tk, n: cols, wstride: rb, ostride: tk.mr}
			for range tk.mr {
				c.w = append(c.w, ftileWeights(b, rng, typ, cols, "normal")...)
			}
			if typ == quant.TypeQ8_0 {
				c.xstride = cols / 32 * 40
				c.xq = make([]q8Block, tk.nr*cols/32)
			} else {
				c.xstride = 4 * cols
				c.xf = make([]float32, tk.nr*cols)
			}
			for j := range tk.nr {
				ftileActs(rng, &c, j, "normal")
			}
			macs := float64(tk.mr * tk.nr * cols)
			b.Run(fmt.Sprintf("%v/%dx%d/tile", typ, tk.mr, tk.nr), func(b *testing.B) {
				out := make([]float32, tk.nr*c.ostride)
				a := c.args(out)
				for b.Loop() {
					tk.fn(&a)
				}
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
			b.Run(fmt.Sprintf("%v/%dx%d/single", typ, tk.mr, tk.nr), func(b *testing.B) {
				var s float32
				for b.Loop() {
					for j := range tk.nr {
						for i := range tk.mr {
							w := c.w[i*rb : (i+1)*rb]
							switch typ {
							case quant.TypeQ8_0:
								s += k.q8[typ](w, c.xq[j*cols/32:(j+1)*cols/32])
							case quant.TypeF16:
								s += k.f16Tiny(w, c.xf[j*cols:(j+1)*cols])
							case quant.TypeBF16:
								s += k.bf16Tiny(w, c.xf[j*cols:(j+1)*cols])
							case quant.TypeF32:
								s += k.f32Tiny(unsafe.Slice((*float32)(unsafe.Pointer(&w[0])), cols), c.xf[j*cols:(j+1)*cols])
							}
						}
					}
				}
				_ = s
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
		}
	}
}

// TestHalfRows checks the many-row decode kernels (F16 and BF16) of the
// AVX2, AVX-VNNI and AVX-512 sets bit for bit against the set's
// single-row kernel of each row, and the F16-activation form (f16RowsH)
// where the set has one against the float32 one: normal, extreme and
// zero values, one to five rows at a stride larger than a row, rows of 0
// to 16 Ki values (multiples of 64), the slot after the outputs left
// untouched.
func TestHalfRows(t *testing.T) {
	kernelSetFor(t, setAVX2)
	rng := rand.New(rand.NewPCG(69, 70))
	for _, set := range []string{setAVX2, setAVXVNNI, setAVX512} {
		t.Run(set, func(t *testing.T) { testHalfRows(t, rng, kernelSetFor(t, set)) })
	}
}

// testHalfRows is TestHalfRows on the kernel set k.
func testHalfRows(t *testing.T, rng *rand.Rand, k *kernelSet) {
	for _, typ := range []quant.Type{quant.TypeF16, quant.TypeBF16} {
		rows, vec := k.f16Rows, k.f16Body
		if typ == quant.TypeBF16 {
			rows, vec = k.bf16Rows, k.bf16Body
		}
		for _, n := range []int{0, 64, 128, 1024, 16384} {
			for _, kind := range []string{"normal", "extreme", "zero"} {
				for _, m := range []int{1, 2, 5} {
					t.Run(fmt.Sprintf("%v/%d/%s/%d", typ, n, kind, m), func(t *testing.T) {
						c := ftileCase{typ: typ, n: n, xstride: 4 * n, xf: make([]float32, n+1)}
						ftileActs(rng, &c, 0, kind)
						wstride := 2*n + 34
						w := make([]byte, m*wstride+1)
						for r := range m {
							copy(w[r*wstride:], ftileWeights(t, rng, typ, n, kind))
						}
						out := make([]float32, m+1)
						out[m] = math.Float32frombits(0x7fc0dead)
						rows(&w[0], wstride, &c.xf[0], n, &out[0], m)
						for r := range m {
							want := vec(&w[r*wstride], &c.xf[0], n)
							if math.Float32bits(out[r]) != math.Float32bits(want) {
								t.Fatalf("row %d: %v (%#x), single-row kernel %v (%#x)", r, out[r], math.Float32bits(out[r]), want, math.Float32bits(want))
							}
						}
						if math.Float32bits(out[m]) != 0x7fc0dead {
							t.Fatal("the slot after the outputs was written")
						}
						if typ != quant.TypeF16 || k.f16RowsH == nil || n == 0 {
							return
						}
						// The F16-activation kernel: the same bits from the
						// activations narrowed to F16, one byte past them
						// poisoned (nothing may read it).
						xh := make([]byte, 2*n+1)
						xh[2*n] = 0xff
						k.narrowF16(xh[:2*n], c.xf[:n])
						got := make([]float32, m+1)
						got[m] = math.Float32frombits(0x7fc0dead)
						k.f16RowsH(&w[0], wstride, &xh[0], n, &got[0], m)
						for r := range m {
							if math.Float32bits(got[r]) != math.Float32bits(out[r]) {
								t.Fatalf("row %d: F16 activations %v (%#x), float32 ones %v (%#x)", r, got[r], math.Float32bits(got[r]), out[r], math.Float32bits(out[r]))
							}
						}
						if math.Float32bits(got[m]) != 0x7fc0dead {
							t.Fatal("F16 activations: the slot after the outputs was written")
						}
					})
				}
			}
		}
	}
}

// TestF16TileH checks F16 matrix products through the tiles of F16
// activations (f16TileH: AVX2's and AVX-VNNI's 2×3, AVX-512's 16×6), on
// each set the CPU has, against the pure-Go oracle bit for bit: rows long
// enough that the set narrows its activations, weight and activation row
// counts that leave edges in both directions (the last tile overlapping
// the one before, single rows after the last full tile, blocks of six and
// five rows on AVX-512, several cache tiles), and activations
// at F16's extremes (its largest finite values, subnormals, zeros of both
// signs).
func TestF16TileH(t *testing.T) {
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(75, 76))
	shapes := []struct{ k, m, n int }{{2576, 7, 5}, {4096, 9, 13}, {8192, 5, 3}, {3072, 37, 20}, {2048, 33, 7},
		{2048, 32, 128}, {2048, 16, 23}, {16384, 17, 130}}
	for _, set := range []string{setAVX2, setAVXVNNI, setAVX512} {
		t.Run(set, func(t *testing.T) {
			k := kernelSetFor(t, set)
			if k.f16TileH == nil {
				t.Fatalf("%s: no F16 activation tile", set)
			}
			b, err := NewWithKernels(2, set)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range shapes {
				if k.f16TileHCol*s.k <= halfTileL1 {
					continue
				}
				w := randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k)))
				x := randn(rng, s.k*s.n, 1)
				x[0], x[1], x[2], x[3] = 65504, -65504, 6e-8, -6e-8
				x[4], x[5], x[len(x)-1] = float32(math.Copysign(0, -1)), 1e-5, -9
				w[0], w[1] = 60000, -3e-6
				got, want := matmulOn(t, b, quant.TypeF16, w, x, s.k, s.m, s.n), matmulOn(t, ref, quant.TypeF16, w, x, s.k, s.m, s.n)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%dx%dx%d: output %d (row %d, col %d): %v, oracle %v", s.k, s.m, s.n, i, i%s.m, i/s.m, got[i], want[i])
					}
				}
			}
		})
	}
}

// TestNarrowF16 checks each set's narrowF16 against quant.F32ToF16 bit for
// bit: values F16 holds exactly (as the matrix product narrows them), ties
// and values between, overflow to infinity, subnormals and underflow to
// zero, infinities and zeros of both signs, at lengths that leave a tail
// after the kernel's lanes; NaN stays NaN.
func TestNarrowF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, -65504, 65519, 65520, 1e6, float32(math.Inf(1)), float32(math.Inf(-1)),
		6e-8, 5.96e-8, 2.98e-8, 2.97e-8, -6.1e-5, 6.1035e-5, 1e-10, 1.00048828125, 1.000244140625, 1.000732421875, 2049, 2051, 0.1, -0.3}
	for _, set := range []string{setAVX2, setAVX512} {
		t.Run(set, func(t *testing.T) {
			k := kernelSetFor(t, set)
			for _, n := range []int{1, 7, 8, 15, 16, 17, 33, 200} {
				src := make([]float32, n)
				for i := range src {
					switch {
					case i < len(special) && i%2 == 0:
						src[i] = special[i]
					case i%3 == 0:
						src[i] = quant.F16ToF32(uint16(rng.Uint32()))
					default:
						src[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6)))
					}
				}
				src[n-1] = special[(n*7)%len(special)]
				if n > 3 {
					src[3] = float32(math.NaN())
				}
				dst := make([]byte, 2*n+2)
				k.narrowF16(dst[:2*n], src)
				for i, v := range src {
					got := uint16(dst[2*i]) | uint16(dst[2*i+1])<<8
					want := quant.F32ToF16(v)
					if v != v {
						if quant.F16ToF32(got) == quant.F16ToF32(got) {
							t.Fatalf("n=%d: value %d (NaN) narrowed to %#04x, not NaN", n, i, got)
						}
						continue
					}
					if got != want {
						t.Fatalf("n=%d: value %d (%g) narrowed to %#04x, F32ToF16 %#04x", n, i, v, got, want)
					}
				}
				if dst[2*n] != 0 || dst[2*n+1] != 0 {
					t.Fatalf("n=%d: bytes after the values written", n)
				}
			}
		})
	}
}

// TestWidenScalePairs checks widenScalePairs against quant.F16ToF32 on
// every F16 class (normals, subnormals, zeros, infinities), for block
// counts around its four-block step, in the file's layout and the one
// interleaved by four rows, and that it writes nothing past its blocks.
func TestWidenScalePairs(t *testing.T) {
	if detectKernels() == nil {
		t.Skip("no AVX2/FMA/F16C")
	}
	rng := rand.New(rand.NewPCG(71, 72))
	specials := []uint16{0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfc00, 0x7c00, 0x3c00}
	for _, nb := range []int{0, 1, 3, 4, 5, 8, 13} {
		for _, layout := range []struct {
			name         string
			rstep, bstep int
		}{{"file", nb * q80Bytes, q80Bytes}, {"interleaved", q80Bytes, interleaveRows * q80Bytes}} {
			w := make([]byte, 2*max(layout.rstep, q80Bytes)+nb*layout.bstep)
			for i := range w {
				w[i] = byte(rng.Uint32())
			}
			want := make([]float32, 2*nb)
			for b := range nb {
				for r := range 2 {
					o := r*layout.rstep + b*layout.bstep
					h := uint16(rng.Uint32())
					if rng.IntN(3) == 0 {
						h = specials[rng.IntN(len(specials))]
					}
					binary.LittleEndian.PutUint16(w[o:], h)
					want[2*b+r] = quant.F16ToF32(h)
				}
			}
			got := make([]float32, 2*nb+2)
			got[2*nb], got[2*nb+1] = 7, 7
			widenScalePairs(&got[0], &w[0], layout.rstep, layout.bstep, nb)
			for i, v := range want {
				if math.Float32bits(got[i]) != math.Float32bits(v) && !(v != v && got[i] != got[i]) {
					t.Errorf("%s nb=%d: scale %d (block %d, row %d) = %v, want %v", layout.name, nb, i, i/2, i%2, got[i], v)
				}
			}
			if got[2*nb] != 7 || got[2*nb+1] != 7 {
				t.Errorf("%s nb=%d: wrote past its %d scales", layout.name, nb, 2*nb)
			}
		}
	}
}

// TestQ8TileScales checks that the 2×4 Q8_0 tiles, given their scales
// widened ahead (tileKernel.scales and q8ActScales, as the matrix product
// gives them), compute every output bit for bit as they do gathering the
// scales themselves: chunk counts around q8Chunk, one pair of weight rows
// per call and two (the interleaved layout's), activation rows starting
// anywhere in the product's rows, on the AVX2 and AVX-VNNI tiles.
func TestQ8TileScales(t *testing.T) {
	tiles := []struct {
		set  string
		step func(a *tileArgs, rstep, bstep, pairs int)
	}{{setAVX2, tileQ8_0x2x4StepAVX2}, {setAVXVNNI, tileQ8_0x2x4StepVNNI}}
	rng := rand.New(rand.NewPCG(73, 74))
	for _, tile := range tiles {
		t.Run(tile.set, func(t *testing.T) {
			kernelSetFor(t, tile.set)
			for _, nb := range []int{1, 15, 16, 17, 40} {
				for _, kind := range []string{"normal", "extreme"} {
					const rows, n = 4, 7 // weight rows, activation rows
					rb := nb * q80Bytes
					var w []byte
					for range rows {
						w = append(w, ftileWeights(t, rng, quant.TypeQ8_0, 32*nb, kind)...)
					}
					x := make([]q8Block, n*nb)
					for j := range n {
						xs := q8Acts(rng, nb, false)
						if kind == "extreme" {
							xs = extremeActs(rng, nb, false)
						}
						copy(x[j*nb:], xs)
					}
					wd := make([]float32, rows*nb)
					xd := make([]float32, n*nb)
					for _, j := range []int{0, 2, 3} {
						for _, pairs := range []int{1, 2} {
							a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[j*nb]), xstride: nb * 40, n: nb, ostride: rows}
							gathered := make([]float32, 4*rows)
							a.out = &gathered[0]
							tile.step(&a, rb, q80Bytes, pairs)

							q8PairScales(a, rows, &wd[0])
							q8ActScales(xd, unsafe.Pointer(&x[0]), nb*40, n, nb)
							scaled := make([]float32, 4*rows)
							a.out, a.wd = &scaled[0], &wd[0]
							a.xd, a.xdstride = unsafe.Pointer(&xd[j]), 4*n
							tile.step(&a, rb, q80Bytes, pairs)
							for o, v := range gathered {
								if i := o % rows; i >= 2*pairs {
									if v != 0 || scaled[o] != 0 {
										t.Fatalf("nb=%d %s j=%d pairs=%d: output (%d, %d) written", nb, kind, j, pairs, i, o/rows)
									}
								} else if math.Float32bits(scaled[o]) != math.Float32bits(v) {
									t.Errorf("nb=%d %s j=%d pairs=%d: output (%d, %d) = %v with its scales widened ahead, %v gathered",
										nb, kind, j, pairs, i, o/rows, scaled[o], v)
								}
							}
						}
					}
				}
			}
		})
	}
}

// BenchmarkQ8Scales compares 2048×2048 Q8_0 matrix products (one thread,
// the activations' quantization included) whose tiles gather their
// blocks' scales with the same products given them widened ahead
// (tileKernel.scales), by activation rows, on AVX2 and AVX-VNNI: where
// q8ScaleRows comes from. Ratios above 1: widened ahead is faster.
func BenchmarkQ8Scales(b *testing.B) {
	const k, m = 2048, 2048
	rng := rand.New(rand.NewPCG(75, 76))
	data := make([]byte, m*k/32*q80Bytes)
	if err := quant.Quantize(quant.TypeQ8_0, randn(rng, k*m, 0.02), data); err != nil {
		b.Fatal(err)
	}
	defer func(rows int) { q8ScaleRows = rows }(q8ScaleRows)
	for _, set := range []string{setAVX2, setAVXVNNI} {
		if CheckKernelSet(set) != nil {
			continue
		}
		bk, err := NewWithKernels(1, set)
		if err != nil {
			b.Fatal(err)
		}
		wt, err := bk.Weight(quant.TypeQ8_0, []int{k, m}, data)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{4, 8, 12, 16, 32, 128} {
			xt, _ := bk.New(quant.TypeF32, k, n)
			if err := bk.Write(xt, randn(rng, k*n, 1)); err != nil {
				b.Fatal(err)
			}
			dst, _ := bk.New(quant.TypeF32, m, n)
			product := func(rows int) func() {
				return func() {
					q8ScaleRows = rows
					if err := bk.MatMul(dst, wt, xt); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.Run(fmt.Sprintf("%s/n=%d", set, n), func(b *testing.B) {
				pairCompare(b, "gathered", product(n+1), "widened", product(n))
			})
		}
	}
}
