package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"saji/kernels/quant"
)

// TestVNNIMacros checks VNNI_DPBUSD and VNNI_DPWSSD (avxvnni_amd64.h) on
// every register in every operand position against their definition,
// with wrapping int32 sums, on random bytes and on the extremes (0xff
// unsigned bytes, -128 signed bytes, -32768 words).
func TestVNNIMacros(t *testing.T) {
	kernelSetFor(t, setAVXVNNI)
	rng := rand.New(rand.NewPCG(41, 42))
	for rep := range 20 {
		var in [3][32]byte
		for r := range in {
			for i := range in[r] {
				switch rep {
				case 0:
					in[r][i] = 0x80
				case 1:
					in[r][i] = 0xff
				default:
					in[r][i] = byte(rng.Uint32())
				}
			}
		}
		var out [2 * vnniChecks][32]byte
		vnniMacroCheck(&in, &out)
		for l := range 8 {
			acc := int32(binary.LittleEndian.Uint32(in[2][4*l:]))
			busd, wssd := acc, acc
			for k := range 4 {
				busd += int32(in[0][4*l+k]) * int32(int8(in[1][4*l+k]))
			}
			for k := range 2 {
				u := int16(binary.LittleEndian.Uint16(in[0][4*l+2*k:]))
				s := int16(binary.LittleEndian.Uint16(in[1][4*l+2*k:]))
				wssd += int32(u) * int32(s)
			}
			for c := range 2 * vnniChecks {
				want, name := busd, "VNNI_DPBUSD"
				if c >= vnniChecks {
					want, name = wssd, "VNNI_DPWSSD"
				}
				i := c % vnniChecks
				if got := int32(binary.LittleEndian.Uint32(out[c][4*l:])); got != want {
					t.Fatalf("rep %d: %s(S=Y%d, U=Y%d, D=Y%d) lane %d = %d, want %d", rep, name, (i+11)%16, (i+5)%16, i, l, got, want)
				}
			}
		}
	}
}

// vnniKDots pairs each AVX-VNNI single-row kernel with the AVX2 kernel it
// replaces.
var vnniKDots = []struct {
	typ        quant.Type
	vnni, avx2 func(w *byte, x *q8KBlock, n int, gemm bool) float32
}{
	{quant.TypeQ4_K, dotQ4KVNNI, dotQ4KAVX2},
	{quant.TypeQ6_K, dotQ6KVNNI, dotQ6KAVX2},
	{quant.TypeQ5_K, dotQ5KVNNI, dotQ5KAVX2},
}

// TestVNNIKDots checks each AVX-VNNI single-row K-quant kernel bit for bit
// against the AVX2 kernel and the oracle: quantized normal and small
// weights, random weight bytes with normal and large scales against
// normal, ±127 and zero activations, all-zero weights, over 1 to 64
// super-blocks, gemm off and on.
func TestVNNIKDots(t *testing.T) {
	skipUnderRace(t)
	kernelSetFor(t, setAVXVNNI)
	rng := rand.New(rand.NewPCG(43, 44))
	for _, kd := range vnniKDots {
		typ := kd.typ
		vnni, avx2 := kKernel(kd.vnni, typ), kKernel(kd.avx2, typ)
		cases := []struct {
			name string
			w    func(nb int) []byte
			x    func(nb int, grouped bool) []q8KBlock
		}{
			{"normal", func(nb int) []byte { return kWeights(t, rng, typ, nb, 1) },
				func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
			{"small", func(nb int) []byte { return kWeights(t, rng, typ, nb, 1e-3) },
				func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
			{"raw", func(nb int) []byte { return kRawWeights(rng, typ, nb, 2) },
				func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
			{"raw-large", func(nb int) []byte { return kRawWeights(rng, typ, nb, 30000) },
				func(nb int, _ bool) []q8KBlock { return kExtremeActs(rng, nb) }},
			{"extreme", func(nb int) []byte { return kRawWeights(rng, typ, nb, 1) },
				func(nb int, _ bool) []q8KBlock { return kExtremeActs(rng, nb) }},
			{"zero", func(nb int) []byte { return make([]byte, nb*typ.TypeSize()) },
				func(nb int, g bool) []q8KBlock { return kActs(rng, nb, g) }},
		}
		for _, c := range cases {
			for _, nb := range []int{1, 2, 3, 5, 16, 17, 64} {
				for _, gemm := range []bool{false, true} {
					t.Run(fmt.Sprintf("%v/%s/%d/gemm=%v", typ, c.name, nb, gemm), func(t *testing.T) {
						for rep := range 3 {
							w, x := c.w(nb), c.x(nb, gemm)
							got, want, oracle := vnni(w, x, gemm), avx2(w, x, gemm), oracleK(typ, w, x, gemm)
							if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
								t.Fatalf("rep %d: got %v (%#x), avx2 %v (%#x), oracle %v", rep, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
							}
						}
					})
				}
			}
		}
		if got := vnni(nil, nil, false); math.Float32bits(got) != 0 {
			t.Errorf("%v: empty row gives %v, want +0", typ, got)
		}
	}
}

// vnniTiles lists the AVX-VNNI K-quant tile kernels by type: the table
// entries, and the assembly over three tiles' worth of weight rows (in
// the orders it takes whole: gemv, and for the 4×4 tiles all-gemm), with
// the AVX2 single-row kernel each output must equal.
var vnniTiles = []struct {
	typ   quant.Type
	name  string
	tk    tileKernel
	masks []uint64 // nil: every mask of the tile
	avx2  func(w *byte, x *q8KBlock, n int, gemm bool) float32
}{
	{quant.TypeQ4_K, "tile", tileKernel{mr: tileRowsK, nr: 4, fn: tileQ4KV}, nil, dotQ4KAVX2},
	{quant.TypeQ4_K, "tile-asm12", tileKernel{mr: 12, nr: 4, fn: func(a *tileArgs) { tileQ4KVNNI(a, 12, a.gemm != 0) }},
		[]uint64{0, 15}, dotQ4KAVX2},
	{quant.TypeQ4_K, "gemv", tileKernel{mr: gemvRows, nr: 1, fn: gemvQ4KV}, nil, dotQ4KAVX2},
	{quant.TypeQ4_K, "gemv-asm12", tileKernel{mr: 12, nr: 1, fn: func(a *tileArgs) { gemvQ4KVNNI(a, 12) }},
		[]uint64{0}, dotQ4KAVX2},
	{quant.TypeQ6_K, "tile", tileKernel{mr: tileRowsK, nr: 4, fn: tileQ6KV}, nil, dotQ6KAVX2},
	{quant.TypeQ6_K, "tile-asm12", tileKernel{mr: 12, nr: 4, fn: func(a *tileArgs) { tileQ6KVNNI(a, 12) }},
		[]uint64{0}, dotQ6KAVX2},
	{quant.TypeQ6_K, "gemv", decodeKernel(gemvRows, gemvRowsK(gemvQ6KVNNI)), nil, dotQ6KAVX2},
	{quant.TypeQ6_K, "gemv-asm12", tileKernel{mr: 12, nr: 1, fn: func(a *tileArgs) { gemvQ6KVNNI(a, 12) }},
		[]uint64{0}, dotQ6KAVX2},
}

// TestVNNITilesK checks every AVX-VNNI K-quant tile and decode tile bit
// for bit against the AVX2 single-row kernel and the oracle for each of
// its outputs: quantized normal weights and activations, random weight
// bytes with large scales against ±127 and zero activations, all-zero
// weights; 1 to 17 super-blocks; row strides larger than a row; every
// gemm mask of the tile (mixed ones included); the output slots between
// the tile's outputs left untouched.
func TestVNNITilesK(t *testing.T) {
	skipUnderRace(t)
	kernelSetFor(t, setAVXVNNI)
	rng := rand.New(rand.NewPCG(45, 46))
	for _, vt := range vnniTiles {
		typ, tk := vt.typ, vt.tk
		single := kKernel(vt.avx2, typ)
		masks := vt.masks
		if masks == nil {
			for m := range uint64(1 << tk.nr) {
				masks = append(masks, m)
			}
		}
		for _, nb := range []int{1, 2, 3, 5, 17} {
			for _, wk := range []string{"normal", "raw-large", "extreme", "zero"} {
				t.Run(fmt.Sprintf("%v/%s/%dx%d/%d/%s", typ, vt.name, tk.mr, tk.nr, nb, wk), func(t *testing.T) {
					rb := nb * typ.TypeSize()
					c := tileCase{typ: typ, tk: tk, nb: nb, wstride: rb + 13, xstride: (nb + 1) * 292, ostride: tk.mr + 3}
					c.w = make([]byte, tk.mr*c.wstride)
					c.x = make([]q8KBlock, tk.nr*(nb+1))
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
									t.Fatalf("mask %b: output (%d,%d) = %v (%#x), avx2 %v (%#x), oracle %v",
										mask, i, j, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestVNNIMatMul checks matrix products on the AVX-VNNI set against the
// pure-Go oracle bit for bit, for every weight type it has kernels for,
// over shapes that leave edges in both directions, so that prompt tiles,
// decode tiles and single rows all run.
func TestVNNIMatMul(t *testing.T) {
	kernelSetFor(t, setAVXVNNI)
	rng := rand.New(rand.NewPCG(47, 48))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K, quant.TypeQ8_0, quant.TypeQ4_0, quant.TypeIQ4_NL} {
		for _, shape := range [][3]int{{512, 13, 1}, {512, 9, 3}, {256, 17, 7}, {768, 8, 9}, {256, 37, 10}} {
			k, m, n := shape[0], shape[1], shape[2]
			t.Run(fmt.Sprintf("%v/%dx%dx%d", typ, k, m, n), func(t *testing.T) {
				w := randn(rng, k*m, 0.05)
				data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
				if err := quant.Quantize(typ, w, data); err != nil {
					t.Fatal(err)
				}
				x := randn(rng, k*n, 1)
				var outs [2][]float32
				for bi, name := range []string{setAVXVNNI, "go"} {
					b, err := NewWithKernels(1, name)
					if err != nil {
						t.Fatal(err)
					}
					wt, err := b.Weight(typ, []int{k, m}, data)
					if err != nil {
						t.Fatal(err)
					}
					xt, _ := b.New(quant.TypeF32, k, n)
					if err := b.Write(xt, x); err != nil {
						t.Fatal(err)
					}
					dst, _ := b.New(quant.TypeF32, m, n)
					if err := b.MatMul(dst, wt, xt); err != nil {
						t.Fatal(err)
					}
					outs[bi] = make([]float32, m*n)
					if err := b.Read(dst, outs[bi]); err != nil {
						t.Fatal(err)
					}
				}
				for i := range outs[0] {
					if math.Float32bits(outs[0][i]) != math.Float32bits(outs[1][i]) {
						t.Fatalf("output %d = %v, oracle %v", i, outs[0][i], outs[1][i])
					}
				}
			})
		}
	}
}

// vnniCompare is pairCompare of the AVX2 kernels' avx2 and the AVX-VNNI
// kernels' vnni (ratios above 1: the VNNI kernel is faster).
func vnniCompare(b *testing.B, avx2, vnni func()) { pairCompare(b, "avx2", avx2, "vnni", vnni) }

// pairCompare measures first and second (one call each of the same work,
// named fn and sn) in alternating batches of about 20µs, so that both see
// the same load on a shared machine, and reports each one's fastest batch
// per call (fn-min-ns, sn-min-ns) and the ratios first/second of the
// fastest and the median batches (above 1: second is faster).
func pairCompare(b *testing.B, fn string, first func(), sn string, second func()) {
	b.Helper()
	n := 1
	for {
		t := time.Now()
		for range n {
			first()
		}
		if time.Since(t) > 20*time.Microsecond {
			break
		}
		n *= 2
	}
	var ta, tv []float64
	batch := func(f func()) float64 {
		t := time.Now()
		for range n {
			f()
		}
		return float64(time.Since(t).Nanoseconds()) / float64(n)
	}
	for b.Loop() {
		if len(ta)%2 == 0 {
			ta, tv = append(ta, batch(first)), append(tv, batch(second))
		} else {
			tv, ta = append(tv, batch(second)), append(ta, batch(first))
		}
	}
	slices.Sort(ta)
	slices.Sort(tv)
	b.ReportMetric(ta[0], fn+"-min-ns")
	b.ReportMetric(tv[0], sn+"-min-ns")
	b.ReportMetric(ta[0]/tv[0], "min-ratio")
	b.ReportMetric(ta[len(ta)/2]/tv[len(tv)/2], "median-ratio")
}

// BenchmarkVNNI compares each AVX-VNNI K-quant kernel with the AVX2 kernel
// it replaces (vnniCompare) on the same cache-resident data (k = 4096):
// the single-row kernels on one row, the prompt tiles over 64 weight rows
// by four activation rows (gemm order for Q4_K), the decode tiles over 64
// weight rows. Take the medians of -count 5.
func BenchmarkVNNI(b *testing.B) {
	kernelSetFor(b, setAVXVNNI)
	const cols, rows = 4096, 64
	nb := cols / quant.QK_K
	rng := rand.New(rand.NewPCG(49, 50))
	type pair struct {
		name       string
		vnni, avx2 func(a *tileArgs, rows int)
	}
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K} {
		rb := nb * typ.TypeSize()
		w := kWeights(b, rng, typ, nb*rows, 1)
		x := kActs(rng, nb*4, true)
		out := make([]float32, 4*rows)
		a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 292, n: nb,
			out: &out[0], ostride: rows, gemm: 15}
		var pairs []pair
		switch typ {
		case quant.TypeQ4_K:
			pairs = []pair{
				{"tile4x4", func(a *tileArgs, r int) { tileQ4KVNNI(a, r, true) }, func(a *tileArgs, r int) { tileQ4KAVX2(a, r, true) }},
				{"gemv", gemvQ4KVNNI, gemvQ4KAVX2},
			}
		case quant.TypeQ6_K:
			pairs = []pair{{"tile4x4", tileQ6KVNNI, tileQ6KAVX2}, {"gemv", gemvQ6KVNNI, gemvQ6KAVX2}}
		}
		for _, p := range pairs {
			b.Run(fmt.Sprintf("%v/%s", typ, p.name), func(b *testing.B) {
				vnniCompare(b, func() { p.avx2(&a, rows) }, func() { p.vnni(&a, rows) })
			})
		}
		for _, kd := range vnniKDots {
			if kd.typ == typ {
				b.Run(fmt.Sprintf("%v/single", typ), func(b *testing.B) {
					vnniCompare(b, func() { kd.avx2(&w[0], &x[0], nb, true) }, func() { kd.vnni(&w[0], &x[0], nb, true) })
				})
			}
		}
	}
}

// vnni32Dots pairs each AVX-VNNI single-row kernel for 32-blocks with the
// AVX2 kernel it replaces and the block size.
var vnni32Dots = []struct {
	typ        quant.Type
	vnni, avx2 func(w *byte, x *q8Block, n int) float32
}{
	{quant.TypeQ8_0, dotQ8_0VNNI, dotQ8_0AVX2},
	{quant.TypeQ4_0, dotQ4_0VNNI, dotQ4_0AVX2},
	{quant.TypeIQ4_NL, dotIQ4NLVNNI, dotIQ4NLAVX2},
}

// TestVNNI32Dots checks each AVX-VNNI single-row kernel for 32-blocks bit
// for bit against the AVX2 kernel and the oracle (dot32) over 1 to 512
// blocks: quantized normal weights, random blocks (Q8_0's -128 included)
// with small and large scales against normal and ±127 activations,
// all-zero weights, and the empty row.
func TestVNNI32Dots(t *testing.T) {
	kernelSetFor(t, setAVXVNNI)
	rng := rand.New(rand.NewPCG(55, 56))
	for _, kd := range vnni32Dots {
		typ := kd.typ
		vnni, avx2 := q8Kernel(kd.vnni, typ.TypeSize()), q8Kernel(kd.avx2, typ.TypeSize())
		for _, nb := range blockCounts {
			w := make([]byte, nb*typ.TypeSize())
			if err := quant.Quantize(typ, randn(rng, 32*nb, 0.02), w); err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				name string
				w    []byte
				x    []q8Block
			}{
				{"quantized", w, q8Acts(rng, nb, false)},
				{"raw", rawBlocks(rng, typ, nb, 0.01), q8Acts(rng, nb, false)},
				{"extreme", rawBlocks(rng, typ, nb, 3e4), extremeActs(rng, nb, false)},
				{"zero", make([]byte, nb*typ.TypeSize()), q8Acts(rng, nb, false)},
			}
			for _, c := range cases {
				var r row32
				r.reset(32 * nb)
				decode32(typ, c.w, &r)
				got, want, oracle := vnni(c.w, c.x), avx2(c.w, c.x), dot32(&r, c.x)
				if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
					t.Errorf("%v/%d/%s: got %v (%#x), avx2 %v (%#x), oracle %v", typ, nb, c.name, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
				}
			}
		}
		if got := vnni(nil, nil); math.Float32bits(got) != 0 {
			t.Errorf("%v: empty row gives %v, want +0", typ, got)
		}
	}
}

// TestVNNIQ8_0 checks the AVX-VNNI Q8_0 tiles bit for bit against the
// AVX2 single-row kernel and the oracle (dot32): the decode tile (table
// entry and the assembly over twelve rows) and the 2×4 prompt tile over 0
// to 127 blocks, with
// quantized normal weights, random blocks (-128 included) with small and
// large scales against normal and ±127 activations, all-zero weights; row
// strides larger than a row; the slots between outputs left untouched.
func TestVNNIQ8_0(t *testing.T) {
	kernelSetFor(t, setAVXVNNI)
	avx2 := kernelSetFor(t, setAVX2)
	typ := quant.TypeQ8_0
	rng := rand.New(rand.NewPCG(51, 52))
	weights := func(nb int, kind string) []byte {
		switch kind {
		case "normal":
			w := make([]byte, nb*34)
			if err := quant.Quantize(typ, randn(rng, 32*nb, 0.02), w); err != nil {
				t.Fatal(err)
			}
			return w
		case "raw":
			return rawBlocks(rng, typ, nb, 0.01)
		case "extreme":
			return rawBlocks(rng, typ, nb, 3e4)
		}
		return make([]byte, nb*34)
	}
	acts := func(nb int, kind string) []q8Block {
		if kind == "extreme" {
			return extremeActs(rng, nb, false)
		}
		return q8Acts(rng, nb, false)
	}
	check := func(t *testing.T, what string, got float32, w []byte, x []q8Block) {
		t.Helper()
		var r row32
		r.reset(32 * len(x))
		decode32(typ, w, &r)
		want, oracle := avx2.q8[typ](w, x), dot32(&r, x)
		if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
			t.Fatalf("%s = %v (%#x), avx2 %v (%#x), oracle %v", what, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
		}
	}
	kinds := []string{"normal", "raw", "extreme", "zero"}
	tiles := []struct {
		name string
		tk   tileKernel
	}{
		{"gemv", decodeKernel(gemvRows, gemvQ80RowsV)},
		{"gemv-asm12", tileKernel{mr: 12, nr: 1, fn: func(a *tileArgs) { gemvQ80VNNI(a, 12) }}},
		{"tile2x4", tileKernel{mr: 2, nr: 4, fn: tileQ8_0x2x4VNNI}},
	}
	for _, tl := range tiles {
		tk := tl.tk
		for _, nb := range []int{0, 1, 2, 3, 17, 127} {
			for _, kind := range kinds {
				t.Run(fmt.Sprintf("%s/%d/%s", tl.name, nb, kind), func(t *testing.T) {
					rb := nb * 34
					wstride := rb + 7
					w := make([]byte, tk.mr*wstride+1)
					for i := range tk.mr {
						copy(w[i*wstride:], weights(nb, kind))
					}
					xstride := nb + 1
					x := make([]q8Block, tk.nr*xstride)
					for j := range tk.nr {
						copy(x[j*xstride:], acts(nb, kind))
					}
					ostride := tk.mr + 3
					out := make([]float32, tk.nr*ostride)
					for i := range out {
						out[i] = math.Float32frombits(0x7fc0dead)
					}
					a := tileArgs{w: &w[0], wstride: wstride, x: unsafe.Pointer(&x[0]), xstride: xstride * 40,
						n: nb, out: &out[0], ostride: ostride}
					if nb == 0 && tk.mr == 12 {
						return // the assembly needs a block
					}
					tk.fn(&a)
					for j := range tk.nr {
						for i := range ostride {
							got := out[j*ostride+i]
							if i >= tk.mr {
								if math.Float32bits(got) != 0x7fc0dead {
									t.Fatalf("slot (%d,%d) outside the tile written", i, j)
								}
								continue
							}
							check(t, fmt.Sprintf("output (%d,%d)", i, j), got, w[i*wstride:i*wstride+rb], x[j*xstride:j*xstride+nb])
						}
					}
				})
			}
		}
	}
}

// BenchmarkVNNIQ8_0 compares the AVX-VNNI 32-block kernels with the AVX2
// ones (vnniCompare) on the same cache-resident data (k = 4096): the Q8_0
// decode tile over 64 weight rows, the Q8_0 2×4 tile over 64 weight rows
// by four activation rows, and the single-row kernels (Q8_0, Q4_0,
// IQ4_NL) on one row. Take the medians of -count 5.
func BenchmarkVNNIQ8_0(b *testing.B) {
	kernelSetFor(b, setAVXVNNI)
	const cols, rows = 4096, 64
	nb := cols / 32
	rb := nb * 34
	rng := rand.New(rand.NewPCG(53, 54))
	w := make([]byte, rows*rb)
	if err := quant.Quantize(quant.TypeQ8_0, randn(rng, rows*cols, 0.02), w); err != nil {
		b.Fatal(err)
	}
	x := q8Acts(rng, 4*nb, false)
	out := make([]float32, 4*rows)
	a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 40, n: nb, out: &out[0], ostride: rows}
	tile := func(f func(*tileArgs)) func() {
		return func() {
			for i := 0; i < rows; i += 2 {
				t := a
				t.w, t.out = &w[i*rb], &out[i]
				f(&t)
			}
		}
	}
	b.Run("Q8_0/gemv", func(b *testing.B) {
		vnniCompare(b, func() { gemvQ80AVX2(&a, rows) }, func() { gemvQ80VNNI(&a, rows) })
	})
	b.Run("Q8_0/tile2x4", func(b *testing.B) {
		vnniCompare(b, tile(tileQ8_0x2x4AVX2), tile(tileQ8_0x2x4VNNI))
	})
	// The same tiles with their scales widened ahead, as the matrix
	// product gives them (tileKernel.scales).
	wd := make([]float32, rows*nb)
	xd := make([]float32, 4*nb)
	q8PairScales(a, rows, &wd[0])
	q8ActScales(xd, a.x, a.xstride, 4, nb)
	scaled := func(f func(*tileArgs)) func() {
		return func() {
			for i := 0; i < rows; i += 2 {
				t := a
				t.w, t.out, t.wd = &w[i*rb], &out[i], &wd[i*nb]
				t.xd, t.xdstride = unsafe.Pointer(&xd[0]), 4*4
				f(&t)
			}
		}
	}
	b.Run("Q8_0/tile2x4/scaled", func(b *testing.B) {
		vnniCompare(b, scaled(tileQ8_0x2x4AVX2), scaled(tileQ8_0x2x4VNNI))
	})
	for _, kd := range vnni32Dots {
		// The first row's bytes serve as blocks of every type.
		b.Run(fmt.Sprintf("%v/single", kd.typ), func(b *testing.B) {
			vnniCompare(b, func() { kd.avx2(&w[0], &x[0], nb) }, func() { kd.vnni(&w[0], &x[0], nb) })
		})
	}
}

// BenchmarkVNNIMatMul compares whole matrix products on the AVX2 and the
// AVX-VNNI kernel sets (vnniCompare, one thread): 2048×2048 weights
// against a prompt of 128 activation rows and against one (decode), the
// activations' quantization included. Take the medians of -count 5.
func BenchmarkVNNIMatMul(b *testing.B) {
	kernelSetFor(b, setAVXVNNI)
	const k, m = 2048, 2048
	rng := rand.New(rand.NewPCG(57, 58))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ8_0} {
		data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
		if err := quant.Quantize(typ, randn(rng, k*m, 0.02), data); err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{128, 1} {
			x := randn(rng, k*n, 1)
			var run [2]func()
			for i, name := range []string{setAVX2, setAVXVNNI} {
				bk, err := NewWithKernels(1, name)
				if err != nil {
					b.Fatal(err)
				}
				wt, err := bk.Weight(typ, []int{k, m}, data)
				if err != nil {
					b.Fatal(err)
				}
				xt, _ := bk.New(quant.TypeF32, k, n)
				if err := bk.Write(xt, x); err != nil {
					b.Fatal(err)
				}
				dst, _ := bk.New(quant.TypeF32, m, n)
				run[i] = func() {
					if err := bk.MatMul(dst, wt, xt); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.Run(fmt.Sprintf("%v/n=%d", typ, n), func(b *testing.B) { vnniCompare(b, run[0], run[1]) })
		}
	}
}

// TestVNNISetTiles checks that the AVX-VNNI set has one tile of each
// shape the AVX2 set has for the types it replaces, and no more.
func TestVNNISetTiles(t *testing.T) {
	vnni := kernelSetFor(t, setAVXVNNI)
	avx2 := kernelSetFor(t, setAVX2)
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ8_0} {
		shapes := func(tks []tileKernel) map[[2]int]int {
			m := map[[2]int]int{}
			for _, tk := range tks {
				m[[2]int{tk.mr, tk.nr}]++
			}
			return m
		}
		got, want := shapes(vnni.tiles[typ]), shapes(avx2.tiles[typ])
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: tile shapes %v, the AVX2 set's %v", typ, got, want)
		}
	}
}
