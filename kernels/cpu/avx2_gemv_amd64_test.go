package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// avx2GemvSet returns a kernel set with the single-row kernels and the
// decode tiles only, or skips when the CPU lacks AVX2, FMA or F16C.
func avx2GemvSet(tb testing.TB) *kernelSet {
	tb.Helper()
	k := avx2KSet(tb)
	addAVX2Q8(k)
	addAVX2Gemv(k)
	return k
}

// gemvAsmK holds the decode tiles' assembly by K-quant type, to run more
// than one group of four weight rows per call.
var gemvAsmK = map[quant.Type]func(a *tileArgs, rows int){
	quant.TypeQ4_K: gemvQ4KAVX2,
	quant.TypeQ6_K: gemvQ6KAVX2,
}

// TestAVX2GemvK checks every K-quant decode tile bit for bit against the
// single-row kernel and the oracle for each output: quantized normal
// weights and activations, random weight bytes with large scales against
// ±127 and zero activations, all-zero weights; 1 to 17 super-blocks; row
// strides larger than a row, and none (every row the same bytes); the
// tile through its table entry (gemm bit clear and set) and the assembly
// over three groups of rows; the output slots after the tile's outputs
// left untouched.
func TestAVX2GemvK(t *testing.T) {
	k := avx2GemvSet(t)
	rng := rand.New(rand.NewPCG(31, 32))
	for typ, tks := range k.tiles {
		if typ.BlockSize() != quant.QK_K {
			continue
		}
		single := k.q8K[typ]
		for _, tk := range tks {
			if tk.nr != 1 {
				continue
			}
			for _, nb := range []int{1, 2, 3, 5, 17} {
				for _, wk := range []string{"normal", "raw-large", "extreme", "zero"} {
					for _, call := range []string{"tile", "tile-gemm", "asm12", "asm12-stride0"} {
						t.Run(fmt.Sprintf("%v/%dx1/%d/%s/%s", typ, tk.mr, nb, wk, call), func(t *testing.T) {
							asm := call == "asm12" || call == "asm12-stride0"
							rows := tk.mr
							if asm {
								rows = 12
							}
							gemm := call == "tile-gemm"
							rb := nb * typ.TypeSize()
							wstride := rb + 13
							if call == "asm12-stride0" {
								wstride = 0
							}
							w := make([]byte, max(rows*wstride, rb))
							for i := range rows {
								var wr []byte
								switch wk {
								case "normal":
									wr = kWeights(t, rng, typ, nb, 1)
								case "raw-large":
									wr = kRawWeights(rng, typ, nb, 30000)
								case "extreme":
									wr = kRawWeights(rng, typ, nb, 1)
								case "zero":
									wr = make([]byte, rb)
								}
								copy(w[i*wstride:], wr)
							}
							var x []q8KBlock
							if wk == "normal" || wk == "zero" {
								x = kActs(rng, nb, gemm)
							} else {
								x = kExtremeActs(rng, nb)
							}
							out := make([]float32, rows+3)
							for i := range out {
								out[i] = math.Float32frombits(0x7fc0dead)
							}
							a := tileArgs{w: &w[0], wstride: wstride, x: unsafe.Pointer(&x[0]), xstride: nb * 292,
								n: nb, out: &out[0], ostride: 1}
							if gemm {
								a.gemm = 1
							}
							if asm {
								gemvAsmK[typ](&a, rows)
							} else {
								tk.fn(&a)
							}
							for i, got := range out {
								if i >= rows {
									if math.Float32bits(got) != 0x7fc0dead {
										t.Fatalf("slot %d after the tile written", i)
									}
									continue
								}
								wr := w[i*wstride : i*wstride+rb]
								want, oracle := single(wr, x, gemm), oracleK(typ, wr, x, gemm)
								if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
									t.Fatalf("output %d = %v (%#x), single-row %v (%#x), oracle %v",
										i, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
								}
							}
						})
					}
				}
			}
		}
	}
}

// gemvAsm32 holds the decode tiles' assembly by 32-block type.
var gemvAsm32 = map[quant.Type]func(a *tileArgs, rows int){
	quant.TypeQ8_0: gemvQ80AVX2,
}

// TestAVX2Gemv32 checks every 32-block decode tile bit for bit against the
// single-row kernel and the oracle for each output: quantized normal
// weights, random blocks (including Q8_0's -128) with small and large
// scales against normal and ±127 activations, all-zero weights; 1 to 127
// blocks; row strides larger than a row; the tile through its table entry
// and the assembly over three groups of rows; the slots after the outputs
// left untouched.
func TestAVX2Gemv32(t *testing.T) {
	k := avx2GemvSet(t)
	rng := rand.New(rand.NewPCG(39, 40))
	for typ, asm := range gemvAsm32 {
		_, sums, _ := dotKindOf(typ)
		single := k.q8[typ]
		var tk *tileKernel
		for i := range k.tiles[typ] {
			if k.tiles[typ][i].nr == 1 {
				tk = &k.tiles[typ][i]
			}
		}
		if tk == nil {
			t.Fatalf("%v: no decode tile registered", typ)
		}
		for _, nb := range []int{1, 2, 3, 17, 127} {
			for _, wk := range []string{"normal", "raw", "extreme", "zero"} {
				for _, call := range []string{"tile", "asm12"} {
					t.Run(fmt.Sprintf("%v/%d/%s/%s", typ, nb, wk, call), func(t *testing.T) {
						rows := tk.mr
						if call == "asm12" {
							rows = 12
						}
						rb := nb * typ.TypeSize()
						wstride := rb + 7
						w := make([]byte, rows*wstride)
						for i := range rows {
							var wr []byte
							switch wk {
							case "normal":
								wr = make([]byte, rb)
								if err := quant.Quantize(typ, randn(rng, 32*nb, 0.02), wr); err != nil {
									t.Fatal(err)
								}
							case "raw":
								wr = rawBlocks(rng, typ, nb, 0.01)
							case "extreme":
								wr = rawBlocks(rng, typ, nb, 3e4)
							case "zero":
								wr = make([]byte, rb)
							}
							copy(w[i*wstride:], wr)
						}
						x := q8Acts(rng, nb, sums)
						if wk == "extreme" {
							x = extremeActs(rng, nb, sums)
						}
						out := make([]float32, rows+3)
						for i := range out {
							out[i] = math.Float32frombits(0x7fc0dead)
						}
						a := tileArgs{w: &w[0], wstride: wstride, x: unsafe.Pointer(&x[0]), xstride: nb * 40,
							n: nb, out: &out[0], ostride: 1}
						if call == "asm12" {
							asm(&a, rows)
						} else {
							tk.fn(&a)
						}
						for i, got := range out {
							if i >= rows {
								if math.Float32bits(got) != 0x7fc0dead {
									t.Fatalf("slot %d after the tile written", i)
								}
								continue
							}
							wr := w[i*wstride : i*wstride+rb]
							var r row32
							r.reset(32 * nb)
							decode32(typ, wr, &r)
							want, oracle := single(wr, x), dot32(&r, x)
							if math.Float32bits(got) != math.Float32bits(want) || math.Float32bits(got) != math.Float32bits(oracle) {
								t.Fatalf("output %d = %v (%#x), single-row %v (%#x), oracle %v",
									i, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
							}
						}
					})
				}
			}
		}
	}
}

// TestAVX2GemvMatMul checks matrix products of one to three activation
// rows running the decode tiles against the pure-Go oracle bit for bit,
// over weight row counts that are not multiples of the tile (so edge rows
// go to the single-row kernels) and split over two threads.
func TestAVX2GemvMatMul(t *testing.T) {
	fast := New(2)
	if fast.Kernels() == "go" {
		t.Skip("cpu: this CPU has no SIMD kernels (or SAJI_SIMD=off)")
	}
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(33, 34))
	shapes := []struct{ k, m, n int }{{256, 4, 1}, {512, 13, 1}, {768, 6, 2}, {256, 9, 3}, {2048, 67, 1}}
	for typ, tks := range fast.k.tiles {
		if !gemvTile(tks) {
			continue
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

// gemvTile reports whether tks holds a decode tile (one activation row).
func gemvTile(tks []tileKernel) bool {
	for _, tk := range tks {
		if tk.nr == 1 {
			return true
		}
	}
	return false
}

// withoutGemv gives b a copy of its kernel set without the decode tiles,
// so that a batch of one goes through the single-row kernels.
func withoutGemv(b *Backend) {
	ks := *b.k
	ks.tiles = map[quant.Type][]tileKernel{}
	for t, tks := range b.k.tiles {
		for _, tk := range tks {
			if tk.nr != 1 {
				ks.tiles[t] = append(ks.tiles[t], tk)
			}
		}
	}
	b.k = &ks
}

// BenchmarkGemvMatMul compares decode matrix products (one activation row)
// with the decode tiles ("tiles") and without them ("rows", the single-row
// kernels), in weight GB/s: BenchmarkMatMul's attn and ffn_up shapes, whose
// weights (2-18 MB) mostly stream from the L3 cache, and for Q4_K and Q6_K
// a 64 MB matrix (k = 4096, random weight bytes) that streams from memory,
// on one and two threads.
func BenchmarkGemvMatMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(35, 36))
	shapes := []struct {
		name string
		k, m int
	}{{"attn", 2048, 2048}, {"ffn_up", 2048, 8192}, {"dram", 4096, 0}}
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ8_0, quant.TypeF16, quant.TypeQ5_K, quant.TypeQ4_0} {
		if bk := New(1); bk.Kernels() == "go" || !gemvTile(bk.k.tiles[typ]) {
			continue
		}
		for _, s := range shapes {
			var data []byte
			m := s.m
			if m == 0 {
				if typ.BlockSize() != quant.QK_K {
					continue
				}
				nb := s.k / quant.QK_K
				m = (64 << 20) / (nb * typ.TypeSize()) / 64 * 64
				data = kRawWeights(rng, typ, nb*m, 1)
			} else {
				data = make([]byte, m*s.k/typ.BlockSize()*typ.TypeSize())
				if err := quant.Quantize(typ, randn(rng, s.k*m, 0.02), data); err != nil {
					b.Fatal(err)
				}
			}
			x := randn(rng, s.k, 1)
			for _, threads := range []int{1, 2} {
				if threads == 2 && s.m != 0 {
					continue
				}
				for _, kind := range []string{"rows", "tiles"} {
					bk := New(threads)
					if kind == "rows" {
						withoutGemv(bk)
					}
					b.Run(fmt.Sprintf("%v/%s/t=%d/%s", typ, s.name, threads, kind), func(b *testing.B) {
						wt, _ := bk.Weight(typ, []int{s.k, m}, data)
						xt, _ := bk.New(quant.TypeF32, s.k, 1)
						_ = bk.Write(xt, x)
						dst, _ := bk.New(quant.TypeF32, m, 1)
						for b.Loop() {
							if err := bk.MatMul(dst, wt, xt); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(len(data))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
					})
				}
			}
		}
	}
}

// BenchmarkGemv measures each K-quant decode tile on cache-resident data
// (k = 2048, 64 weight rows: 72-105 KB) against the single-row kernel
// computing the same outputs, in weight GB/s.
func BenchmarkGemv(b *testing.B) {
	k := avx2GemvSet(b)
	const cols, rows = 2048, 64
	rng := rand.New(rand.NewPCG(37, 38))
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ5_K} {
		asm := gemvAsmK[typ]
		if asm == nil {
			continue
		}
		nb := cols / quant.QK_K
		rb := nb * typ.TypeSize()
		w := kWeights(b, rng, typ, nb*rows, 1)
		x := kActs(rng, nb, false)
		out := make([]float32, rows)
		b.Run(fmt.Sprintf("%v/tile", typ), func(b *testing.B) {
			a := tileArgs{w: &w[0], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 292, n: nb, out: &out[0], ostride: rows}
			for b.Loop() {
				asm(&a, rows)
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
		b.Run(fmt.Sprintf("%v/single", typ), func(b *testing.B) {
			dot := k.q8K[typ]
			for b.Loop() {
				for i := range rows {
					out[i] = dot(w[i*rb:(i+1)*rb], x, false)
				}
			}
			b.ReportMetric(float64(len(w))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
