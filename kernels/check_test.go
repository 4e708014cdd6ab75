package kernels

import (
	"errors"
	"strings"
	"testing"

	"saji/kernels/quant"
)

// shaped is a Tensor that is only a type and a shape, for the checks.
type shaped struct {
	typ   quant.Type
	shape []int
}

func (t *shaped) Backend() Backend { return nil }
func (t *shaped) Type() quant.Type { return t.typ }
func (t *shaped) Shape() []int     { return t.shape }

// f32 returns an F32 operand of the given shape.
func f32(shape ...int) *shaped { return &shaped{quant.TypeF32, shape} }

// checkErr reports a check's error against want: "" for none, else a part
// of the message; shape says whether the error must wrap ErrShape.
func checkErr(t *testing.T, err error, want string, shape bool) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("error %v, want none", err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("error %v, want one containing %q", err, want)
	case want != "" && shape != errors.Is(err, ErrShape):
		t.Errorf("error %v: wraps ErrShape %v, want %v", err, !shape, shape)
	}
}

func TestCheckWeightAndNew(t *testing.T) {
	for _, tt := range []struct {
		name       string
		typ        quant.Type
		shape      []int
		data       int // bytes; -1: check New
		n          int
		want       string
		isErrShape bool
	}{
		{"f32 weight", quant.TypeF32, []int{4, 3}, 48, 12, "", false},
		{"q8_0 weight", quant.TypeQ8_0, []int{64, 2}, 4 * 34, 128, "", false},
		{"short data", quant.TypeF32, []int{4, 3}, 40, 0, "needs 48 bytes, got 40", true},
		{"partial block", quant.TypeQ4_0, []int{48, 1}, 36, 0, "not a multiple of the Q4_0 block size 32", true},
		{"negative dimension", quant.TypeF32, []int{4, -1}, 0, 0, "negative dimension", true},
		{"unknown type", quant.Type(9999), []int{4}, 16, 0, "unknown tensor type 9999", false},
		{"new f16", quant.TypeF16, []int{8, 2}, -1, 16, "", false},
		{"new scalar", quant.TypeF32, nil, -1, 1, "", false},
		{"new q8_0 row", quant.TypeQ8_0, []int{40, 2}, -1, 0, "a Q8_0 row of 40 values", true},
		{"new q4_k", quant.TypeQ4_K, []int{256}, -1, 0, "cannot allocate a Q4_K tensor", false},
		{"new negative", quant.TypeF32, []int{-2}, -1, 0, "negative dimension", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var n int
			var err error
			if tt.data < 0 {
				n, err = CheckNew(tt.typ, tt.shape)
			} else {
				n, err = CheckWeight(tt.typ, tt.shape, make([]byte, tt.data))
			}
			checkErr(t, err, tt.want, tt.isErrShape)
			if err == nil && n != tt.n {
				t.Errorf("%d values, want %d", n, tt.n)
			}
		})
	}
}

func TestCheckOperands(t *testing.T) {
	x := f32(4, 3)
	rope := RopeParams{HeadDim: 2, Dims: 2, Base: 10000}
	for _, tt := range []struct {
		name  string
		err   error
		want  string
		shape bool
	}{
		{"write", CheckWrite(x, make([]float32, 12)), "", false},
		{"write short", CheckWrite(x, make([]float32, 11)), "writing 11 values into a tensor of 12", true},
		{"read", CheckRead(x, make([]float32, 12)), "", false},
		{"read long", CheckRead(x, make([]float32, 13)), "reading a tensor of 12 values into 13", true},
		{"get_rows", CheckGetRows(f32(4, 2), x, []int32{2, 0}), "", false},
		{"get_rows count", CheckGetRows(f32(4, 2), x, []int32{2}), "get_rows of 1 rows of [4 3] into [4 2]", true},
		{"get_rows width", CheckGetRows(f32(5, 1), x, []int32{2}), "get_rows of 1 rows", true},
		{"get_rows id", CheckGetRows(f32(4, 2), x, []int32{1, 3}), "get_rows: row 3 out of range [0, 3)", false},
		{"get_rows negative id", CheckGetRows(f32(4, 1), x, []int32{-1}), "row -1 out of range", false},
		{"set_rows", CheckSetRows(&shaped{quant.TypeF16, []int{4, 8}}, x, []int32{7, 0, 1}), "", false},
		{"set_rows q8_0", CheckSetRows(&shaped{quant.TypeQ8_0, []int{4, 8}}, x, []int32{7, 0, 1}), "", false},
		{"set_rows type", CheckSetRows(&shaped{quant.TypeQ4_0, []int{4, 8}}, x, []int32{7, 0, 1}), "set_rows of [4 3] into Q4_0 [4 8]", true},
		{"set_rows row", CheckSetRows(f32(4, 8), x, []int32{7, 8, 1}), "set_rows: row 8 out of range [0, 8)", false},
		{"matmul", CheckMatMul(f32(5, 3), f32(4, 5), x), "", false},
		{"matmul k", CheckMatMul(f32(5, 3), f32(3, 5), x), "matmul of weight [3 5] by input [4 3] into [5 3]", true},
		{"matmul aliased", CheckMatMul(x, f32(4, 4), x), "aliases its input", true},
		{"add", CheckBinary("add", x, x, x), "", false},
		{"add bias", CheckBinary("add", f32(4, 3), x, f32(4)), "", false},
		{"mul rows", CheckBinary("mul", f32(4, 3), x, f32(4, 2)), "mul of [4 3] and [4 2] into [4 3]", true},
		{"add dst", CheckBinary("add", f32(4, 2), x, x), "add of", true},
		{"scale", CheckUnary("scale", f32(4, 3, 1), x), "", false},
		{"scale shape", CheckUnary("scale", f32(4, 2), x), "scale of [4 3] into [4 2]", true},
		{"softcap", CheckSoftcap(30), "", false},
		{"softcap zero", CheckSoftcap(0), "softcap must be positive, not 0", false},
		{"glu", CheckGLU(x, f32(4, 3), f32(4, 3), GELU), "", false},
		{"glu shape", CheckGLU(x, f32(4, 3), f32(4, 2), SiLU), "glu of [4 3] and [4 2] into [4 3]", true},
		{"glu activation", CheckGLU(x, f32(4, 3), f32(4, 3), Activation(7)), "unknown activation 7", false},
		{"glu swiglu_oai", CheckGLU(x, f32(4, 3), f32(4, 3), SwiGLUOAI), "", false},
		{"glu relu", CheckGLU(x, f32(4, 3), f32(4, 3), ReLU), "", false},
		{"rope", CheckRope(x, f32(4, 3), []int32{0, 1, 2}, rope), "", false},
		{"rope positions", CheckRope(x, f32(4, 3), []int32{0, 1}, rope), "rope of [4 3] (head 2, 2 dims, 2 positions, 0 factors)", true},
		{"rope odd dims", CheckRope(x, f32(4, 3), []int32{0, 1, 2}, RopeParams{HeadDim: 4, Dims: 3}), "rope of", true},
		{"rope head", CheckRope(x, f32(4, 3), []int32{0, 1, 2}, RopeParams{HeadDim: 3, Dims: 2}), "rope of", true},
		{"rope factors", CheckRope(x, f32(4, 3), []int32{0, 1, 2}, RopeParams{HeadDim: 4, Dims: 4, Factors: []float32{1}}), "1 factors", true},
		{"rope yarn", CheckRope(x, f32(4, 3), []int32{0, 1, 2}, RopeParams{HeadDim: 4, Dims: 4, Base: 1e4,
			YaRN: YaRN{ExtFactor: 1, BetaFast: 32, BetaSlow: 1, OrigContext: 64}}), "", false},
		{"rope yarn context", CheckRope(x, f32(4, 3), []int32{0, 1, 2}, RopeParams{HeadDim: 4, Dims: 4, Base: 1e4,
			YaRN: YaRN{ExtFactor: 1, BetaFast: 32, BetaSlow: 1}}), "YaRN needs a positive original context (0)", false},
	} {
		t.Run(tt.name, func(t *testing.T) { checkErr(t, tt.err, tt.want, tt.shape) })
	}
}

func TestCheckRMSNorm(t *testing.T) {
	x := f32(8, 3)
	for _, tt := range []struct {
		name   string
		dst, w Tensor
		n      int
		want   string
	}{
		{"rows", f32(8, 3), nil, 8, ""},
		{"weighted", f32(8, 3), f32(8), 8, ""},
		{"per head", f32(8, 3), f32(4), 4, ""},
		{"uneven groups", f32(8, 3), f32(3), 0, "rms_norm of [8 3] in groups of 3 into [8 3]"},
		{"empty weight", f32(8, 3), f32(0), 0, "in groups of 0"},
		{"destination", f32(8, 2), nil, 0, "rms_norm of"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, err := CheckRMSNorm(tt.dst, x, tt.w)
			checkErr(t, err, tt.want, true)
			if err == nil && n != tt.n {
				t.Errorf("groups of %d, want %d", n, tt.n)
			}
		})
	}
}

func TestCheckAttention(t *testing.T) {
	// Four query heads over two key/value heads of 32 values.
	p := AttentionParams{Heads: 4, KVHeads: 2, HeadDim: 32, ValueDim: 32}
	q, dst := f32(128, 3), f32(128, 3)
	k, v := f32(64, 10), f32(64, 10)
	kv := KV{K: k, V: v, Len: 10}
	paged := KV{K: k, V: v, Len: 4, Cells: []int32{9, 2, 5, 0}}
	seq := func(kv KV, pos ...int32) []SeqKV { return []SeqKV{{KV: kv, Pos: pos}} }
	windowed := p
	windowed.Window = 2
	sinks, fewSinks := p, p
	sinks.Sinks, fewSinks.Sinks = []float32{1, 2, 3, 4}, []float32{1, 2}
	for _, tt := range []struct {
		name   string
		dst, q Tensor
		seqs   []SeqKV
		p      AttentionParams
		want   string
		shape  bool
	}{
		{"one sequence", dst, q, seq(kv, 7, 8, 9), p, "", false},
		{"paged", dst, q, seq(paged, 1, 2, 3), p, "", false},
		{"batch", dst, q, []SeqKV{{KV: kv, Pos: []int32{9}}, {KV: paged, Pos: []int32{2, 3}}, {Pos: nil}}, p, "", false},
		{"aliased", q, q, seq(kv, 7, 8, 9), p, "destination aliases the queries", true},
		{"sinks", dst, q, seq(kv, 7, 8, 9), sinks, "", false},
		{"a sink per head", dst, q, seq(kv, 7, 8, 9), fewSinks, "attention with 2 sinks for 4 heads", true},
		{"heads", dst, q, seq(kv, 7, 8, 9), AttentionParams{Heads: 4, KVHeads: 3, HeadDim: 32, ValueDim: 32}, "with 4/3 heads of 32/32", true},
		{"query width", dst, f32(96, 3), seq(kv, 7, 8, 9), p, "attention of q [96 3] into [128 3]", true},
		{"rows", dst, q, seq(kv, 8, 9), p, "attention of 3 query rows into 3 for sequences of 2 tokens", true},
		{"cells past the cache", dst, q, seq(KV{K: k, V: v, Len: 11}, 7, 8, 9), p, "attention over k [64 10], v [64 10] (11 cells)", true},
		{"short value rows", dst, q, seq(KV{K: k, V: f32(64, 5), Len: 6}, 7, 8, 9), p, "(6 cells)", true},
		{"key width", dst, q, seq(KV{K: f32(32, 10), V: v, Len: 4}, 7, 8, 9), p, "attention over k [32 10]", true},
		{"no keys", dst, q, seq(KV{V: v, Len: 4}, 7, 8, 9), p, "without keys or values", true},
		{"short cell table", dst, q, seq(KV{K: k, V: v, Len: 5, Cells: []int32{1, 2}}, 7, 8, 9), p, "(5 cells)", true},
		{"cell out of range", dst, q, seq(KV{K: k, V: v, Len: 2, Cells: []int32{1, 10}}, 7, 8, 9), p, "cell 1 of the sequence is row 10, out of range", true},
		{"released cell", dst, q, seq(KV{K: k, V: v, Len: 2, Cells: []int32{-1, 3}}, 7, 8, 9), p, "cell 0 of the sequence is row -1", true},
		{"released cell outside the window", dst, q, seq(KV{K: k, V: v, Len: 9, Cells: []int32{-1, -1, -1, -1, -1, -1, 3, 4, 5}}, 7, 8, 9), windowed, "", false},
		{"released cell inside the window", dst, q, seq(KV{K: k, V: v, Len: 9, Cells: []int32{-1, -1, -1, -1, -1, -1, -1, 4, 5}}, 7, 8, 9), windowed, "cell 6 of the sequence is row -1", true},
		{"batch names the sequence", dst, q, []SeqKV{{KV: kv, Pos: []int32{9}}, {KV: KV{K: k, V: v, Len: 1, Cells: []int32{12}}, Pos: []int32{2, 3}}}, p, "sequence 1 of the batch: attention: cell 0", true},
		{"empty sequence not read", f32(128, 0), f32(128, 0), seq(KV{Len: -1}), p, "", false},
		{"q8_0 heads", f32(80, 3), f32(80, 3), seq(KV{K: &shaped{quant.TypeQ8_0, []int{40, 10}}, V: &shaped{quant.TypeQ8_0, []int{40, 10}}, Len: 3}, 0, 1, 2),
			AttentionParams{Heads: 4, KVHeads: 2, HeadDim: 20, ValueDim: 20}, "a Q8_0 cache needs heads a multiple of 32 long, not 20/20", true},
	} {
		t.Run(tt.name, func(t *testing.T) { checkErr(t, CheckAttention(tt.dst, tt.q, tt.seqs, tt.p), tt.want, tt.shape) })
	}
}
