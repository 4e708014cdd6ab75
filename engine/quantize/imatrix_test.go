package quantize

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// f32Bytes encodes v as little-endian float32s.
func f32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// imatrixGGUF builds a GGUF importance matrix with the given tensors
// (name → shape and values) and, unless bare, the imatrix.* keys.
func imatrixGGUF(t testing.TB, bare bool, tensors ...any) []byte {
	t.Helper()
	w := gguf.NewWriter()
	if !bare {
		for k, v := range map[string]any{keyImatrixDatasets: []string{"story.txt"}, keyImatrixChunkCount: uint32(3), keyImatrixChunkSize: uint32(64)} {
			if err := w.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < len(tensors); i += 3 {
		typ := quant.TypeF32
		data := f32Bytes(tensors[i+2].([]float32)...)
		if s, ok := tensors[i+2].([]float32); ok && len(s) == 1 && s[0] == -99 {
			typ, data = quant.TypeF16, []byte{0, 0}
		}
		if err := w.AddTensor(tensors[i].(string), typ, tensors[i+1].([]int64), data); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// legacyImatrix builds a .dat importance matrix of one entry.
func legacyImatrix(name string, ncall int32, vals []float32, trailer bool) []byte {
	var b bytes.Buffer
	put := func(v int32) { _ = binary.Write(&b, binary.LittleEndian, v) }
	put(1)
	put(int32(len(name)))
	b.WriteString(name)
	put(ncall)
	put(int32(len(vals)))
	b.Write(f32Bytes(vals...))
	if trailer {
		put(7)
		put(5)
		b.WriteString("a.txt")
	}
	return b.Bytes()
}

// TestParseImatrix checks the averaging of both formats, per expert, and
// the errors of malformed files.
func TestParseImatrix(t *testing.T) {
	good := imatrixGGUF(t, false,
		"blk.0.ffn_up.weight.in_sum2", []int64{4}, []float32{2, 4, 6, 8},
		"blk.0.ffn_up.weight.counts", []int64{1}, []float32{2},
		"blk.0.ffn_down_exps.weight.in_sum2", []int64{2, 2}, []float32{3, 6, 5, 7},
		"blk.0.ffn_down_exps.weight.counts", []int64{1, 2}, []float32{2.6, 0},
	)
	m, err := parseImatrix(good)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Weights["blk.0.ffn_up.weight"], []float32{1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("ffn_up weights %v, want %v", got, want)
	}
	// The count 2.6 rounds to 3; the expert with no count weighs 1.
	if got, want := m.Weights["blk.0.ffn_down_exps.weight"], []float32{1, 2, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("expert weights %v, want %v", got, want)
	}
	if m.Chunks != 3 || !slices.Equal(m.Datasets, []string{"story.txt"}) {
		t.Errorf("chunks %d, datasets %v", m.Chunks, m.Datasets)
	}

	leg, err := parseImatrix(legacyImatrix("blk.1.attn_q.weight", 4, []float32{4, 8}, true))
	if err != nil {
		t.Fatal(err)
	}
	if got := leg.Weights["blk.1.attn_q.weight"]; !slices.Equal(got, []float32{1, 2}) {
		t.Errorf("legacy weights %v", got)
	}
	if leg.Chunks != 7 || !slices.Equal(leg.Datasets, []string{"a.txt"}) {
		t.Errorf("legacy chunks %d, datasets %v", leg.Chunks, leg.Datasets)
	}

	bad := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"no metadata", imatrixGGUF(t, true, "a.in_sum2", []int64{2}, []float32{1, 2}, "a.counts", []int64{1}, []float32{1}), "missing imatrix metadata"},
		{"no tensors", imatrixGGUF(t, false), "no data"},
		{"no counts", imatrixGGUF(t, false, "a.in_sum2", []int64{2}, []float32{1, 2}), `"a" has sums and counts mismatched`},
		{"not F32", imatrixGGUF(t, false, "a.in_sum2", []int64{1}, []float32{-99}, "a.counts", []int64{1}, []float32{1}), "not F32"},
		{"indivisible", imatrixGGUF(t, false, "a.in_sum2", []int64{3}, []float32{1, 2, 3}, "a.counts", []int64{2}, []float32{1, 1}), "do not divide"},
		{"NaN", imatrixGGUF(t, false, "a.in_sum2", []int64{1}, []float32{float32(math.NaN())}, "a.counts", []int64{1}, []float32{1}), "non-finite"},
		{"legacy zero entries", []byte{0, 0, 0, 0}, "no data"},
		{"legacy truncated values", legacyImatrix("x", 1, []float32{1, 2}, false)[:20], "truncated"},
		{"legacy negative name", []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, "malformed at a name"},
		{"legacy no values", legacyImatrix("x", 1, nil, false), "0 values"},
	}
	for _, tt := range bad {
		if _, err := parseImatrix(tt.b); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestImatrixFiles reads the matrices llama-imatrix wrote for a synthetic
// model in both formats, from $SAJI_IMATRIX_GGUF and $SAJI_IMATRIX_DAT,
// and checks that they agree.
func TestImatrixFiles(t *testing.T) {
	gp, dp := os.Getenv("SAJI_IMATRIX_GGUF"), os.Getenv("SAJI_IMATRIX_DAT")
	if gp == "" || dp == "" {
		t.Skip("set SAJI_IMATRIX_GGUF and SAJI_IMATRIX_DAT to llama-imatrix's output for one model in both formats")
	}
	g, err := ReadImatrix(gp)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadImatrix(filepath.Clean(dp))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Weights) == 0 || len(g.Weights) != len(d.Weights) {
		t.Fatalf("%d entries in GGUF, %d in .dat", len(g.Weights), len(d.Weights))
	}
	for name, w := range g.Weights {
		v := d.Weights[name]
		if len(v) != len(w) {
			t.Fatalf("%s: %d and %d weights", name, len(w), len(v))
		}
		for i := range w {
			if diff := math.Abs(float64(w[i] - v[i])); diff > 1e-5*math.Abs(float64(w[i])) {
				t.Fatalf("%s[%d]: %v and %v", name, i, w[i], v[i])
			}
		}
	}
}

// FuzzParseImatrix checks that no input makes the reader panic.
func FuzzParseImatrix(f *testing.F) {
	f.Add(legacyImatrix("blk.0.attn_q.weight", 2, []float32{1, 2, 3}, true))
	f.Add([]byte("GGUF"))
	f.Add(imatrixGGUF(f, false,
		"a.in_sum2", []int64{2, 2}, []float32{1, 2, 3, 4},
		"a.counts", []int64{1, 2}, []float32{1, 2}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseImatrix(b)
		if err == nil && m == nil {
			t.Fatal("no matrix and no error")
		}
	})
}
