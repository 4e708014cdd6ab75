package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// repackCase is one weight type's decode tile in the two layouts: the
// step kernel and the registered kernel for weights interleaved by group
// rows, of the kernel set set.
type repackCase struct {
	set    string
	typ    quant.Type
	group  int
	step   func(a *tileArgs, rows, bstep, gstep int)
	packed func(a *tileArgs, rows int)
}

// repackCases lists the decode tiles measured in both layouts.
var repackCases = []repackCase{
	{setAVX2, quant.TypeQ8_0, interleaveRows, gemvQ80StepAVX2, gemvPackedQ80},
	{setAVXVNNI, quant.TypeQ8_0, interleaveRows, gemvQ80StepVNNI, gemvPackedQ80V},
}

// repackWeights returns rows random weight rows of nb blocks of typ in
// the file's layout at stride wstride, of kind "normal" (quantized normal
// values), "raw" (random bytes, large scales) or "zero".
func repackWeights(tb testing.TB, rng *rand.Rand, typ quant.Type, rows, nb, wstride int, kind string) []byte {
	tb.Helper()
	w := make([]byte, rows*wstride)
	for i := range rows {
		var wr []byte
		switch {
		case kind == "zero":
			continue
		case typ == quant.TypeQ4_K && kind == "normal":
			wr = kWeights(tb, rng, typ, nb, 1)
		case typ == quant.TypeQ4_K:
			wr = kRawWeights(rng, typ, nb, 30000)
		case kind == "normal":
			wr = make([]byte, nb*typ.TypeSize())
			if err := quant.Quantize(typ, randn(rng, 32*nb, 0.02), wr); err != nil {
				tb.Fatal(err)
			}
		default:
			wr = rawBlocks(rng, typ, nb, 3e4)
		}
		copy(w[i*wstride:], wr)
	}
	return w
}

// repackActs returns one activation row of nb blocks for typ, as a pointer
// for tileArgs, and the oracle's dot product of a weight row with it.
func repackActs(rng *rand.Rand, typ quant.Type, nb int, extreme bool) (unsafe.Pointer, func(w []byte) float32) {
	if typ.BlockSize() == quant.QK_K {
		x := kActs(rng, nb, false)
		if extreme {
			x = kExtremeActs(rng, nb)
		}
		return unsafe.Pointer(&x[0]), func(w []byte) float32 { return oracleK(typ, w, x, false) }
	}
	x := q8Acts(rng, nb, false)
	if extreme {
		x = extremeActs(rng, nb, false)
	}
	return unsafe.Pointer(&x[0]), func(w []byte) float32 {
		var r row32
		r.reset(32 * nb)
		decode32(typ, w, &r)
		return dot32(&r, x)
	}
}

// TestRepackGemv checks the step decode tiles bit for bit against the
// oracle on the file's layout (rows at a stride larger than a row) and on
// an interleaved copy, the latter also through the kernel registered for
// repacked weights: quantized normal weights,
// random bytes with large scales against normal and ±127 activations,
// all-zero weights; short and odd block counts; three groups of rows;
// the slots after the outputs left untouched.
func TestRepackGemv(t *testing.T) {
	kernelSetFor(t, setAVX2)
	b := NewReference(2)
	rng := rand.New(rand.NewPCG(61, 62))
	for _, c := range repackCases {
		rows := 3 * c.group
		bb := c.typ.TypeSize()
		for _, nb := range []int{1, 2, 3, 5, 17} {
			for _, kind := range []string{"normal", "raw", "extreme", "zero"} {
				t.Run(fmt.Sprintf("%s/%v/%d/%s", c.set, c.typ, nb, kind), func(t *testing.T) {
					kernelSetFor(t, c.set)
					rb := nb * bb
					wstride := rb + 13
					w := repackWeights(t, rng, c.typ, rows, nb, wstride, kind)
					x, oracle := repackActs(rng, c.typ, nb, kind == "extreme" || kind == "raw")
					packed := make([]byte, rows*rb)
					dense := make([]byte, rows*rb)
					for i := range rows {
						copy(dense[i*rb:], w[i*wstride:i*wstride+rb])
					}
					b.interleave(packed, dense, rows, c.group, rb, bb)

					run := func(fn func(a *tileArgs)) []float32 {
						out := make([]float32, rows+3)
						for i := range out {
							out[i] = math.Float32frombits(0x7fc0dead)
						}
						fn(&tileArgs{w: &w[0], wstride: wstride, x: x, n: nb, out: &out[0], ostride: 1})
						return out
					}
					reg := run(func(a *tileArgs) {
						a.w, a.wstride = &packed[0], rb
						c.packed(a, rows)
					})
					file := run(func(a *tileArgs) { c.step(a, rows, bb, c.group*wstride) })
					inter := run(func(a *tileArgs) {
						a.w, a.wstride = &packed[0], bb
						c.step(a, rows, c.group*bb, c.group*rb)
					})
					for i := range reg {
						if i >= rows {
							for _, got := range []float32{reg[i], file[i], inter[i]} {
								if math.Float32bits(got) != 0x7fc0dead {
									t.Fatalf("slot %d after the outputs written", i)
								}
							}
							continue
						}
						want := oracle(w[i*wstride : i*wstride+rb])
						for _, got := range []float32{reg[i], file[i], inter[i]} {
							if math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("output %d: registered %#x, file layout %#x, interleaved %#x, oracle %#x",
									i, math.Float32bits(reg[i]), math.Float32bits(file[i]), math.Float32bits(inter[i]), math.Float32bits(want))
							}
						}
					}
				})
			}
		}
	}
}

// TestQ4KX16Tile checks each set's prompt tile over the sixteen-row Q4_K
// layout (x16Tile on the prompt and decode kernels) bit for bit against
// the oracle: every mask of activation rows in dotK's gemm order (the
// mixed ones, which the matrix product never asks for, too), quantized
// normal and random raw weights against normal and ±127 activations, one
// to five super-blocks, none (every output +0), and outputs at a stride
// with the slots between them left untouched.
func TestQ4KX16Tile(t *testing.T) {
	rng := rand.New(rand.NewPCG(67, 68))
	const ostride = x16Rows + 2
	for _, k := range q4KX16Kernels {
		for _, nb := range []int{0, 1, 2, 5} {
			for _, kind := range []string{"normal", "raw"} {
				t.Run(fmt.Sprintf("%s/%d/%s", k.set, nb, kind), func(t *testing.T) {
					kernelSetFor(t, k.set)
					rb := nb * q4KBytes
					w := repackWeights(t, rng, quant.TypeQ4_K, x16Rows, max(nb, 1), max(rb, 1), kind)[:x16Rows*rb]
					packed := make([]byte, q4KX16.size(x16Rows, rb)+1) // a valid pointer with no blocks
					packQ4KX16(packed, w, 0, 1, nb)
					x := make([]q8KBlock, 4*max(nb, 1))
					for j := range 4 {
						var xj []q8KBlock
						switch {
						case kind == "raw":
							xj = kExtremeActs(rng, max(nb, 1))
						default:
							xj = kActs(rng, max(nb, 1), j%2 == 0)
						}
						copy(x[j*max(nb, 1):], xj)
					}
					for mask := range uint64(16) {
						out := make([]float32, 4*ostride)
						for i := range out {
							out[i] = math.Float32frombits(0x7fc0dead)
						}
						k.tile(&tileArgs{w: &packed[0], x: unsafe.Pointer(&x[0]),
							xstride: max(nb, 1) * int(unsafe.Sizeof(q8KBlock{})), n: nb, out: &out[0], ostride: ostride, gemm: mask})
						for j := range 4 {
							for i := range ostride {
								got := out[j*ostride+i]
								if i >= x16Rows {
									if math.Float32bits(got) != 0x7fc0dead {
										t.Fatalf("mask %04b: slot %d of row %d written", mask, i, j)
									}
									continue
								}
								var want float32
								if nb > 0 {
									want = oracleK(quant.TypeQ4_K, w[i*rb:(i+1)*rb], x[j*nb:(j+1)*nb], mask>>j&1 == 1)
								}
								if math.Float32bits(got) != math.Float32bits(want) {
									t.Fatalf("mask %04b: output (row %d, act %d) %#x, oracle %#x", mask, i, j, math.Float32bits(got), math.Float32bits(want))
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestInterleave checks where interleave puts every block: full groups of
// four or eight rows block by block, the rows after the last group as they
// are; and that deinterleave gives each row of a full group back.
func TestInterleave(t *testing.T) {
	for _, g := range []int{interleaveRows, 8} {
		for _, m := range []int{1, 4, 7, 9, 12, 17} {
			for _, threads := range []int{1, 2} {
				t.Run(fmt.Sprintf("group=%d/m=%d/t=%d", g, m, threads), func(t *testing.T) {
					const nb, bb = 3, 5
					rb := nb * bb
					src := make([]byte, m*rb)
					for i := range src {
						src[i] = byte(i)
					}
					dst := make([]byte, len(src))
					NewReference(threads).interleave(dst, src, m, g, rb, bb)
					for i := range m {
						for k := range nb {
							at := i*rb + k*bb
							if i < m/g*g {
								at = i/g*g*rb + (g*k+i%g)*bb
							}
							if got, want := dst[at:at+bb], src[i*rb+k*bb:i*rb+(k+1)*bb]; string(got) != string(want) {
								t.Fatalf("row %d block %d at %d: %v, want %v", i, k, at, got, want)
							}
						}
						if i < m/g*g {
							row := make([]byte, rb)
							deinterleave(row, dst, i, g, rb, bb)
							if string(row) != string(src[i*rb:(i+1)*rb]) {
								t.Fatalf("row %d unpacked as %v, want %v", i, row, src[i*rb:(i+1)*rb])
							}
						}
					}
				})
			}
		}
	}
}

// repackShapes are the decode matrices the layouts are measured on: k
// values per row, m rows.
var repackShapes = []struct {
	typ  quant.Type
	k, m int
}{
	{quant.TypeQ8_0, 2048, 8192},
	{quant.TypeQ8_0, 4096, 4096},
	{quant.TypeQ8_0, 8192, 2048},
}

// repackWorkingSet is the weight bytes a measurement cycles through, so
// that every matrix streams from memory as in decoding (where the whole
// model, far larger than the caches, is read once per token).
const repackWorkingSet = 512 << 20

// repackLayouts are the layouts BenchmarkRepackGemv times.
var repackLayouts = []string{"file", "interleaved"}

// BenchmarkRepackGemv compares decode (one activation row) on the file's
// layout ("file": each group of rows read as that many streams) with the
// same kernel on copies interleaved by the group's rows ("interleaved":
// one stream), split over the backend's threads as the matrix product
// splits them, on one and two threads, for each case of repackCases whose
// kernel set the CPU has. Copies of each matrix fill repackWorkingSet,
// each call taking the next copy (never one a recent call read), so that
// the weights stream from memory. The layouts take turns within every
// iteration (on a shared machine the load drifts between sub-benchmarks),
// and each is reported as its median time in weight GB/s; "speedup" is
// the file layout's median time over the interleaved one's (above 1:
// interleaving pays); "ms-repack/matrix" is what interleaving one matrix
// took on two threads.
func BenchmarkRepackGemv(b *testing.B) {
	rng := rand.New(rand.NewPCG(63, 64))
	for _, c := range repackCases {
		if _, err := NewWithKernels(1, c.set); err != nil {
			continue
		}
		for _, s := range repackShapes {
			if s.typ != c.typ {
				continue
			}
			benchRepackGemv(b, rng, c, s.k, s.m)
		}
	}
}

// benchRepackGemv is BenchmarkRepackGemv's case c on a matrix of m rows
// of k values.
func benchRepackGemv(b *testing.B, rng *rand.Rand, c repackCase, k, m int) {
	bb := c.typ.TypeSize()
	nb := k / c.typ.BlockSize()
	rb := nb * bb
	size := m * rb
	one := repackWeights(b, rng, c.typ, m, nb, rb, "normal")
	copies := max(1, repackWorkingSet/size)
	file, packed := make([][]byte, copies), make([][]byte, copies)
	ref := NewReference(2)
	var took time.Duration
	for i := range copies {
		// Both in memory advised for huge pages, as a model read into
		// memory (--no-mmap) and its repacked copies are.
		var freeFile, freePacked func()
		file[i], freeFile = allocPacked(size)
		packed[i], freePacked = allocPacked(size)
		for _, free := range []func(){freeFile, freePacked} {
			if free != nil {
				b.Cleanup(free)
			}
		}
		copy(file[i], one)
		start := time.Now()
		ref.interleave(packed[i], file[i], m, c.group, rb, bb)
		took += time.Since(start)
	}
	x, _ := repackActs(rng, c.typ, nb, false)
	out := make([]float32, m)
	g := c.group
	for _, threads := range []int{1, 2} {
		bk := NewReference(threads)
		run := func(layout string, i int) time.Duration {
			w := file[i%copies]
			if layout == "interleaved" {
				w = packed[i%copies]
			}
			start := time.Now()
			bk.parallelBalanced(m/g, func(glo, ghi int) {
				a := tileArgs{w: &w[g*glo*rb], wstride: rb, x: x, n: nb, out: &out[g*glo], ostride: 1}
				switch layout {
				case "file":
					c.step(&a, g*(ghi-glo), bb, g*rb)
				default:
					a.wstride = bb
					c.step(&a, g*(ghi-glo), g*bb, g*rb)
				}
			})
			return time.Since(start)
		}
		b.Run(fmt.Sprintf("%s/%v/%dx%d/t=%d", c.set, c.typ, k, m, threads), func(b *testing.B) {
			times := map[string][]time.Duration{}
			calls := 0
			for it := 0; b.Loop(); it++ {
				for l := range repackLayouts {
					layout := repackLayouts[(l+it)%len(repackLayouts)]
					times[layout] = append(times[layout], run(layout, calls))
					calls++
				}
			}
			med := map[string]time.Duration{}
			for _, layout := range repackLayouts {
				ts := times[layout]
				slices.Sort(ts)
				med[layout] = ts[len(ts)/2]
				b.ReportMetric(float64(size)/med[layout].Seconds()/1e9, "GB/s-"+layout)
			}
			b.ReportMetric(float64(med["file"])/float64(med["interleaved"]), "speedup")
			b.ReportMetric(float64(took.Microseconds())/float64(copies)/1e3, "ms-repack/matrix")
		})
	}
}

// TestRepackMatMul checks matrix products with repacked Q4_K, Q8_0,
// MXFP4, Q6_K, Q2_K and Q3_K weights bit for bit against the same weights
// in the file's layout and against the pure-Go oracle, on every kernel set
// the CPU runs, on one and two threads: weight row counts that are and are
// not multiples of four
// (the rows after the last group stay in the file's layout), one to eleven
// activation rows (decode; prompts, Q4_K's in dotK's gemm order but for
// the last n%4 rows); that decode (fewer than four activation rows), and
// prompts where the layout has a tile, read the interleaved copy alone
// (but for the rows after the last group); and that the repacked weight
// gathers rows as the original does.
func TestRepackMatMul(t *testing.T) {
	t.Setenv("SAJI_REPACK", "on")
	ref := NewReference(2)
	rng := rand.New(rand.NewPCG(65, 66))
	shapes := []struct{ k, m int }{{256, 4}, {512, 5}, {256, 7}, {768, 13}, {256, 16}, {512, 35}, {2048, 67}}
	for _, set := range KernelSets() {
		for _, threads := range []int{1, 2} {
			b, err := NewWithKernels(threads, set)
			if err != nil {
				t.Fatal(err)
			}
			for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ8_0, quant.TypeMXFP4, quant.TypeQ6_K, quant.TypeQ2_K, quant.TypeQ3_K} {
				for _, s := range shapes {
					data := make([]byte, s.m*s.k/typ.BlockSize()*typ.TypeSize())
					if err := quant.Quantize(typ, randn(rng, s.k*s.m, 1/math.Sqrt(float64(s.k))), data); err != nil {
						t.Fatal(err)
					}
					plain, err := b.Weight(typ, []int{s.k, s.m}, data)
					if err != nil {
						t.Fatal(err)
					}
					packed, err := b.Repack(plain)
					if err != nil {
						t.Fatal(err)
					}
					kern, ok := b.k.packedKernel(typ)
					group := kern.rows
					if Repacked(packed) != (ok && s.m >= group) {
						t.Fatalf("%s: %v %dx%d repacked %v with groups of %d rows", set, typ, s.k, s.m, Repacked(packed), group)
					}
					if !ok {
						continue
					}
					oracleW, err := ref.Weight(typ, []int{s.k, s.m}, data)
					if err != nil {
						t.Fatal(err)
					}
					// A second copy whose file bytes are scribbled over after
					// the repack, but for the rows after the last group: the
					// products that read the interleaved copy alone still match.
					scribbled := slices.Clone(data)
					only, err := b.Weight(typ, []int{s.k, s.m}, scribbled)
					if err != nil {
						t.Fatal(err)
					}
					if only, err = b.Repack(only); err != nil {
						t.Fatal(err)
					}
					for i := range scribbled[:s.m/group*group*len(data)/s.m] {
						scribbled[i] = byte(i * 7)
					}
					for _, n := range []int{1, 2, 3, 4, 5, 8, 11, 17} {
						t.Run(fmt.Sprintf("%s/t=%d/%v/%dx%dx%d", set, threads, typ, s.k, s.m, n), func(t *testing.T) {
							x := randn(rng, s.k*n, 1)
							x[0], x[len(x)-1] = 9, -9
							got := productOn(t, b, packed, x, s.k, s.m, n)
							want := productOn(t, b, plain, x, s.k, s.m, n)
							oracle := productOn(t, ref, oracleW, x, s.k, s.m, n)
							for i, v := range productOn(t, b, only, x, s.k, s.m, n) {
								if n >= interleaveRows && kern.tile == nil {
									break // prompts read the file's layout
								}
								if math.Float32bits(v) != math.Float32bits(want[i]) {
									t.Fatalf("output %d (row %d, col %d) read the file's bytes: %v, want %v", i, i%s.m, i/s.m, v, want[i])
								}
							}
							for i := range got {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(got[i]) != math.Float32bits(oracle[i]) {
									t.Fatalf("output %d (row %d, col %d): repacked %v, file layout %v, oracle %v",
										i, i%s.m, i/s.m, got[i], want[i], oracle[i])
								}
							}
						})
					}
					rows := []int32{int32(s.m - 1), 0, int32(s.m / 2)}
					gp, gw := f32(t, b, make([]float32, 3*s.k), s.k, 3), f32(t, b, make([]float32, 3*s.k), s.k, 3)
					if err := b.GetRows(gp, packed, rows); err != nil {
						t.Fatal(err)
					}
					if err := b.GetRows(gw, plain, rows); err != nil {
						t.Fatal(err)
					}
					hp, hw := make([]float32, 3*s.k), make([]float32, 3*s.k)
					_, _ = b.Read(gp, hp), b.Read(gw, hw)
					for i := range hp {
						if math.Float32bits(hp[i]) != math.Float32bits(hw[i]) {
							t.Fatalf("%s %v: GetRows of the repacked weight differs at %d", set, typ, i)
						}
					}
				}
			}
		}
	}
}

// TestRepackSkips checks that Repack leaves a weight as it is where it
// should: SAJI_REPACK=off, by default the layouts not read whole (where
// the system cannot drop the file's pages) and Q8_0 rows longer than the
// four-row layout pays for (q80InterleaveCols), memory short for the
// copy, fewer rows than a group, a type without an interleaved kernel,
// the pure-Go kernels.
func TestRepackSkips(t *testing.T) {
	kernelSetFor(t, setAVX2)
	if New(1).k == nil {
		t.Skip("cpu: SAJI_SIMD=off: the backend has no kernel set to repack for")
	}
	weight := func(t *testing.T, b *Backend, typ quant.Type, cols, m int) kernels.Tensor {
		t.Helper()
		w, err := b.Weight(typ, []int{cols, m}, make([]byte, m*typ.TypeSize()*cols/typ.BlockSize()))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// byDefault reports whether the default set repacks typ unasked.
	byDefault := func(typ quant.Type) bool {
		k := New(1).k.packed[typ]
		return k.whole()
	}
	cases := []struct {
		name   string
		ref    bool
		typ    quant.Type
		m      int
		env    string
		avail  int64
		packed bool
		cols   int
	}{
		{"repacked", false, quant.TypeQ4_K, 16, "on", 8 << 30, true, 256},
		{"SAJI_REPACK=off", false, quant.TypeQ4_K, 16, "off", 8 << 30, false, 256},
		{"Q4_K by default where read whole", false, quant.TypeQ4_K, 16, "", 8 << 30, byDefault(quant.TypeQ4_K), 256},
		{"Q8_0 by default where read whole", false, quant.TypeQ8_0, 16, "", 8 << 30, byDefault(quant.TypeQ8_0), 256},
		{"memory short", false, quant.TypeQ8_0, 16, "on", repackReserve + 100, false, 256},
		{"Q8_0 rows of q80InterleaveCols by default", false, quant.TypeQ8_0, 16, "", 8 << 30, byDefault(quant.TypeQ8_0), q80InterleaveCols},
		{"Q8_0 rows longer than q80InterleaveCols by default", false, quant.TypeQ8_0, 16, "", 8 << 30, false, 2 * q80InterleaveCols},
		{"Q8_0 rows longer than q80InterleaveCols asked for", false, quant.TypeQ8_0, 16, "on", 8 << 30, true, 4 * q80InterleaveCols},
		{"three rows", false, quant.TypeQ4_K, 3, "on", 8 << 30, false, 256},
		{"Q6_K by default where read whole", false, quant.TypeQ6_K, 16, "", 8 << 30, byDefault(quant.TypeQ6_K), 256},
		{"Q2_K by default where read whole", false, quant.TypeQ2_K, 16, "", 8 << 30, byDefault(quant.TypeQ2_K), 256},
		{"Q3_K by default where read whole", false, quant.TypeQ3_K, 16, "", 8 << 30, byDefault(quant.TypeQ3_K), 256},
		{"Q5_K: no layout", false, quant.TypeQ5_K, 16, "on", 8 << 30, false, 256},
		{"pure Go", true, quant.TypeQ4_K, 16, "on", 8 << 30, false, 256},
	}
	saved := memAvailable
	defer func() { memAvailable = saved }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("SAJI_REPACK", c.env)
			memAvailable = func() (int64, bool) { return c.avail, true }
			b := New(1)
			if c.ref {
				b = NewReference(1)
			}
			w := weight(t, b, c.typ, c.cols, c.m)
			p, err := b.Repack(w)
			if err != nil {
				t.Fatal(err)
			}
			if Repacked(p) != c.packed {
				t.Fatalf("repacked %v, want %v", Repacked(p), c.packed)
			}
			if !c.packed && p != w {
				t.Fatal("a weight left as it is is not the same tensor")
			}
		})
	}
}

// BenchmarkInterleave measures what repacking costs at load: interleave
// of 256 MB of Q8_0 rows of 2048 values (a 1B model's widths) on
// one and two threads, in GB/s of weights. The first iteration writes
// fresh memory, as a load does.
func BenchmarkInterleave(b *testing.B) {
	for _, typ := range []quant.Type{quant.TypeQ8_0} {
		rb := 2048 / typ.BlockSize() * typ.TypeSize()
		m := (256 << 20) / rb / 4 * 4
		src, dst := make([]byte, m*rb), make([]byte, m*rb)
		for i := range src {
			src[i] = byte(i)
		}
		for _, threads := range []int{1, 2} {
			bk := NewReference(threads)
			b.Run(fmt.Sprintf("%v/t=%d", typ, threads), func(b *testing.B) {
				for b.Loop() {
					bk.interleave(dst, src, m, interleaveRows, rb, typ.TypeSize())
				}
				b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}
