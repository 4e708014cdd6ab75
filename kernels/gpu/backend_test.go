package gpu

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

func TestKernelTable(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kernels {
		if seen[k.Name] {
			t.Errorf("kernel %s listed twice", k.Name)
		}
		seen[k.Name] = true
		if k.Block == 0 || k.Block%32 != 0 || k.Block > 1024 {
			t.Errorf("%s: block of %d threads is not whole warps", k.Name, k.Block)
		}
		if len(k.Params) == 0 || k.Grid == "" {
			t.Errorf("%s: no parameters or grid", k.Name)
		}
		for _, p := range k.Params {
			if p.Name == "" || p.Kind > F32 {
				t.Errorf("%s: bad parameter %+v", k.Name, p)
			}
		}
	}
	for _, typ := range WeightTypes {
		for _, f := range []string{"get_rows_", "mul_mat_vec_", "mul_mat_"} {
			if s := Suffix(typ); s == "" || !seen[f+s] {
				t.Errorf("%v has no %s kernel", typ, f)
			}
		}
	}
	for _, typ := range CacheTypes {
		for _, f := range []string{"set_rows_", "attention_"} {
			if !seen[f+Suffix(typ)] {
				t.Errorf("%v has no %s kernel", typ, f)
			}
		}
	}
	if _, ok := Lookup("no_such_kernel"); ok {
		t.Error("Lookup found a kernel that does not exist")
	}
}

func newTestBackend(t *testing.T) (*Backend, *fakeDevice) {
	t.Helper()
	f := newFake()
	b, err := New(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, f
}

func randFloats(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func TestWriteRead(t *testing.T) {
	b, _ := newTestBackend(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0} {
		x, err := b.New(typ, 64, 3)
		if err != nil {
			t.Fatal(err)
		}
		src := randFloats(r, 64*3)
		if err := b.Write(x, src); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(src))
		if err := b.Read(x, got); err != nil {
			t.Fatal(err)
		}
		// The host conversion is the CPU backend's: quantize, dequantize.
		enc := make([]byte, 3*64/typ.BlockSize()*typ.TypeSize())
		want := make([]float32, len(src))
		if err := quant.Quantize(typ, src, enc); err != nil {
			t.Fatal(err)
		}
		if err := quant.Dequantize(typ, enc, want); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%v: value %d is %v, want %v", typ, i, got[i], want[i])
			}
		}
		if err := b.Read(x, got[:5]); !errors.Is(err, kernels.ErrShape) {
			t.Errorf("%v: short read: %v, want ErrShape", typ, err)
		}
	}
	if _, err := b.New(quant.TypeQ4_K, 256); err == nil {
		t.Error("New made a Q4_K tensor")
	}
	if _, err := b.New(quant.TypeQ8_0, 33); !errors.Is(err, kernels.ErrShape) {
		t.Errorf("New Q8_0 of 33: %v, want ErrShape", err)
	}
}

func TestWeight(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := randFloats(r, 2*256)
	enc := func(typ quant.Type) []byte {
		d := make([]byte, 2*256/typ.BlockSize()*typ.TypeSize())
		if err := quant.Quantize(typ, vals, d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Run("upload", func(t *testing.T) {
		b, f := newTestBackend(t)
		data := enc(quant.TypeQ4_K)
		w, err := b.Weight(quant.TypeQ4_K, []int{256, 2}, data)
		if err != nil {
			t.Fatal(err)
		}
		if w.Type() != quant.TypeQ4_K {
			t.Errorf("type %v", w.Type())
		}
		g := w.(*tensor)
		if m, _ := f.buf(g.buf, g.off, len(data)); string(m) != string(data) {
			t.Error("the device copy differs from the weight")
		}
		if b.Allocated() < int64(len(data)) {
			t.Errorf("allocated %d bytes for a weight of %d", b.Allocated(), len(data))
		}
	})
	t.Run("converted", func(t *testing.T) {
		b, _ := newTestBackend(t)
		data := enc(quant.TypeQ2_K)
		w, err := b.Weight(quant.TypeQ2_K, []int{256, 2}, data)
		if err != nil {
			t.Fatal(err)
		}
		if w.Type() != quant.TypeF16 {
			t.Fatalf("a Q2_K weight is held as %v, want F16", w.Type())
		}
		want := make([]float32, 512)
		if err := quant.Dequantize(quant.TypeQ2_K, data, want); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 512)
		if err := b.Read(w, got); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > 1e-3*math.Abs(float64(want[i]))+1e-6 {
				t.Fatalf("value %d: %v, want %v", i, got[i], want[i])
			}
		}
	})
	t.Run("mapped", func(t *testing.T) {
		b, f := newTestBackend(t)
		f.mapOK = true
		if _, err := b.Weight(quant.TypeQ8_0, []int{256, 2}, enc(quant.TypeQ8_0)); err != nil {
			t.Fatal(err)
		}
		if f.uploads != 0 || b.Allocated() != 0 {
			t.Errorf("a mapped weight was copied (%d uploads, %d bytes)", f.uploads, b.Allocated())
		}
		if want := int64(2 * 256 / 32 * 34); b.Mapped() != want {
			t.Errorf("%d bytes mapped, want %d", b.Mapped(), want)
		}
		if err := b.Close(); err != nil || b.Mapped() != 0 {
			t.Errorf("closed: %v, %d bytes mapped", err, b.Mapped())
		}
	})
	t.Run("errors", func(t *testing.T) {
		b, _ := newTestBackend(t)
		if _, err := b.Weight(quant.TypeQ4_K, []int{128, 2}, make([]byte, 144)); !errors.Is(err, kernels.ErrShape) {
			t.Errorf("a row shorter than a block: %v", err)
		}
		if _, err := b.Weight(quant.TypeQ8_0, []int{32, 2}, make([]byte, 30)); !errors.Is(err, kernels.ErrShape) {
			t.Errorf("short data: %v", err)
		}
		if _, err := b.Weight(quant.Type(999), []int{32}, nil); err == nil {
			t.Error("unknown type accepted")
		}
	})
}

// opCase is one operation and the launch it must queue.
type opCase struct {
	name   string
	run    func(b *Backend) error
	kernel string
	grid   Dim3
	ints   map[string]int // parameters by name
}

func TestOpsLaunch(t *testing.T) {
	b, f := newTestBackend(t)
	newT := func(typ quant.Type, shape ...int) kernels.Tensor {
		x, err := b.New(typ, shape...)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	weight := func(typ quant.Type, k, m int) kernels.Tensor {
		w, err := b.Weight(typ, []int{k, m}, make([]byte, k*m/typ.BlockSize()*typ.TypeSize()))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	x4 := newT(quant.TypeF32, 256, 4)
	x40 := newT(quant.TypeF32, 256, 40)
	w := weight(quant.TypeQ4_K, 256, 100)
	emb := weight(quant.TypeQ6_K, 256, 10)
	kc := newT(quant.TypeF16, 2*64, 32)
	vc := newT(quant.TypeF16, 2*64, 32)
	q := newT(quant.TypeF32, 8*64, 4)
	cases := []opCase{
		{"matvec", func(b *Backend) error { return b.MatMul(newT(quant.TypeF32, 100, 4), w, x4) },
			"mul_mat_vec_q4_k", Dim3{25, 1, 1}, map[string]int{"k": 256, "m": 100, "n": 4, "row_bytes": 144}},
		{"matmul", func(b *Backend) error { return b.MatMul(newT(quant.TypeF32, 100, 40), w, x40) },
			"mul_mat_q4_k", Dim3{2, 1, 1}, map[string]int{"k": 256, "m": 100, "n": 40, "row_bytes": 144}},
		{"get_rows", func(b *Backend) error { return b.GetRows(newT(quant.TypeF32, 256, 3), emb, []int32{9, 0, 4}) },
			"get_rows_q6_k", Dim3{3, 1, 1}, map[string]int{"cols": 256, "row_bytes": 210}},
		{"set_rows", func(b *Backend) error { return b.SetRows(kc, newT(quant.TypeF32, 128, 2), []int32{5, 6}) },
			"set_rows_f16", Dim3{2, 1, 1}, map[string]int{"cols": 128, "row_bytes": 256}},
		{"add bias", func(b *Backend) error { return b.Add(x4, x4, newT(quant.TypeF32, 256)) },
			"add", Dim3{4, 1, 1}, map[string]int{"n": 1024, "bn": 256}},
		{"mul", func(b *Backend) error { return b.Mul(x4, x4, x4) },
			"mul", Dim3{4, 1, 1}, map[string]int{"n": 1024, "bn": 1024}},
		{"scale", func(b *Backend) error { return b.Scale(x4, x4, 2) }, "scale", Dim3{4, 1, 1}, map[string]int{"n": 1024}},
		{"softcap", func(b *Backend) error { return b.Softcap(x4, x4, 30) }, "softcap", Dim3{4, 1, 1}, map[string]int{"n": 1024}},
		{"rms_norm", func(b *Backend) error { return b.RMSNorm(x4, x4, newT(quant.TypeF32, 256), 1e-5) },
			"rms_norm", Dim3{4, 1, 1}, map[string]int{"n": 256, "has_w": 1}},
		{"rms_norm heads", func(b *Backend) error { return b.RMSNorm(x4, x4, newT(quant.TypeF32, 64), 1e-5) },
			"rms_norm", Dim3{16, 1, 1}, map[string]int{"n": 64, "has_w": 1}},
		{"rms_norm plain", func(b *Backend) error { return b.RMSNorm(x4, x4, nil, 1e-5) },
			"rms_norm", Dim3{4, 1, 1}, map[string]int{"n": 256, "has_w": 0}},
		{"rope", func(b *Backend) error {
			return b.Rope(q, q, []int32{0, 1, 2, 3}, kernels.RopeParams{HeadDim: 64, Dims: 32, Base: 10000, Neox: true})
		}, "rope", Dim3{4, 1, 1}, map[string]int{"cols": 512, "head_dim": 64, "dims": 32, "neox": 1, "has_factors": 0}},
		{"glu", func(b *Backend) error { return b.GLU(x4, x4, x4, kernels.GELU) }, "glu_gelu", Dim3{4, 1, 1}, map[string]int{"n": 1024}},
		{"short_conv", func(b *Backend) error {
			return b.ShortConv(newT(quant.TypeF32, 300, 5), newT(quant.TypeF32, 300, 5), newT(quant.TypeF32, 300, 4),
				newT(quant.TypeF32, 3*300, 3), []kernels.ConvSeq{{N: 4, Slot: 2}, {N: 1, Slot: 0}})
		}, "short_conv", Dim3{2, 2, 1}, map[string]int{"c": 300, "k": 4}},
		{"attention", func(b *Backend) error {
			return b.Attention(newT(quant.TypeF32, 8*64, 4), q, kernels.KV{K: kc, V: vc, Len: 7, Cells: []int32{3, 4, 5, 6, 7, 8, 9}},
				[]int32{3, 4, 5, 6}, kernels.AttentionParams{Heads: 8, KVHeads: 2, HeadDim: 64, ValueDim: 64, Scale: 0.125, Window: 4})
		}, "attention_f16", Dim3{8, 4, 1}, map[string]int{"heads": 8, "kv_heads": 2, "head_dim": 64, "value_dim": 64,
			"k_row_bytes": 256, "v_row_bytes": 256, "len": 7, "window": 4, "has_cells": 1, "splits": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(b); err != nil {
				t.Fatal(err)
			}
			l := f.last()
			if l.name != tc.kernel || l.grid != tc.grid {
				t.Fatalf("launched %s over %v, want %s over %v", l.name, l.grid, tc.kernel, tc.grid)
			}
			k, _ := Lookup(l.name)
			if l.block != (Dim3{k.Block, 1, 1}) {
				t.Errorf("block %v, want %d threads", l.block, k.Block)
			}
			for i, p := range k.Params {
				if want, ok := tc.ints[p.Name]; ok && int(int32(l.args[i].Bits)) != want {
					t.Errorf("%s = %d, want %d", p.Name, int32(l.args[i].Bits), want)
				}
			}
		})
	}
}

func TestOpErrors(t *testing.T) {
	b, _ := newTestBackend(t)
	newT := func(typ quant.Type, shape ...int) kernels.Tensor {
		x, err := b.New(typ, shape...)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x := newT(quant.TypeF32, 64, 2)
	kc := newT(quant.TypeF32, 64, 4)
	p := kernels.AttentionParams{Heads: 1, KVHeads: 1, HeadDim: 64, ValueDim: 64, Scale: 1}
	cases := []struct {
		name  string
		err   error
		shape bool // the error must wrap kernels.ErrShape
	}{
		{"matmul shapes", b.MatMul(newT(quant.TypeF32, 3, 2), x, newT(quant.TypeF32, 32, 2)), true},
		{"matmul alias", b.MatMul(x, newT(quant.TypeF32, 64, 64), x), true},
		{"add shapes", b.Add(x, x, newT(quant.TypeF32, 32)), true},
		{"get_rows range", b.GetRows(x, kc, []int32{0, 4}), false},
		{"set_rows range", b.SetRows(kc, x, []int32{0, -1}), false},
		{"rope dims", b.Rope(x, x, []int32{0, 1}, kernels.RopeParams{HeadDim: 64, Dims: 65}), true},
		{"attention alias", b.Attention(x, x, kernels.KV{K: kc, V: kc, Len: 2}, []int32{0, 1}, p), true},
		{"attention cells", b.Attention(newT(quant.TypeF32, 64, 2), x, kernels.KV{K: kc, V: kc, Len: 2, Cells: []int32{0, 9}}, []int32{0, 1}, p), true},
		{"attention head", b.Attention(newT(quant.TypeF32, 512, 2), newT(quant.TypeF32, 512, 2),
			kernels.KV{K: newT(quant.TypeF32, 512, 4), V: newT(quant.TypeF32, 512, 4), Len: 2}, []int32{0, 1},
			kernels.AttentionParams{Heads: 1, KVHeads: 1, HeadDim: 512, ValueDim: 512, Scale: 1}), false},
		{"softcap", b.Softcap(x, x, 0), false},
		{"rope yarn", b.Rope(x, x, []int32{0, 1}, kernels.RopeParams{HeadDim: 64, Dims: 64, Base: 1e4, FreqScale: 0.25,
			YaRN: kernels.YaRN{ExtFactor: 1, BetaFast: 32, BetaSlow: 0, OrigContext: 64}}), false},
		{"attention sinks", b.Attention(newT(quant.TypeF32, 64, 2), x, kernels.KV{K: kc, V: kc, Len: 2}, []int32{0, 1},
			kernels.AttentionParams{Heads: 1, KVHeads: 1, HeadDim: 64, ValueDim: 64, Scale: 1, Sinks: []float32{0, 1}}), true},
	}
	for _, tc := range cases {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.shape && !errors.Is(tc.err, kernels.ErrShape) {
			t.Errorf("%s: %v, want ErrShape", tc.name, tc.err)
		}
		if !strings.HasPrefix(tc.err.Error(), "gpu: ") {
			t.Errorf("%s: %q lacks the package prefix", tc.name, tc.err)
		}
	}
	other, _ := New(newFake())
	y, _ := other.New(quant.TypeF32, 64, 2)
	if err := b.Add(x, x, y); err == nil || !strings.Contains(err.Error(), "another backend") {
		t.Errorf("a tensor of another backend: %v", err)
	}
}

func TestArena(t *testing.T) {
	b, f := newTestBackend(t)
	pos := []int32{0, 1, 2, 3}
	b.mu.Lock()
	defer b.mu.Unlock()
	a1, err := b.hostArrays(i32Bytes(pos))
	if err != nil {
		t.Fatal(err)
	}
	up := f.uploads
	a2, _ := b.hostArrays(i32Bytes(pos))
	if f.uploads != up || a1[0].Off != a2[0].Off {
		t.Error("the same array was copied again")
	}
	pos[2] = 7
	a3, _ := b.hostArrays(i32Bytes(pos))
	if f.uploads != up+1 || a3[0].Off == a1[0].Off {
		t.Error("a changed array was not copied again")
	}
	// Fill the arena to its end: the arrays of one call never overlap.
	big := make([]byte, arenaMin-512)
	args, err := b.hostArrays(big, i32Bytes([]int32{1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	if args[0].Off+len(big) > args[1].Off && args[1].Off+12 > args[0].Off {
		t.Errorf("arrays of one launch overlap: %d and %d", args[0].Off, args[1].Off)
	}
	got := make([]byte, 12)
	if err := f.Download(args[1].Buf, args[1].Off, got); err != nil || string(got) != string(i32Bytes([]int32{1, 2, 3})) {
		t.Errorf("the second array reads %v (%v)", got, err)
	}
	// An array larger than the arena grows it.
	huge := make([]byte, 3*arenaMin)
	huge[len(huge)-1] = 9
	args, err = b.hostArrays(huge)
	if err != nil || args[0].Buf.Size < len(huge) {
		t.Fatalf("a large array: %v, buffer of %d", err, args[0].Buf.Size)
	}
}

func TestPoolAndClose(t *testing.T) {
	f := newFake()
	b, _ := New(f)
	x, _ := b.New(quant.TypeF32, 1000)
	h := x.(*tensor).buf.Handle
	if err := b.Write(x, make([]float32, 1000)); err != nil {
		t.Fatal(err)
	}
	b.Recycle(x)
	if err := b.Write(x, make([]float32, 1000)); err == nil {
		t.Error("a recycled tensor was written")
	}
	y, _ := b.New(quant.TypeF32, 900)
	if y.(*tensor).buf.Handle != h {
		t.Error("New did not reuse a recycled buffer of about its size")
	}
	z, _ := b.New(quant.TypeF32, 100)
	if z.(*tensor).buf.Handle == h {
		t.Error("a tiny tensor took a buffer ten times its size")
	}
	// An allocation that fails is retried once the pool is freed.
	b.Recycle(y, z)
	f.failAt = f.live + 2000
	if _, err := b.New(quant.TypeF32, 1000); err != nil {
		t.Errorf("allocation with a full pool: %v", err)
	}
	f.failAt = 1
	if _, err := b.New(quant.TypeF32, 1<<20); err == nil || !strings.Contains(err.Error(), "fake:0") {
		t.Errorf("allocation failure: %v", err)
	}
	f.failAt = 0
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if f.live != 0 || len(f.mem) != 0 {
		t.Errorf("Close left %d bytes in %d buffers", f.live, len(f.mem))
	}
	if _, err := b.New(quant.TypeF32, 4); !errors.Is(err, ErrClosed) {
		t.Errorf("New after Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

var _ kernels.Backend = (*Backend)(nil)
var _ kernels.Recycler = (*Backend)(nil)

// TestMatMulActivations checks that quantized products first convert the
// activations to the weight's dot-product format, and pass those to the
// product kernel.
func TestMatMulActivations(t *testing.T) {
	tests := []struct {
		typ      quant.Type
		quantize string // "" for none
		grid     Dim3
	}{
		{quant.TypeF32, "", Dim3{}},
		{quant.TypeF16, "", Dim3{}},
		{quant.TypeQ4_0, "quantize_q8_0", Dim3{6, 1, 1}}, // 3 tokens · 512/32 blocks, 8 a launch block
		{quant.TypeQ8_0, "quantize_q8_0", Dim3{6, 1, 1}},
		{quant.TypeQ4_K, "quantize_q8_k", Dim3{6, 1, 1}}, // 3 tokens · 2 blocks
		{quant.TypeQ5_K, "quantize_q8_k", Dim3{6, 1, 1}},
		{quant.TypeQ6_K, "quantize_q8_k", Dim3{6, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			b, f := newTestBackend(t)
			w, err := b.Weight(tt.typ, []int{512, 8}, make([]byte, 8*512/tt.typ.BlockSize()*tt.typ.TypeSize()))
			if err != nil {
				t.Fatal(err)
			}
			x, _ := b.New(quant.TypeF32, 512, 3)
			d, _ := b.New(quant.TypeF32, 8, 3)
			before := len(f.launches)
			if err := b.MatMul(d, w, x); err != nil {
				t.Fatal(err)
			}
			ls := f.launches[before:]
			mm := ls[len(ls)-1]
			if mm.name != "mul_mat_vec_"+Suffix(tt.typ) {
				t.Fatalf("product kernel %s", mm.name)
			}
			xt := x.(*tensor)
			if tt.quantize == "" {
				if len(ls) != 1 || mm.args[1].Buf.Handle != xt.buf.Handle {
					t.Errorf("%d launches, x %#x: want the F32 activations as they are", len(ls), mm.args[1].Buf.Handle)
				}
				return
			}
			if len(ls) != 2 || ls[0].name != tt.quantize || ls[0].grid != tt.grid {
				t.Fatalf("launches %v, want %s over %v first", ls, tt.quantize, tt.grid)
			}
			q := ls[0]
			act := ActType(tt.typ)
			if q.args[0].Buf.Handle != xt.buf.Handle || mm.args[1].Buf.Handle != q.args[1].Buf.Handle ||
				int32(q.args[2].Bits) != int32(3*512/act.BlockSize()) || q.args[1].Buf.Size < 3*512/act.BlockSize()*act.TypeSize() {
				t.Errorf("quantized activations not passed on: %+v then %+v", q.args, mm.args)
			}
		})
	}
}

// TestAttentionLongBatch checks that a batch of more query rows than a
// CUDA grid may be high is split into launches.
func TestAttentionLongBatch(t *testing.T) {
	b, f := newTestBackend(t)
	const rows = maxGridY + 10
	q, _ := b.New(quant.TypeF32, 32, rows)
	d, _ := b.New(quant.TypeF32, 32, rows)
	kc, _ := b.New(quant.TypeF16, 32, rows)
	pos := make([]int32, rows)
	for i := range pos {
		pos[i] = int32(i)
	}
	before := len(f.launches)
	err := b.Attention(d, q, kernels.KV{K: kc, V: kc, Len: rows}, pos,
		kernels.AttentionParams{Heads: 1, KVHeads: 1, HeadDim: 32, ValueDim: 32, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	ls := f.launches[before:]
	if len(ls) != 2 || ls[0].grid.Y != maxGridY || ls[1].grid.Y != 10 {
		t.Fatalf("%d launches: %+v", len(ls), ls)
	}
	if off := ls[1].args[0].Off - ls[0].args[0].Off; off != 4*32*maxGridY {
		t.Errorf("the second launch's queries start %d bytes on, want %d", off, 4*32*maxGridY)
	}
}

// TestAttentionSlices checks that a decode step over a long cache splits
// each query row's cells into slices, launched side by side, and merges
// them; and when it does not.
func TestAttentionSlices(t *testing.T) {
	for _, tc := range []struct{ heads, rows, cells, want int }{
		{32, 1, 8192, 16},   // a decode step of llama-8b: 512 blocks
		{8, 1, 2048, 8},     // AttnSliceCells each
		{8, 1, 1 << 20, 64}, // AttnMaxSplits
		{4, 2, 600, 2},
		{32, 1, 511, 1},   // short
		{32, 16, 8192, 1}, // enough blocks already
	} {
		if got := attnSplits(tc.heads, tc.rows, tc.cells); got != tc.want {
			t.Errorf("%d heads, %d rows over %d cells: %d slices, want %d", tc.heads, tc.rows, tc.cells, got, tc.want)
		}
	}

	b, f := newTestBackend(t)
	const heads, cells = 8, 2048
	q, _ := b.New(quant.TypeF32, heads*64, 1)
	d, _ := b.New(quant.TypeF32, heads*64, 1)
	kc, _ := b.New(quant.TypeF16, 2*64, cells)
	before := len(f.launches)
	err := b.Attention(d, q, kernels.KV{K: kc, V: kc, Len: cells}, []int32{cells - 1},
		kernels.AttentionParams{Heads: heads, KVHeads: 2, HeadDim: 64, ValueDim: 64, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	ls := f.launches[before:]
	if len(ls) != 2 || ls[0].name != "attention_f16" || ls[1].name != "attention_merge" {
		t.Fatalf("%d launches: %+v", len(ls), ls)
	}
	attn, merge := ls[0], ls[1]
	part, splits := attn.args[17], int(int32(attn.args[18].Bits))
	if splits != 8 || attn.grid != (Dim3{heads, 8, 1}) || part.Buf.Size < 4*heads*8*66 {
		t.Errorf("attention: %d slices over %v, partials in %d bytes", splits, attn.grid, part.Buf.Size)
	}
	if merge.grid != (Dim3{heads, 1, 1}) || !samePtr(merge.args[0], part) || !samePtr(merge.args[1], attn.args[5]) ||
		int32(merge.args[4].Bits) != 8 || int32(merge.args[3].Bits) != 64 {
		t.Errorf("merge over %v with %+v after attention with %+v", merge.grid, merge.args, attn.args)
	}
}

// samePtr reports whether a and b point at the same place.
func samePtr(a, b Arg) bool { return a.Buf.Handle == b.Buf.Handle && a.Off == b.Off }

// TestMatMulScratch checks that the quantized activations reuse a pooled
// buffer without zeroing it (quantize writes all of it).
func TestMatMulScratch(t *testing.T) {
	b, f := newTestBackend(t)
	w, err := b.Weight(quant.TypeQ8_0, []int{256, 8}, make([]byte, 8*256/32*34))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := b.New(quant.TypeF32, 256, 2)
	d, _ := b.New(quant.TypeF32, 8, 2)
	if err := b.MatMul(d, w, x); err != nil {
		t.Fatal(err)
	}
	first := f.last().args[1].Buf.Handle
	zeros := f.zeros
	if err := b.MatMul(d, w, x); err != nil {
		t.Fatal(err)
	}
	if f.last().args[1].Buf.Handle != first {
		t.Error("the second product did not reuse the pooled activation buffer")
	}
	if f.zeros != zeros {
		t.Errorf("the reused activation buffer was zeroed %d times", f.zeros-zeros)
	}
}
