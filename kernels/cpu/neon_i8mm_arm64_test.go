package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// neonTile is one arm64 tile to compute: mr weight rows of nb blocks,
// wstride bytes apart, against nr activation rows (Q8_0 or Q8_K, one block
// more than a row apart), outputs ostride floats apart, and the gemm bits.
type neonTile struct {
	typ     quant.Type
	tk      tileKernel
	nb      int
	w       []byte
	wstride int
	x32     []q8Block
	xK      []q8KBlock
	ostride int
	gemm    uint64
}

// fill sets the tile's weights (quantized normal floats, raw bytes, the
// extreme pattern of weightRow, or all zero) and activations (the same
// kinds, with activation row 1 all zero for raw weights).
func (c *neonTile) fill(t *testing.T, rng *rand.Rand, kind string) {
	rb := c.nb * c.typ.TypeSize()
	c.w = make([]byte, c.tk.mr*c.wstride)
	for i := range c.tk.mr {
		if kind != "zero" {
			copy(c.w[i*c.wstride:], weightRow(t, rng, c.typ, c.nb, kind))
		}
		for p := i*c.wstride + rb; p < (i+1)*c.wstride; p++ {
			c.w[p] = 0xa5 // bytes between rows, which must not be read as weights
		}
	}
	ak := kind
	if kind == "zero" {
		ak = "quant"
	}
	c.x32, c.xK = nil, nil
	for j := range c.tk.nr {
		if c.typ.BlockSize() == quant.QK_K {
			x := actQ8K(rng, c.nb+1, ak, c.gemm&(1<<j) != 0)
			if kind == "raw" && j == 1 {
				x = make([]q8KBlock, c.nb+1)
			}
			c.xK = append(c.xK, x...)
		} else {
			x := actQ8(rng, c.nb+1, ak, false)
			if kind == "raw" && j == 1 {
				for b := range x {
					x[b].q = [32]int8{}
				}
			}
			c.x32 = append(c.x32, x...)
		}
	}
}

// run calls the tile kernel and returns its outputs, out[j*ostride+i];
// the slots between outputs hold a NaN pattern that must survive.
func (c *neonTile) run() []float32 {
	out := make([]float32, c.tk.nr*c.ostride)
	for i := range out {
		out[i] = math.Float32frombits(0x7fc0dead)
	}
	a := tileArgs{w: &c.w[0], wstride: c.wstride, n: c.nb, out: &out[0], ostride: c.ostride, gemm: c.gemm}
	if c.xK != nil {
		a.x, a.xstride = unsafe.Pointer(&c.xK[0]), (c.nb+1)*int(unsafe.Sizeof(q8KBlock{}))
	} else {
		a.x, a.xstride = unsafe.Pointer(&c.x32[0]), (c.nb+1)*int(unsafe.Sizeof(q8Block{}))
	}
	c.tk.fn(&a)
	return out
}

// want returns output (i, j) of the single-row kernel of k and of the
// oracle.
func (c *neonTile) want(k *kernelSet, i, j int) (single, oracle float32) {
	single, w := c.wantSingle(k, i, j)
	if c.xK != nil {
		x, gemm := c.xK[j*(c.nb+1):j*(c.nb+1)+c.nb], c.gemm&(1<<j) != 0
		var r rowK
		r.reset(quant.QK_K * c.nb)
		decodeK(c.typ, w, &r)
		return single, dotK(&r, x, gemm)
	}
	x := c.x32[j*(c.nb+1) : j*(c.nb+1)+c.nb]
	var r row32
	r.reset(32 * c.nb)
	decode32(c.typ, w, &r)
	return single, dot32(&r, x)
}

// wantSingle returns output (i, j) of the single-row kernel of k, and
// weight row i.
func (c *neonTile) wantSingle(k *kernelSet, i, j int) (float32, []byte) {
	w := c.w[i*c.wstride : i*c.wstride+c.nb*c.typ.TypeSize()]
	if c.xK != nil {
		return k.q8K[c.typ](w, c.xK[j*(c.nb+1):j*(c.nb+1)+c.nb], c.gemm&(1<<j) != 0), w
	}
	return k.q8[c.typ](w, c.x32[j*(c.nb+1):j*(c.nb+1)+c.nb]), w
}

// TestNEONTiles checks every tile kernel of every arm64 set bit for bit
// against the set's single-row kernel and the oracle for each output:
// quantized normal weights and activations, raw weight bytes with an
// all-zero activation row, the extreme pattern (±127 quants, the largest
// scales), all-zero weights; 1 to 17 blocks; row strides larger than a
// row; every gemm mask for the types that have one; the output slots
// between the tile's outputs left untouched. A set the CPU lacks is
// skipped with what it lacks.
func TestNEONTiles(t *testing.T) {
	for _, name := range kernelSetNames {
		t.Run(name, func(t *testing.T) {
			k := kernelSetFor(t, name)
			rng := rand.New(rand.NewPCG(31, 32))
			checked := 0
			defer func() { t.Logf("%d outputs checked", checked) }()
			for typ, tks := range k.tiles {
				for _, tk := range tks {
					masks := []uint64{0}
					if typ == quant.TypeQ4_K || typ == quant.TypeQ2_K {
						masks = masks[:0]
						for m := range uint64(1 << tk.nr) {
							masks = append(masks, m)
						}
					}
					for _, nb := range []int{1, 2, 3, 5, 17} {
						for _, kind := range []string{"quant", "raw", "max", "zero"} {
							for _, mask := range masks {
								c := neonTile{typ: typ, tk: tk, nb: nb, wstride: nb*typ.TypeSize() + 13, ostride: tk.mr + 3, gemm: mask}
								c.fill(t, rng, kind)
								out := c.run()
								what := fmt.Sprintf("%v/%dx%d/%d blocks/%s/gemm %b", typ, tk.mr, tk.nr, nb, kind, mask)
								for j := range tk.nr {
									for i := range c.ostride {
										got := out[j*c.ostride+i]
										if i >= tk.mr {
											if math.Float32bits(got) != 0x7fc0dead {
												t.Fatalf("%s: slot (%d,%d) outside the tile written", what, i, j)
											}
											continue
										}
										single, oracle := c.want(k, i, j)
										checked++
										if math.Float32bits(got) != math.Float32bits(single) || math.Float32bits(got) != math.Float32bits(oracle) {
											t.Fatalf("%s: output (%d,%d) = %v (%#x), single-row %v (%#x), oracle %v (%#x)", what, i, j,
												got, math.Float32bits(got), single, math.Float32bits(single), oracle, math.Float32bits(oracle))
										}
									}
								}
							}
						}
					}
				}
			}
		})
	}
}

// TestNEONTilesMatMul checks matrix products on each arm64 set that has
// tile kernels against the pure-Go oracle bit for bit, over shapes whose
// weight and activation row counts leave edges in both directions (and
// batches smaller than a tile), so tiles, edge rows and edge columns all
// meet.
func TestNEONTilesMatMul(t *testing.T) {
	ref := NewReference(2)
	shapes := []struct{ k, m, n int }{{256, 4, 4}, {512, 13, 9}, {768, 6, 7}, {256, 9, 3}, {1024, 17, 22}, {512, 8, 1}}
	for _, name := range kernelSetNames {
		t.Run(name, func(t *testing.T) {
			kernelSetFor(t, name)
			fast, err := NewWithKernels(2, name)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(33, 34))
			for typ := range fast.k.tiles {
				for _, s := range shapes {
					if s.k%typ.BlockSize() != 0 {
						continue
					}
					w := randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k)))
					x := randn(rng, s.k*s.n, 1)
					x[0], x[len(x)-1] = 9, -9
					got, want := matmulOn(t, fast, typ, w, x, s.k, s.m, s.n), matmulOn(t, ref, typ, w, x, s.k, s.m, s.n)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%v/%dx%dx%d: output %d (row %d, col %d): %v, oracle %v", typ, s.k, s.m, s.n, i, i%s.m, i/s.m, got[i], want[i])
						}
					}
				}
			}
		})
	}
}

// BenchmarkNEONTiles measures each tile kernel of the newest arm64 set on
// cache-resident data (one tile of weight rows against one tile of
// activation rows, k = 2048, quantized normal values, Q4_K in the gemm
// order) against the same set's single-row kernel computing the same
// outputs, in multiply-adds per nanosecond: the ratio of the two in one
// process is what to compare (qemu's timings say nothing about hardware).
func BenchmarkNEONTiles(b *testing.B) {
	sets := KernelSets()
	if len(sets) == 0 {
		b.Skip("cpu: no SIMD kernel set runs here")
	}
	k := buildSet(sets[len(sets)-1])
	t := &testing.T{}
	rng := rand.New(rand.NewPCG(35, 36))
	const cols = 2048
	for typ, tks := range k.tiles {
		for _, tk := range tks {
			nb := cols / typ.BlockSize()
			c := neonTile{typ: typ, tk: tk, nb: nb, wstride: nb * typ.TypeSize(), ostride: tk.mr}
			if typ == quant.TypeQ4_K {
				c.gemm = 1<<tk.nr - 1
			}
			c.fill(t, rng, "quant")
			macs := float64(tk.mr * tk.nr * cols)
			b.Run(fmt.Sprintf("%v/%dx%d/tile", typ, tk.mr, tk.nr), func(b *testing.B) {
				for b.Loop() {
					c.run()
				}
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
			b.Run(fmt.Sprintf("%v/%dx%d/single", typ, tk.mr, tk.nr), func(b *testing.B) {
				var s float32
				for b.Loop() {
					for j := range tk.nr {
						for i := range tk.mr {
							single, _ := c.wantSingle(k, i, j)
							s += single
						}
					}
				}
				_ = s
				b.ReportMetric(macs*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
			})
		}
	}
}
