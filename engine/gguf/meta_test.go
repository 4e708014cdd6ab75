package gguf

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"saji/kernels/quant"
)

func sinkFile(t *testing.T) *File {
	t.Helper()
	f, err := OpenBytes(encode(t, buildWriter(t, sinkKVs(t), sinkTensors)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestTypedGetters(t *testing.T) {
	f := sinkFile(t)
	check := func(name string, got any, err error, want any) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", name, got, want)
		}
	}
	s, err := f.String("t.str")
	check("String", s, err, "héllo\x00world")
	u, err := f.Uint("t.u16")
	check("Uint(u16)", u, err, uint64(60000))
	u, err = f.Uint("t.u64")
	check("Uint(u64)", u, err, uint64(math.MaxUint64))
	u, err = f.Uint("%s.context_length")
	check("Uint(%s.context_length)", u, err, uint64(4096))
	i, err := f.Int("t.i64")
	check("Int(i64)", i, err, int64(math.MinInt64))
	i, err = f.Int("t.u8")
	check("Int(u8)", i, err, int64(200))
	x, err := f.Float("t.f64")
	check("Float(f64)", x, err, math.Pi)
	x, err = f.Float("t.i16")
	check("Float(i16)", x, err, float64(-30000))
	b, err := f.Bool("t.bool")
	check("Bool", b, err, true)
	ss, err := f.Strings("t.a.str")
	check("Strings", ss, err, []string{"", "a", "bc"})
	i32, err := f.Int32s("t.a.i16")
	check("Int32s(i16)", i32, err, []int32{-32768, 32767})
	u32, err := f.Uint32s("t.a.u8")
	check("Uint32s(u8)", u32, err, []uint32{1, 2, 3})
	us, err := f.Uints("t.a.u16")
	check("Uints", us, err, []uint64{1, 65535})
	is, err := f.Ints("t.a.i8")
	check("Ints", is, err, []int64{-1, 0, 1})
	f32, err := f.Float32s("t.a.f64")
	check("Float32s(f64)", f32, err, []float32{float32(math.Inf(1))})
	bs, err := f.Bools("t.a.bool")
	check("Bools", bs, err, []bool{true, false, true})

	for _, tc := range []struct {
		name string
		err  error
		sent error
		want string
	}{
		{"missing", func() error { _, err := f.Uint("nope"); return err }(), ErrNotFound, `"nope"`},
		{"string as uint", func() error { _, err := f.Uint("t.str"); return err }(), ErrType, "value is string, want an integer"},
		{"negative as uint", func() error { _, err := f.Uint("t.i8"); return err }(), ErrType, "-100 is negative"},
		{"huge as int", func() error { _, err := f.Int("t.u64"); return err }(), ErrType, "does not fit an int64"},
		{"uint32 overflow", func() error { _, err := f.Uint32("t.u64"); return err }(), ErrType, "does not fit a uint32"},
		{"array as string", func() error { _, err := f.String("t.a.str"); return err }(), ErrType, "array of string"},
		{"strings of ints", func() error { _, err := f.Strings("t.a.u8"); return err }(), ErrType, "array of uint8"},
		{"negative in uints", func() error { _, err := f.Uints("t.a.i8"); return err }(), ErrType, "negative"},
		{"int32s overflow", func() error { _, err := f.Int32s("t.a.u64"); return err }(), ErrType, "does not fit an int32"},
		{"float of bool", func() error { _, err := f.Float("t.bool"); return err }(), ErrType, "want a number"},
	} {
		if !errors.Is(tc.err, tc.sent) || !strings.Contains(tc.err.Error(), tc.want) || !strings.HasPrefix(tc.err.Error(), "gguf: ") {
			t.Errorf("%s: error %v, want %v containing %q", tc.name, tc.err, tc.sent, tc.want)
		}
	}
}

func TestModelAccessors(t *testing.T) {
	f := sinkFile(t)
	if a, err := f.Architecture(); err != nil || a != "llama" {
		t.Errorf("Architecture = %q, %v", a, err)
	}
	if n, err := f.Name(); err != nil || n != "kitchen sink" {
		t.Errorf("Name = %q, %v", n, err)
	}
	if ft, err := f.FileType(); err != nil || ft != FileTypeMostlyQ8_0 || ft.String() != "Q8_0" {
		t.Errorf("FileType = %v, %v", ft, err)
	}
	nums := map[string]func() (uint64, error){
		"ContextLength":   f.ContextLength,
		"EmbeddingLength": f.EmbeddingLength,
		"BlockCount":      f.BlockCount,
		"HeadCount":       f.HeadCount,
		"VocabSize":       f.VocabSize,
	}
	want := map[string]uint64{"ContextLength": 4096, "EmbeddingLength": 64, "BlockCount": 2, "HeadCount": 4, "VocabSize": 4}
	for name, fn := range nums {
		if got, err := fn(); err != nil || got != want[name] {
			t.Errorf("%s = %d, %v; want %d", name, got, err, want[name])
		}
	}
	if _, err := f.HeadCountKV(); !errors.Is(err, ErrType) {
		t.Errorf("HeadCountKV of a per-layer array: %v, want ErrType", err)
	}
	if got, err := f.LayerUints(KeyHeadCountKV); err != nil || !reflect.DeepEqual(got, []uint64{2, 1}) {
		t.Errorf("LayerUints(head_count_kv) = %v, %v", got, err)
	}
	if got, err := f.LayerUints(KeyHeadCount); err != nil || !reflect.DeepEqual(got, []uint64{4, 4}) {
		t.Errorf("LayerUints(head_count) = %v, %v", got, err)
	}
	if x, err := f.RopeFreqBase(); err != nil || x != 10000 {
		t.Errorf("RopeFreqBase = %v, %v", x, err)
	}
	if x, err := f.RMSEpsilon(); err != nil || float32(x) != 1e-5 {
		t.Errorf("RMSEpsilon = %v, %v", x, err)
	}
	if _, err := f.SlidingWindow(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "llama.attention.sliding_window") {
		t.Errorf("SlidingWindow: %v", err)
	}
	if m, err := f.TokenizerModel(); err != nil || m != "gpt2" {
		t.Errorf("TokenizerModel = %q, %v", m, err)
	}
	if tt, err := f.TokenTypes(); err != nil || len(tt) != 4 {
		t.Errorf("TokenTypes = %v, %v", tt, err)
	}
	if m, err := f.Merges(); err != nil || len(m) != 1 {
		t.Errorf("Merges = %v, %v", m, err)
	}
	if id, err := f.EOSTokenID(); err != nil || id != 3 {
		t.Errorf("EOS = %d, %v", id, err)
	}
	if _, err := f.ChatTemplate(); !errors.Is(err, ErrNotFound) {
		t.Errorf("ChatTemplate: %v", err)
	}

	// Defaults and missing architecture.
	w := NewWriter()
	_ = w.Set("x.attention.head_count", uint32(8))
	_ = w.Set(KeyArchitecture, "x")
	g, err := OpenBytes(encode(t, w))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := g.HeadCountKV(); err != nil || n != 8 {
		t.Errorf("HeadCountKV default = %d, %v; want the head count", n, err)
	}
	empty, _ := OpenBytes(encode(t, NewWriter()))
	if _, err := empty.ContextLength(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), KeyArchitecture) {
		t.Errorf("ContextLength without an architecture: %v", err)
	}
}

func TestParameterCountAndSummary(t *testing.T) {
	f := sinkFile(t)
	var want int64
	for _, tt := range sinkTensors {
		n := int64(1)
		for _, d := range tt.shape {
			n *= d
		}
		want += n
	}
	if got := f.ParameterCount(); got != want {
		t.Errorf("ParameterCount = %d, want %d", got, want)
	}
	s := f.Summary()
	if s.Architecture != "llama" || s.Name != "kitchen sink" || !s.HasFileType || s.FileType != FileTypeMostlyQ8_0 ||
		s.ContextLength != 4096 || s.BlockCount != 2 || s.HeadCount != 4 || s.HeadCountKV != 2 ||
		s.TokenizerModel != "gpt2" || s.VocabSize != 4 || s.BOS != 0 || s.EOS != 3 ||
		s.TensorCount != len(sinkTensors) || s.Parameters != want || s.Version != 3 || s.Shards != 1 {
		t.Errorf("Summary = %+v", s)
	}
	var count int
	for i, ts := range s.Types {
		count += ts.Count
		if i > 0 && ts.Bytes > s.Types[i-1].Bytes {
			t.Errorf("types not sorted by bytes: %+v", s.Types)
		}
	}
	if count != len(sinkTensors) || s.Types[0].Type != quant.TypeQ4_K {
		t.Errorf("type histogram %+v", s.Types)
	}
}

func TestFileTypeNames(t *testing.T) {
	for _, tc := range []struct {
		ft         FileType
		name, desc string
	}{
		{FileTypeAllF32, "F32", "all F32"},
		{FileTypeMostlyF16, "F16", "F16"},
		{FileTypeMostlyQ4_K_M, "Q4_K_M", "Q4_K - Medium"},
		{FileTypeMostlyIQ4NL, "IQ4_NL", "IQ4_NL - 4.5 bpw"},
		{FileTypeMostlyIQ2XXS, "IQ2_XXS", "IQ2_XXS - 2.0625 bpw"},
		{FileTypeMostlyBF16, "BF16", "BF16"},
		{FileTypeMostlyQ2_0, "Q2_0", "Q2_0"},
		{FileTypeAllF32 | FileTypeGuessed, "F32", "(guessed) all F32"},
		{4, "unknown(4)", "unknown, may not work"},
	} {
		if tc.ft.String() != tc.name || tc.ft.Description() != tc.desc {
			t.Errorf("%d: %q %q, want %q %q", uint32(tc.ft), tc.ft.String(), tc.ft.Description(), tc.name, tc.desc)
		}
	}
}

func TestValueBasics(t *testing.T) {
	for _, tc := range []struct {
		x    any
		typ  ValueType
		str  string
		size uint64
	}{
		{uint8(1), TypeUint8, "1", 1},
		{int16(-2), TypeInt16, "-2", 2},
		{float32(0.1), TypeFloat32, "0.1", 4},
		{true, TypeBool, "true", 1},
		{"q", TypeString, `"q"`, 9},
		{[]uint32{1, 2}, TypeArray, "[1, 2]", 12 + 8},
		{[]string{"a"}, TypeArray, `["a"]`, 12 + 9},
		{make([]uint8, 10), TypeArray, "[0, 0, 0, 0, 0, 0, 0, 0, ... (10 elements)]", 12 + 10},
	} {
		v, err := ValueOf(tc.x)
		if err != nil {
			t.Fatal(err)
		}
		if v.Type() != tc.typ || v.String() != tc.str || valueSize(v) != tc.size {
			t.Errorf("ValueOf(%#v): type %s, %q, size %d", tc.x, v.Type(), v.String(), valueSize(v))
		}
	}
	if TypeFloat64.String() != "float64" || ValueType(99).String() != "type(99)" || ValueType(99).Valid() {
		t.Error("ValueType names")
	}
	v, _ := NewArray([]int32{5})
	if v.Index(1).Type() != 0 || v.Index(-1).Interface() != nil || v.Index(0).Interface() != int32(5) {
		t.Error("Index out of range must give the zero Value")
	}
}

// TestBlockCountBound checks that a block count past maxLayers is a
// malformed file, for BlockCount and LayerUints alike.
func TestBlockCountBound(t *testing.T) {
	for _, tc := range []struct {
		n  uint32
		ok bool
	}{{maxLayers, true}, {maxLayers + 1, false}, {1_056_964_612, false}} {
		w := NewWriter()
		for k, v := range map[string]any{KeyArchitecture: "llama", "llama.block_count": tc.n, "llama.attention.head_count": uint32(4)} {
			if err := w.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		f, err := OpenBytes(encode(t, w))
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.BlockCount()
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, ErrFormat)) || (tc.ok && n != uint64(tc.n)) {
			t.Errorf("block count %d: BlockCount = %d, %v", tc.n, n, err)
		}
		if heads, err := f.LayerUints(KeyHeadCount); tc.ok != (err == nil) || (tc.ok && len(heads) != int(tc.n)) {
			t.Errorf("block count %d: LayerUints = %d values, %v", tc.n, len(heads), err)
		}
	}
}
