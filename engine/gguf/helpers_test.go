package gguf

import (
	"bytes"
	"context"
	"math"
	"testing"

	"saji/kernels/quant"
)

// sinkKVs is metadata with every value type, empty and nested arrays.
func sinkKVs(t testing.TB) []KV {
	t.Helper()
	arr := func(x any) Value {
		v, err := NewArray(x)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	inner1, inner2 := arr([]string{"x", "yz"}), arr([]float64{1.5, -2})
	return []KV{
		{"general.architecture", NewString("llama")},
		{"general.name", NewString("kitchen sink")},
		{"general.file_type", NewUint32(uint32(FileTypeMostlyQ8_0))},
		{"llama.context_length", NewUint32(4096)},
		{"llama.embedding_length", NewUint64(64)},
		{"llama.block_count", NewUint32(2)},
		{"llama.attention.head_count", NewUint16(4)},
		{"llama.attention.head_count_kv", arr([]int32{2, 1})},
		{"llama.rope.freq_base", NewFloat32(10000)},
		{"llama.attention.layer_norm_rms_epsilon", NewFloat32(1e-5)},
		{"t.u8", NewUint8(200)},
		{"t.i8", NewInt8(-100)},
		{"t.u16", NewUint16(60000)},
		{"t.i16", NewInt16(-30000)},
		{"t.u32", NewUint32(math.MaxUint32)},
		{"t.i32", NewInt32(math.MinInt32)},
		{"t.f32", NewFloat32(float32(math.Inf(-1)))},
		{"t.bool", NewBool(true)},
		{"t.str", NewString("héllo\x00world")},
		{"t.u64", NewUint64(math.MaxUint64)},
		{"t.i64", NewInt64(math.MinInt64)},
		{"t.f64", NewFloat64(math.Pi)},
		{"t.a.u8", arr([]uint8{1, 2, 3})},
		{"t.a.i8", arr([]int8{-1, 0, 1})},
		{"t.a.u16", arr([]uint16{1, 65535})},
		{"t.a.i16", arr([]int16{-32768, 32767})},
		{"t.a.u32", arr([]uint32{7})},
		{"t.a.f32", arr([]float32{0.5, -0.25})},
		{"t.a.bool", arr([]bool{true, false, true})},
		{"t.a.str", arr([]string{"", "a", "bc"})},
		{"t.a.u64", arr([]uint64{1 << 40})},
		{"t.a.i64", arr([]int64{-1 << 40})},
		{"t.a.f64", arr([]float64{1e300})},
		{"t.a.empty", arr([]string{})},
		{"t.a.nested", arr([]Value{inner1, inner2, arr([]Value{arr([]bool{})})})},
		{"tokenizer.ggml.model", NewString("gpt2")},
		{"tokenizer.ggml.tokens", arr([]string{"a", "b", "c", "ab"})},
		{"tokenizer.ggml.token_type", arr([]int32{1, 1, 1, 3})},
		{"tokenizer.ggml.merges", arr([]string{"a b"})},
		{"tokenizer.ggml.bos_token_id", NewUint32(0)},
		{"tokenizer.ggml.eos_token_id", NewUint32(3)},
	}
}

// testTensor is a tensor to write in tests.
type testTensor struct {
	name  string
	typ   quant.Type
	shape []int64
}

// sinkTensors covers several types, dimension counts and a zero-size
// tensor.
var sinkTensors = []testTensor{
	{"token_embd.weight", quant.TypeQ8_0, []int64{64, 4}},
	{"blk.0.attn_norm.weight", quant.TypeF32, []int64{64}},
	{"blk.0.ffn_up.weight", quant.TypeQ4_K, []int64{256, 3}},
	{"blk.1.scalar", quant.TypeF16, nil},
	{"blk.1.four_d", quant.TypeBF16, []int64{2, 3, 1, 2}},
	{"blk.1.empty", quant.TypeI32, []int64{4, 0}},
	{"output.weight", quant.TypeQ6_K, []int64{256, 1, 1}},
}

// patterned returns n deterministic bytes.
func patterned(seed, n int64) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// buildWriter makes a Writer holding kvs and tensors (with patterned
// data).
func buildWriter(t testing.TB, kvs []KV, tensors []testTensor) *Writer {
	t.Helper()
	w := NewWriter()
	for _, kv := range kvs {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatalf("Set(%q): %v", kv.Key, err)
		}
	}
	for i, tt := range tensors {
		size, err := tensorBytes(tt.typ, tt.shape)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(tt.name, tt.typ, tt.shape, patterned(int64(i), size)); err != nil {
			t.Fatalf("AddTensor(%q): %v", tt.name, err)
		}
	}
	return w
}

// encode writes w to memory.
func encode(t testing.TB, w *Writer) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// syntheticSeeds are small files made by the Writer.
func syntheticSeeds(t testing.TB) [][]byte {
	t.Helper()
	var seeds [][]byte
	seeds = append(seeds, encode(t, buildWriter(t, sinkKVs(t), sinkTensors)))
	w := buildWriter(t, sinkKVs(t)[:3], sinkTensors[1:3])
	if err := w.SetVersion(2); err != nil {
		t.Fatal(err)
	}
	if err := w.SetAlignment(64); err != nil {
		t.Fatal(err)
	}
	seeds = append(seeds, encode(t, w))
	seeds = append(seeds, encode(t, buildWriter(t, nil, nil)))
	seeds = append(seeds, encode(t, buildWriter(t, sinkKVs(t)[30:35], nil)))
	return seeds
}
