package metal

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
	"saji/kernels/gpu/gputest"
	"saji/kernels/quant"
)

// The kernel tests: each kernel of gpu.Kernels launched through a
// gpu.Device as the spec describes it, compared with the CPU backend (the
// oracle): the activation quantizers byte for byte with what the CPU's
// matrix product makes, the products over those activations with the CPU's
// MatMul. testKernels runs them on the emulator (linux) and on the Metal
// GPU (Mac).

// kernelRig holds what the tests of one device share.
type kernelRig struct {
	dev gpu.Device
	cpu *cpu.Backend // the pure-Go kernels
	// simd is the CPU backend with its SIMD kernels, as it runs models:
	// the matrix products are compared with it and with cpu.
	simd *cpu.Backend
	rng  *rand.Rand
}

func testKernels(t *testing.T, dev gpu.Device) {
	r := &kernelRig{dev: dev, cpu: cpu.NewReference(1), simd: cpu.New(1), rng: rand.New(rand.NewPCG(7, 11))}
	t.Run("get_rows", r.testGetRows)
	t.Run("quantize_q8_0", r.testQuantizeQ8_0)
	t.Run("quantize_q8_k", r.testQuantizeQ8K)
	t.Run("products", r.testProducts)
	t.Run("set_rows", r.testSetRows)
	t.Run("attention", r.testAttention)
	t.Run("rms_norm", r.testRMSNorm)
	t.Run("rope", r.testRope)
	t.Run("elementwise", r.testElementwise)
}

// ---- helpers

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func i32Bytes(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// random returns n values uniform in [-scale, scale).
func (r *kernelRig) random(n int, scale float32) []float32 {
	return gputest.RandFloats(r.rng, n, scale)
}

// buf allocates a device buffer holding data.
func (r *kernelRig) buf(t *testing.T, data []byte) gpu.Buf {
	t.Helper()
	return gputest.Upload(t, r.dev, data)
}

// zeros allocates a device buffer of n bytes.
func (r *kernelRig) zeros(t *testing.T, n int) gpu.Buf {
	t.Helper()
	b, err := r.dev.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.dev.Free(b) })
	return b
}

func (r *kernelRig) read(t *testing.T, b gpu.Buf, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	if err := r.dev.Download(b, 0, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// launch runs kernel name over grid thread groups of the spec's size and
// waits for it.
func (r *kernelRig) launch(t *testing.T, name string, grid gpu.Dim3, args ...gpu.Arg) {
	t.Helper()
	k, ok := gpu.Lookup(name)
	if !ok {
		t.Fatalf("no kernel %s", name)
	}
	if err := r.dev.Launch(name, grid, gpu.Dim3{X: k.Block, Y: 1, Z: 1}, args...); err != nil {
		t.Fatal(err)
	}
	if err := r.dev.Sync(); err != nil {
		t.Fatal(err)
	}
}

func grid(x, y int) gpu.Dim3 { return gpu.Dim3{X: uint32(x), Y: uint32(y), Z: 1} }

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// compare reports the values of got farther from want than
// atol[i] + rtol·|want[i]| (atol given per value, or one for all).
func compare(t *testing.T, what string, got, want []float32, atol []float64, rtol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range want {
		a := atol[0]
		if len(atol) > 1 {
			a = atol[i]
		}
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) <= a+rtol*math.Abs(w) && !math.IsNaN(g) {
			continue
		}
		if bad++; bad <= 5 {
			t.Errorf("%s: value %d = %g, want %g (±%.3g)", what, i, g, w, a+rtol*math.Abs(w))
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values of %d differ", what, bad, len(want))
	}
}

// cols returns a row length for weights of type typ: a multiple of its
// block size, and for the float types one that is not a multiple of 32.
func weightCols(typ quant.Type, quantized int, float int) int {
	if typ == quant.TypeF32 || typ == quant.TypeF16 {
		return float
	}
	return quantized
}

// ---- get_rows

func (r *kernelRig) testGetRows(t *testing.T) {
	for _, typ := range gpu.WeightTypes {
		t.Run(gpu.Suffix(typ), func(t *testing.T) {
			cols, rows := weightCols(typ, 512, 300), 5
			raw := gputest.Quantize(t, typ, r.random(cols*rows, 2))
			rowBytes := len(raw) / rows
			table := gputest.Dequantize(t, typ, raw, cols*rows)
			ids := []int32{4, 0, 4, 2}
			dst := r.zeros(t, 4*cols*len(ids))
			r.launch(t, "get_rows_"+gpu.Suffix(typ), grid(len(ids), 1),
				gpu.P(r.buf(t, raw), 0), gpu.P(r.buf(t, i32Bytes(ids)), 0), gpu.P(dst, 0), gpu.I(cols), gpu.I(rowBytes))
			var want []float32
			for _, id := range ids {
				want = append(want, table[int(id)*cols:int(id+1)*cols]...)
			}
			compare(t, "get_rows", bytesF32(r.read(t, dst, 4*cols*len(ids))), want, []float64{1e-6}, 1e-6)
		})
	}
}

// ---- activation quantizers

// quantizeQ8KRef is kernels/cpu's quantizeQ8K (unexported there, ungrouped)
// in bytes: Q8_K blocks {float32 d; int8 q[256]; int16 bsums[16]}.
func quantizeQ8KRef(x []float32) []byte {
	const bs = 292
	out := make([]byte, len(x)/quant.QK_K*bs)
	for b := range len(x) / quant.QK_K {
		xb, blk := x[quant.QK_K*b:quant.QK_K*(b+1)], out[bs*b:bs*(b+1)]
		var amax, maxv float32
		for _, v := range xb {
			if a := float32(math.Abs(float64(v))); a > amax {
				amax, maxv = a, v
			}
		}
		if amax == 0 {
			continue
		}
		iscale := -127 / maxv
		var q [quant.QK_K]int8
		for i, v := range xb {
			q[i] = int8(min(127, math.RoundToEven(float64(iscale*v))))
			blk[4+i] = byte(q[i])
		}
		for g := range 16 {
			var s int16
			for _, v := range q[16*g : 16*g+16] {
				s += int16(v)
			}
			binary.LittleEndian.PutUint16(blk[260+2*g:], uint16(s))
		}
		binary.LittleEndian.PutUint32(blk, math.Float32bits(1/iscale))
	}
	return out
}

// quantizeOnDevice runs the quantizer of activation type act over x and
// returns the device buffer it filled.
func (r *kernelRig) quantizeOnDevice(t *testing.T, act quant.Type, x []float32) gpu.Buf {
	t.Helper()
	nb := len(x) / act.BlockSize()
	dst := r.zeros(t, nb*act.TypeSize())
	if act == quant.TypeQ8_K {
		r.launch(t, "quantize_q8_k", grid(nb, 1), gpu.P(r.buf(t, f32Bytes(x)), 0), gpu.P(dst, 0), gpu.I(nb))
	} else {
		r.launch(t, "quantize_q8_0", grid(ceilDiv(nb, gpu.ElemBlock/32), 1), gpu.P(r.buf(t, f32Bytes(x)), 0), gpu.P(dst, 0), gpu.I(nb))
	}
	return dst
}

// compareBlocks reports the blocks (bs bytes) of got that differ from want.
func compareBlocks(t *testing.T, what string, got, want []byte, bs int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	bad := 0
	for b := 0; b < len(want); b += bs {
		g, w := got[b:b+bs], want[b:b+bs]
		if string(g) == string(w) {
			continue
		}
		if bad++; bad <= 3 {
			t.Errorf("%s: block %d =\n%x\nwant\n%x", what, b/bs, g, w)
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d blocks of %d differ", what, bad, len(want)/bs)
	}
}

func (r *kernelRig) testQuantizeQ8_0(t *testing.T) {
	// 37 blocks: the last thread group has 5 of its 8 SIMD groups at work.
	x := r.random(37*32, 3)
	blk := func(b int) []float32 { return x[32*b : 32*b+32] }
	clear(blk(0)) // all zeros
	// max|x| = 127: x·(127/max) is x, and x.5 rounds to even.
	copy(blk(1), []float32{127, 2.5, -2.5, 3.5, -3.5, 0.5, -0.5, 1.5, 126.5, -126.5, -0, 0})
	// d = max/127 halfway between two F16 values: 1+2⁻¹¹ rounds down to
	// 1, 1+3·2⁻¹¹ up to 1+2⁻⁹.
	blk(2)[7] = 127 * (1 + 1.0/2048)
	blk(3)[31] = -127 * (1 + 3.0/2048)
	// d an F16 subnormal, and one that rounds to F16 zero.
	for i := range 32 {
		blk(4)[i] *= 1e-4 / 3
		blk(5)[i] *= 1e-6 / 3
	}
	// One large value in a block of small ones.
	blk(6)[17] = -1e4
	got := r.read(t, r.quantizeOnDevice(t, quant.TypeQ8_0, x), 37*34)
	compareBlocks(t, "quantize_q8_0", got, gputest.Q8_0Activations(x), 34)
}

func (r *kernelRig) testQuantizeQ8K(t *testing.T) {
	const nb = 7
	x := r.random(nb*256, 3)
	blk := func(b int) []float32 { return x[256*b : 256*b+256] }
	clear(blk(0)) // all zeros
	// Ties of magnitude: the first value of largest magnitude maps to −127,
	// across SIMD groups either way round and within one.
	blk(1)[40], blk(1)[200] = -7, 7
	blk(2)[40], blk(2)[200] = 7, -7
	blk(3)[5], blk(3)[6] = -3, 3
	// max = −127: iscale = 1, and x.5 rounds to even; max = 127:
	// iscale = −1.
	copy(blk(4), []float32{-127, 2.5, -2.5, 3.5, -3.5, 0.5, -0.5, 1.5, 126.5, -126.5, 127, -0})
	copy(blk(5)[100:], []float32{127, 2.5, -2.5, 3.5, -3.5, 0.5, -0.5, 1.5, 126.5, -126.5, -127})
	got := r.read(t, r.quantizeOnDevice(t, quant.TypeQ8_K, x), nb*292)
	compareBlocks(t, "quantize_q8_k", got, quantizeQ8KRef(x), 292)
}

// ---- matrix products

// productNs are the token counts of the product tests: every count of a
// mul_mat_vec block and past it, the first above the Backend's switch to
// mul_mat (2·MatVecTokens) and over one mul_mat tile.
var productNs = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 70}

// matMulCPU returns the product of weights raw (type typ, k×m) by x (k×n)
// on the CPU backend b, with the magnitude 1e-5·Σ|w·x| + 1e-6 of each
// value as the tolerance a GPU's result is held to.
func matMulCPU(t *testing.T, b *cpu.Backend, typ quant.Type, raw []byte, x []float32, k, m, n int) (want []float32, atol []float64) {
	t.Helper()
	want = gputest.MatMul(t, b, typ, raw, x, k, m, n)
	atol = gputest.ProductMagnitude(gputest.Dequantize(t, typ, raw, k*m), x, k, m, n)
	for i, mag := range atol {
		atol[i] = 1e-5*mag + 1e-6
	}
	return want, atol
}

// testProducts runs mul_mat_vec and mul_mat for every weight type and
// token count over the activations in the type's format (quantized on the
// device by quantize_q8_0 or quantize_q8_k), against the CPU's MatMul,
// with the SIMD kernels and without.
func (r *kernelRig) testProducts(t *testing.T) {
	const m = 70 // not a multiple of 4 (mul_mat_vec) or 64 (mul_mat)
	for _, typ := range gpu.WeightTypes {
		// A row length that is no multiple of 32 for the float types (the
		// kernels' tails), of 256 for the rest.
		k := weightCols(typ, 512, 100)
		for _, n := range productNs {
			t.Run(fmt.Sprintf("%s/n=%d", gpu.Suffix(typ), n), func(t *testing.T) {
				raw := gputest.Quantize(t, typ, r.random(k*m, 1))
				x := r.random(k*n, 2)
				xa := r.buf(t, f32Bytes(x))
				if act := gpu.ActType(typ); act != quant.TypeF32 {
					xa = r.quantizeOnDevice(t, act, x)
				}
				type oracle struct {
					name string
					want []float32
					atol []float64
				}
				var oracles []oracle
				for _, o := range []struct {
					name string
					b    *cpu.Backend
				}{{"cpu", r.simd}, {"cpu reference", r.cpu}} {
					want, atol := matMulCPU(t, o.b, typ, raw, x, k, m, n)
					oracles = append(oracles, oracle{o.name, want, atol})
				}
				wb := r.buf(t, raw)
				for _, kern := range []struct {
					name string
					grid gpu.Dim3
				}{
					{"mul_mat_vec_", grid(ceilDiv(m, gpu.MatVecRows), ceilDiv(n, gpu.MatVecTokens))},
					{"mul_mat_", grid(ceilDiv(m, gpu.TileM), ceilDiv(n, gpu.TileN))},
				} {
					name := kern.name + gpu.Suffix(typ)
					dst := r.zeros(t, 4*m*n)
					r.launch(t, name, kern.grid, gpu.P(wb, 0), gpu.P(xa, 0), gpu.P(dst, 0),
						gpu.I(k), gpu.I(m), gpu.I(n), gpu.I(len(raw)/m))
					got := bytesF32(r.read(t, dst, 4*m*n))
					for _, o := range oracles {
						compare(t, name+" vs "+o.name, got, o.want, o.atol, 0)
					}
				}
			})
		}
	}
}

// ---- set_rows

func (r *kernelRig) testSetRows(t *testing.T) {
	for _, typ := range gpu.CacheTypes {
		t.Run(gpu.Suffix(typ), func(t *testing.T) {
			cols, dstRows := 96, 6
			rows := []int32{4, 0, 2}
			src := r.random(cols*len(rows), 3)
			src[5] = 0 // a block with a zero and one of all zeros
			for i := 32; i < 64; i++ {
				src[i] = 0
			}
			init := gputest.Quantize(t, typ, r.random(cols*dstRows, 1))
			rowBytes := len(init) / dstRows
			want := append([]byte(nil), init...)
			for i, row := range rows {
				copy(want[int(row)*rowBytes:], gputest.Quantize(t, typ, src[i*cols:(i+1)*cols]))
			}
			dst := r.buf(t, init)
			r.launch(t, "set_rows_"+gpu.Suffix(typ), grid(len(rows), 1),
				gpu.P(r.buf(t, f32Bytes(src)), 0), gpu.P(r.buf(t, i32Bytes(rows)), 0), gpu.P(dst, 0), gpu.I(cols), gpu.I(rowBytes))
			got := r.read(t, dst, len(init))
			gv, wv := gputest.Dequantize(t, typ, got, cols*dstRows), gputest.Dequantize(t, typ, want, cols*dstRows)
			atol := []float64{0}
			if typ == quant.TypeQ8_0 {
				// One quantization step: a last-bit difference in x/d may
				// round a value the other way.
				atol = make([]float64, len(wv))
				for i := range atol {
					blk := want[i/32*34:]
					atol[i] = 1.0001*float64(quant.F16ToF32(uint16(blk[0])|uint16(blk[1])<<8)) + 1e-7
				}
			}
			compare(t, "set_rows", gv, wv, atol, 0)
		})
	}
}

// ---- attention

type attentionCase struct {
	name                   string
	heads, kvHeads, hd, vd int
	rows, length           int
	pos                    []int32
	cells                  bool
	window                 int
	softcap                float32
	onlyFloat              bool
	splits                 int  // slices per query row, merged by attention_merge (0: 1)
	sinks                  bool // a sink per head, the first above every score
}

func (r *kernelRig) testAttention(t *testing.T) {
	cases := []attentionCase{
		{name: "prefill", heads: 4, kvHeads: 2, hd: 64, vd: 64, rows: 40, length: 37, pos: []int32{32, 33, 34, 35, 36}},
		{name: "decode", heads: 4, kvHeads: 4, hd: 128, vd: 128, rows: 9, length: 9, pos: []int32{8}},
		{name: "cells window softcap", heads: 6, kvHeads: 2, hd: 64, vd: 32, rows: 48, length: 37,
			pos: []int32{3, 20, 36, 60}, cells: true, window: 7, softcap: 3},
		{name: "odd heads", heads: 2, kvHeads: 1, hd: 80, vd: 48, rows: 12, length: 11, pos: []int32{0, 10}, onlyFloat: true},
		{name: "long heads", heads: 2, kvHeads: 1, hd: 256, vd: 256, rows: 12, length: 12, pos: []int32{11}},
		{name: "empty", heads: 2, kvHeads: 1, hd: 32, vd: 32, rows: 4, length: 0, pos: []int32{0, 3}},
		{name: "decode in slices", heads: 4, kvHeads: 2, hd: 64, vd: 64, rows: 700, length: 700, pos: []int32{699}, splits: 3},
		// A query row with 6 visible cells in 4 slices of 2 leaves one empty.
		{name: "slices window cells", heads: 4, kvHeads: 1, hd: 64, vd: 32, rows: 300, length: 260,
			pos: []int32{5, 259}, cells: true, window: 100, softcap: 3, splits: 4},
		{name: "empty slices", heads: 2, kvHeads: 1, hd: 32, vd: 32, rows: 4, length: 0, pos: []int32{0, 3}, splits: 2},
		{name: "sinks window", heads: 4, kvHeads: 2, hd: 64, vd: 64, rows: 40, length: 37, pos: []int32{0, 20, 36}, window: 9, sinks: true},
		{name: "sinks in slices", heads: 4, kvHeads: 2, hd: 64, vd: 64, rows: 300, length: 260, pos: []int32{5, 259},
			window: 100, splits: 4, sinks: true},
	}
	for _, typ := range gpu.CacheTypes {
		for _, c := range cases {
			if c.onlyFloat && typ == quant.TypeQ8_0 {
				continue
			}
			t.Run(gpu.Suffix(typ)+"/"+c.name, func(t *testing.T) { r.attention(t, typ, c) })
		}
	}
}

func (r *kernelRig) attention(t *testing.T, typ quant.Type, c attentionCase) {
	kraw := gputest.Quantize(t, typ, r.random(c.rows*c.kvHeads*c.hd, 1))
	vraw := gputest.Quantize(t, typ, r.random(c.rows*c.kvHeads*c.vd, 1))
	q := r.random(len(c.pos)*c.heads*c.hd, 1)
	var cells []int32
	if c.cells {
		for _, i := range r.rng.Perm(c.rows)[:c.length] {
			cells = append(cells, int32(i))
		}
	}
	scale := float32(1 / math.Sqrt(float64(c.hd)))
	if c.softcap > 0 && typ == quant.TypeF16 {
		// Over an F16 cache the oracle follows ggml's flash attention,
		// which caps s·scale (softcap·tanh(s·scale/softcap)) where the
		// spec and the other paths cap s and scale after. The two agree
		// at scale 1, which is how llama.cpp runs Gemma 2 (queries
		// pre-scaled).
		scale = 1
	}

	// The oracle.
	kt, err := r.cpu.Weight(typ, []int{c.kvHeads * c.hd, c.rows}, kraw)
	if err != nil {
		t.Fatal(err)
	}
	vt, err := r.cpu.Weight(typ, []int{c.kvHeads * c.vd, c.rows}, vraw)
	if err != nil {
		t.Fatal(err)
	}
	qt := r.cpuTensor(t, q, c.heads*c.hd, len(c.pos))
	out, err := r.cpu.New(quant.TypeF32, c.heads*c.vd, len(c.pos))
	if err != nil {
		t.Fatal(err)
	}
	p := kernels.AttentionParams{Heads: c.heads, KVHeads: c.kvHeads, HeadDim: c.hd, ValueDim: c.vd,
		Scale: scale, Window: c.window, Softcap: c.softcap}
	var sinkBuf gpu.Buf // none: the kernels must not read it
	hasSinks := 0
	if c.sinks {
		p.Sinks = r.random(c.heads, 3)
		p.Sinks[0] = 12
		sinkBuf, hasSinks = r.buf(t, f32Bytes(p.Sinks)), 1
	}
	if err := r.cpu.Attention(out, qt, kernels.KV{K: kt, V: vt, Len: c.length, Cells: cells}, c.pos, p); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, c.heads*c.vd*len(c.pos))
	if err := r.cpu.Read(out, want); err != nil {
		t.Fatal(err)
	}

	var cellBuf gpu.Buf // none: the kernel must not read it
	if c.cells {
		cellBuf = r.buf(t, i32Bytes(cells))
	}
	dst := r.zeros(t, 4*len(want))
	hasCells := 0
	if c.cells {
		hasCells = 1
	}
	splits, part := max(1, c.splits), dst // part is not read with one slice
	if splits > 1 {
		part = r.zeros(t, 4*len(c.pos)*c.heads*splits*(c.vd+2))
	}
	r.launch(t, "attention_"+gpu.Suffix(typ), grid(c.heads, len(c.pos)*splits),
		gpu.P(r.buf(t, f32Bytes(q)), 0), gpu.P(r.buf(t, kraw), 0), gpu.P(r.buf(t, vraw), 0), gpu.P(cellBuf, 0),
		gpu.P(r.buf(t, i32Bytes(c.pos)), 0), gpu.P(dst, 0),
		gpu.I(c.heads), gpu.I(c.kvHeads), gpu.I(c.hd), gpu.I(c.vd),
		gpu.I(len(kraw)/c.rows), gpu.I(len(vraw)/c.rows), gpu.I(c.length), gpu.I(c.window),
		gpu.F(scale), gpu.F(c.softcap), gpu.I(hasCells), gpu.P(part, 0), gpu.I(splits), gpu.P(sinkBuf, 0), gpu.I(hasSinks))
	if splits > 1 {
		r.launch(t, "attention_merge", grid(c.heads, len(c.pos)),
			gpu.P(part, 0), gpu.P(dst, 0), gpu.I(c.heads), gpu.I(c.vd), gpu.I(splits), gpu.P(sinkBuf, 0), gpu.I(hasSinks))
	}
	atol := 1e-5
	if typ == quant.TypeF16 {
		atol = 2e-3 // the oracle accumulates in F16, as ggml's flash attention
	}
	compare(t, "attention", bytesF32(r.read(t, dst, 4*len(want))), want, []float64{atol}, 1e-4)
}

// cpuTensor returns v as an F32 tensor of the CPU backend.
func (r *kernelRig) cpuTensor(t *testing.T, v []float32, shape ...int) kernels.Tensor {
	t.Helper()
	x, err := r.cpu.New(quant.TypeF32, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cpu.Write(x, v); err != nil {
		t.Fatal(err)
	}
	return x
}

// cpuRead returns the values of a CPU tensor.
func (r *kernelRig) cpuRead(t *testing.T, x kernels.Tensor) []float32 {
	t.Helper()
	v := make([]float32, kernels.Cols(x)*kernels.Rows(x))
	if err := r.cpu.Read(x, v); err != nil {
		t.Fatal(err)
	}
	return v
}

// ---- rms_norm

func (r *kernelRig) testRMSNorm(t *testing.T) {
	const cols, rows, eps = 96, 6, 1e-6
	for _, c := range []struct {
		name string
		n    int // group size: the weight's length
		w    bool
	}{
		{"row weight", cols, true},
		{"head weight", 32, true},
		{"no weight", cols, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := r.random(cols*rows, 4)
			w := r.random(c.n, 2)
			xt := r.cpuTensor(t, x, cols, rows)
			var wt kernels.Tensor
			var wbuf gpu.Buf
			hasW := 0
			if c.w {
				wt, wbuf, hasW = r.cpuTensor(t, w, c.n), r.buf(t, f32Bytes(w)), 1
			}
			out := r.cpuTensor(t, make([]float32, cols*rows), cols, rows)
			if err := r.cpu.RMSNorm(out, xt, wt, eps); err != nil {
				t.Fatal(err)
			}
			dst := r.zeros(t, 4*cols*rows)
			r.launch(t, "rms_norm", grid(cols*rows/c.n, 1),
				gpu.P(r.buf(t, f32Bytes(x)), 0), gpu.P(wbuf, 0), gpu.P(dst, 0), gpu.I(c.n), gpu.F(eps), gpu.I(hasW))
			compare(t, "rms_norm", bytesF32(r.read(t, dst, 4*cols*rows)), r.cpuRead(t, out), []float64{1e-6}, 1e-5)
		})
	}
}

// ---- rope

func (r *kernelRig) testRope(t *testing.T) {
	for _, c := range []struct {
		name            string
		heads, hd, dims int
		base, freqScale float32
		neox, factors   bool
		pos             []int32
		inPlace         bool
		yarn            kernels.YaRN
		// sections and mode (1 in order, 2 in turn, 3 vision) make it a
		// rope with four positions a row.
		sections [4]int
		mode     int
	}{
		{name: "norm", heads: 3, hd: 64, dims: 64, base: 10000, pos: []int32{0, 1, 7, 500}},
		{name: "neox partial factors", heads: 2, hd: 64, dims: 32, base: 10000, neox: true, factors: true, pos: []int32{3, 4000}},
		{name: "far positions scaled", heads: 2, hd: 128, dims: 128, base: 500000, freqScale: 0.25, pos: []int32{100000, 131071}},
		{name: "in place", heads: 2, hd: 96, dims: 64, base: 1e6, neox: true, pos: []int32{9, 77}, inPlace: true},
		{name: "over 256 pairs", heads: 2, hd: 600, dims: 520, base: 10000, pos: []int32{5, 60}},
		{name: "yarn gpt-oss", heads: 2, hd: 64, dims: 64, base: 150000, freqScale: 1.0 / 32, neox: true, pos: []int32{0, 9, 100},
			yarn: kernels.YaRN{ExtFactor: 1, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 4096}},
		{name: "yarn partial factors", heads: 2, hd: 64, dims: 48, base: 10000, freqScale: 0.25, factors: true, pos: []int32{3, 70},
			yarn: kernels.YaRN{ExtFactor: 0.5, AttnFactor: 0.8, BetaFast: 16, BetaSlow: 2, OrigContext: 512}},
		{name: "mrope", heads: 2, hd: 64, dims: 64, base: 1e6, neox: true, pos: []int32{0, 5, 40}, sections: [4]int{8, 12, 12, 0}},
		{name: "imrope", heads: 2, hd: 64, dims: 64, base: 5e6, neox: true, pos: []int32{3, 9}, sections: [4]int{12, 10, 10, 0}, mode: 2},
		{name: "vision factors", heads: 2, hd: 32, dims: 16, base: 10000, factors: true, pos: []int32{0, 7, 30}, sections: [4]int{8, 8, 8, 8}, mode: 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			cols := c.heads * c.hd
			x := r.random(cols*len(c.pos), 2)
			mode := c.mode
			if c.sections != [4]int{} && mode == 0 {
				mode = 1
			}
			pairs := c.dims / 2
			if mode == 3 {
				pairs = c.dims
			}
			var factors []float32
			var fbuf gpu.Buf
			hasFactors := 0
			if c.factors {
				factors = make([]float32, pairs)
				for i := range factors {
					factors[i] = 1 + 3*r.rng.Float32()
				}
				fbuf, hasFactors = r.buf(t, f32Bytes(factors)), 1
			}
			xt := r.cpuTensor(t, x, cols, len(c.pos))
			out := r.cpuTensor(t, make([]float32, len(x)), cols, len(c.pos))
			rp := kernels.RopeParams{HeadDim: c.hd, Dims: c.dims, Base: c.base, FreqScale: c.freqScale, Factors: factors, Neox: c.neox, YaRN: c.yarn,
				Sections: c.sections, Interleaved: mode == 2, Vision: mode == 3}
			pos := gputest.RopePositions(rp, c.pos)
			if err := r.cpu.Rope(out, xt, pos, rp); err != nil {
				t.Fatal(err)
			}
			// The host's part: theta_scale = base^(-2/dims) as the CPU
			// backend computes it, and the scaling of RopeParams.Scaling.
			thetaScale := float32(math.Pow(float64(c.base), float64(float32(-2)/float32(c.dims))))
			freqScale, low, high, mscale := rp.Scaling()
			xb := r.buf(t, f32Bytes(x))
			dst := xb
			if !c.inPlace {
				dst = r.zeros(t, 4*len(x))
			}
			neox := 0
			if c.neox {
				neox = 1
			}
			r.launch(t, "rope", grid(len(c.pos), 1),
				gpu.P(xb, 0), gpu.P(dst, 0), gpu.P(r.buf(t, i32Bytes(pos)), 0), gpu.P(fbuf, 0),
				gpu.I(cols), gpu.I(c.hd), gpu.I(c.dims), gpu.F(thetaScale), gpu.F(freqScale), gpu.I(neox), gpu.I(hasFactors),
				gpu.F(c.yarn.ExtFactor), gpu.F(mscale), gpu.F(low), gpu.F(high), gpu.I(len(c.pos)), gpu.I(mode),
				gpu.I(c.sections[0]), gpu.I(c.sections[1]), gpu.I(c.sections[2]), gpu.I(c.sections[3]))
			compare(t, "rope", bytesF32(r.read(t, dst, 4*len(x))), r.cpuRead(t, out), []float64{2e-6}, 2e-6)
		})
	}
}

// ---- element-wise kernels

func (r *kernelRig) testElementwise(t *testing.T) {
	const n = 1000
	a := r.random(n, 3)
	g := r.random(n, 6)
	// GELU's edges: its clamps at ±10, and F16 rounding of the input.
	copy(g, []float32{-12, -10, -9.999, 9.999, 10, 11, 0, -0, 1e-8, 0.5001})
	ga, gg := r.cpuTensor(t, a, 100, 10), r.cpuTensor(t, g, 100, 10)
	out := func() kernels.Tensor { return r.cpuTensor(t, make([]float32, n), 100, 10) }
	blocks := grid(ceilDiv(n, gpu.ElemBlock), 1)

	for _, bn := range []int{100, n} {
		b := r.random(bn, 2)
		bt := r.cpuTensor(t, b, 100, bn/100)
		for _, op := range []struct {
			name string
			cpu  func(dst, a, b kernels.Tensor) error
		}{{"add", r.cpu.Add}, {"mul", r.cpu.Mul}} {
			t.Run(fmt.Sprintf("%s/bn=%d", op.name, bn), func(t *testing.T) {
				want := out()
				if err := op.cpu(want, ga, bt); err != nil {
					t.Fatal(err)
				}
				dst := r.zeros(t, 4*n)
				r.launch(t, op.name, blocks, gpu.P(r.buf(t, f32Bytes(a)), 0), gpu.P(r.buf(t, f32Bytes(b)), 0), gpu.P(dst, 0), gpu.I(n), gpu.I(bn))
				compare(t, op.name, bytesF32(r.read(t, dst, 4*n)), r.cpuRead(t, want), []float64{0}, 0)
			})
		}
	}

	t.Run("scale", func(t *testing.T) {
		want := out()
		if err := r.cpu.Scale(want, ga, -0.75); err != nil {
			t.Fatal(err)
		}
		dst := r.zeros(t, 4*n)
		r.launch(t, "scale", blocks, gpu.P(r.buf(t, f32Bytes(a)), 0), gpu.P(dst, 0), gpu.I(n), gpu.F(-0.75))
		compare(t, "scale", bytesF32(r.read(t, dst, 4*n)), r.cpuRead(t, want), []float64{0}, 0)
	})
	t.Run("softcap", func(t *testing.T) {
		want := out()
		if err := r.cpu.Softcap(want, gg, 2.5); err != nil {
			t.Fatal(err)
		}
		dst := r.zeros(t, 4*n)
		r.launch(t, "softcap", blocks, gpu.P(r.buf(t, f32Bytes(g)), 0), gpu.P(dst, 0), gpu.I(n), gpu.F(2.5))
		compare(t, "softcap", bytesF32(r.read(t, dst, 4*n)), r.cpuRead(t, want), []float64{1e-7}, 1e-6)
	})
	for _, act := range []struct {
		name string
		act  kernels.Activation
		rtol float64
	}{
		{"glu_silu", kernels.SiLU, 1e-5},
		// One F16 step: the F16 rounding of GELU's result may go the other
		// way after a last-bit difference in tanh.
		{"glu_gelu", kernels.GELU, 1.0 / 1024},
		{"glu_swiglu_oai", kernels.SwiGLUOAI, 1e-5},
		{"glu_relu", kernels.ReLU, 0},
	} {
		t.Run(act.name, func(t *testing.T) {
			want := out()
			if err := r.cpu.GLU(want, gg, ga, act.act); err != nil {
				t.Fatal(err)
			}
			dst := r.zeros(t, 4*n)
			r.launch(t, act.name, blocks, gpu.P(r.buf(t, f32Bytes(g)), 0), gpu.P(r.buf(t, f32Bytes(a)), 0), gpu.P(dst, 0), gpu.I(n))
			compare(t, act.name, bytesF32(r.read(t, dst, 4*n)), r.cpuRead(t, want), []float64{1e-7}, act.rtol)
		})
	}
}
