package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// TestAVX2MXFP4Dot checks the AVX2 MXFP4 kernel against dot32 bit for bit.
func TestAVX2MXFP4Dot(t *testing.T) {
	k := avx2Kernels(t)
	checkMXFP4Kernel(t, "avx2", k.q8[quant.TypeMXFP4], func(rng *rand.Rand, nb int) []q8Block {
		return extremeActs(rng, nb, false)
	})
}

// mxTileAsm is an MXFP4 tile's assembly, which runs over rows weight rows
// (a multiple of the tile's mr) itself.
type mxTileAsm func(a *tileArgs, rows int, scales *[256]float32)

// TestAVX2MXFP4Tiles checks the AVX2 MXFP4 tiles bit for bit against the
// single-row kernel and the oracle for each output (a NaN matching any
// NaN): quantized weights, random blocks with exponents about 2^-7 and
// over the whole E8M0 range, ±127 activations, all-zero weights; 1 to 127
// blocks; weight and activation strides larger than a row; each tile
// through its table entry and its assembly over three groups of rows; the
// output slots between and after the tile's outputs left untouched.
func TestAVX2MXFP4Tiles(t *testing.T) {
	k := kernelSetFor(t, setAVX2)
	checkMXFP4Tiles(t, k, map[int]mxTileAsm{1: gemvMXFP4AVX2, mxTileCols: tileMXFP4AVX2})
}

// TestAVX512MXFP4Tiles checks the AVX-512 VNNI MXFP4 tiles as
// TestAVX2MXFP4Tiles checks the AVX2 ones.
func TestAVX512MXFP4Tiles(t *testing.T) {
	k := kernelSetFor(t, setAVX512)
	checkMXFP4Tiles(t, k, map[int]mxTileAsm{1: gemvMXFP4AVX512, mxTileCols: tileMXFP4AVX512})
}

// checkMXFP4Tiles runs TestAVX2MXFP4Tiles's cases on the MXFP4 tiles of k,
// asm holding each tile's assembly by its nr.
func checkMXFP4Tiles(t *testing.T, k *kernelSet, asm map[int]mxTileAsm) {
	t.Helper()
	single := k.q8[quant.TypeMXFP4]
	if len(k.tiles[quant.TypeMXFP4]) != len(asm) {
		t.Fatalf("%d MXFP4 tiles registered, want %d", len(k.tiles[quant.TypeMXFP4]), len(asm))
	}
	// Each tile runs through its table entry (the set's kernel) and as
	// the assembly asm names (gemvMXFP4AVX512 is tested, though the
	// AVX-512 set keeps the AVX2 decode tile).
	rng := rand.New(rand.NewPCG(41, 42))
	for _, tk := range k.tiles[quant.TypeMXFP4] {
		for _, nb := range []int{1, 2, 3, 5, 17, 127} {
			for _, call := range []string{"tile", "asm"} {
				rows := tk.mr
				if call == "asm" {
					rows = 3 * tk.mr
				}
				cases := make([][]mxfp4Case, rows+tk.nr)
				for i := range cases {
					cases[i] = mxfp4Cases(rng, nb, func(rng *rand.Rand, nb int) []q8Block { return extremeActs(rng, nb, false) })
				}
				for ci, c := range cases[0] {
					t.Run(fmt.Sprintf("%dx%d/%d/%s/%s", tk.mr, tk.nr, nb, c.name, call), func(t *testing.T) {
						rb := 17 * nb
						wstride, xstride, ostride := rb+7, (nb+1)*40, rows+3
						w := make([]byte, rows*wstride)
						for i := range rows {
							copy(w[i*wstride:], cases[i][ci].w)
						}
						x := make([]q8Block, tk.nr*(nb+1))
						for j := range tk.nr {
							copy(x[j*(nb+1):], cases[rows+j][ci].x)
						}
						out := make([]float32, tk.nr*ostride)
						for i := range out {
							out[i] = math.Float32frombits(0x7fc0dead)
						}
						a := tileArgs{w: &w[0], wstride: wstride, x: unsafe.Pointer(&x[0]), xstride: xstride,
							n: nb, out: &out[0], ostride: ostride}
						if call == "asm" {
							asm[tk.nr](&a, rows, &e8m0HalfTable)
						} else {
							tk.fn(&a)
						}
						for j := range tk.nr {
							xr := x[j*(nb+1) : j*(nb+1)+nb]
							for i := range ostride {
								got := out[j*ostride+i]
								if i >= rows {
									if math.Float32bits(got) != 0x7fc0dead {
										t.Fatalf("slot (%d,%d) outside the tile written", i, j)
									}
									continue
								}
								wr := w[i*wstride : i*wstride+rb]
								var r row32
								r.reset(32 * nb)
								decode32(quant.TypeMXFP4, wr, &r)
								want, oracle := single(wr, xr), dot32(&r, xr)
								if !sameFloat(got, want) || !sameFloat(got, oracle) {
									t.Fatalf("output (%d,%d) = %v (%#x), single-row %v (%#x), oracle %v",
										i, j, got, math.Float32bits(got), want, math.Float32bits(want), oracle)
								}
							}
						}
					})
				}
			}
		}
	}
}

// sameFloat reports whether a and b have the same bits or are both NaN.
func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// BenchmarkMXFP4Tiles compares the MXFP4 tiles of the AVX2 set and of the
// AVX-512 set (where the CPU has it) with the single-row kernel computing
// the same outputs, in one process: a tile's weight rows (k = 2880,
// gpt-oss-20b's rows) against its activation rows, on cache-resident data,
// and decode over 16 Ki rows (47 MB) that stream from memory; in weight
// bytes per nanosecond (GB/s).
func BenchmarkMXFP4Tiles(b *testing.B) {
	sets := map[string]*kernelSet{"avx2": kernelSetFor(b, setAVX2)}
	if CheckKernelSet(setAVX512) == nil {
		sets["avx512"] = buildSet(setAVX512)
	}
	const cols = 2880
	nb := cols / 32
	rb := 17 * nb
	rng := rand.New(rand.NewPCG(43, 44))
	single := sets["avx2"].q8[quant.TypeMXFP4]
	for ti, tk0 := range sets["avx2"].tiles[quant.TypeMXFP4] {
		for _, rows := range []int{tk0.mr, 16384} {
			if rows > tk0.mr && tk0.nr > 1 {
				continue
			}
			w := make([]byte, rows*rb)
			if err := quant.Quantize(quant.TypeMXFP4, randn(rng, rows*cols, 0.02), w); err != nil {
				b.Fatal(err)
			}
			x := make([]q8Block, tk0.nr*nb)
			quantizeQ8(randn(rng, tk0.nr*cols, 1), x, false)
			out := make([]float32, tk0.nr*rows)
			bytes := float64(len(w))
			name := fmt.Sprintf("%dx%d/rows=%d", tk0.mr, tk0.nr, rows)
			for _, set := range []string{"avx2", "avx512"} {
				if sets[set] == nil {
					continue
				}
				tk := sets[set].tiles[quant.TypeMXFP4][ti]
				b.Run(name+"/"+set, func(b *testing.B) {
					for b.Loop() {
						for i := 0; i < rows; i += tk.mr {
							a := tileArgs{w: &w[i*rb], wstride: rb, x: unsafe.Pointer(&x[0]), xstride: nb * 40,
								n: nb, out: &out[i], ostride: rows}
							tk.fn(&a)
						}
					}
					b.ReportMetric(bytes*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
				})
			}
			b.Run(name+"/single", func(b *testing.B) {
				for b.Loop() {
					for j := range tk0.nr {
						for i := range rows {
							out[j*rows+i] = single(w[i*rb:(i+1)*rb], x[j*nb:(j+1)*nb])
						}
					}
				}
				b.ReportMetric(bytes*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
			})
		}
	}
}
