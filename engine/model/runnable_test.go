package model

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// retyped writes the tiny Phi-3 as tinyPhi3.file does, with the tensors of
// types stored as that type (zeroed blocks), those of drop left out, and
// the keys of unset deleted.
func (m *tinyPhi3) retyped(t *testing.T, arch string, types map[string]quant.Type, drop, unset []string) *gguf.File {
	t.Helper()
	src := m.file(t, arch)
	w := gguf.NewWriter()
	for _, kv := range src.KVs() {
		if !slices.Contains(unset, kv.Key) {
			if err := w.Set(kv.Key, kv.Value); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, ti := range src.Tensors() {
		if slices.Contains(drop, ti.Name) {
			continue
		}
		data, err := src.Data(ti)
		if err != nil {
			t.Fatal(err)
		}
		if typ, ok := types[ti.Name]; ok {
			n, err := typ.RowSize(ti.Elements())
			if err != nil {
				t.Fatal(err)
			}
			ti.Type, data = typ, make([]byte, n)
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, data); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// weightCounter is a CPU backend that counts the weights it wraps.
type weightCounter struct {
	*cpu.Backend
	n int
}

// Weight counts the call and wraps the weight.
func (b *weightCounter) Weight(typ quant.Type, shape []int, data []byte) (kernels.Tensor, error) {
	b.n++
	return b.Backend.Weight(typ, shape, data)
}

// TestRunnable checks the sentence Runnable, Describe and Load give for a
// file Saji cannot run, and that Load gives it before it wraps a weight.
// NVFP4 and Q2_0 stand for a type no kernel computes with (no one is
// adding them); Q8_1 has a codec (rows can be read) but no matrix product.
func TestRunnable(t *testing.T) {
	tests := []struct {
		name  string
		arch  string
		types map[string]quant.Type
		drop  []string
		unset []string
		want  string // "" for a runnable file
		is    error  // what the error wraps
	}{
		{name: "runnable", arch: "phi3"},
		{name: "unknown architecture", arch: "gpt-neox",
			want: `model: Saji cannot run "gpt-neox" models yet (it runs `, is: ErrUnknownArch},
		{name: "no architecture", arch: "phi3", unset: []string{gguf.KeyArchitecture},
			want: "model: the file has no general.architecture, so Saji cannot tell which model it holds", is: ErrUnknownArch},
		{name: "matmul weight", arch: "phi3", types: map[string]quant.Type{"blk.1.ffn_up.weight": quant.TypeNVFP4},
			want: "model: blk.1.ffn_up.weight is NVFP4, a type Saji cannot compute with yet", is: ErrUnsupportedType},
		{name: "output head", arch: "phi3", types: map[string]quant.Type{"output.weight": quant.TypeQ2_0},
			want: "model: output.weight is Q2_0, a type Saji cannot compute with yet", is: ErrUnsupportedType},
		{name: "norm", arch: "phi3", types: map[string]quant.Type{"blk.0.attn_norm.weight": quant.TypeF16},
			want: "model: blk.0.attn_norm.weight is F16, but Saji reads norms and biases as F32 only", is: ErrUnsupportedType},
		{name: "embeddings", arch: "phi3", types: map[string]quant.Type{"token_embd.weight": quant.TypeNVFP4},
			want: "model: token_embd.weight is NVFP4, a type Saji cannot read yet", is: ErrUnsupportedType},
		{name: "embeddings read", arch: "phi3", types: map[string]quant.Type{"token_embd.weight": quant.TypeQ8_1}},
		{name: "tied embeddings", arch: "phi3", types: map[string]quant.Type{"token_embd.weight": quant.TypeQ8_1},
			drop: []string{"output.weight"},
			want: "model: token_embd.weight is Q8_1, a type Saji cannot compute the output with yet", is: ErrUnsupportedType},
		{name: "missing metadata", arch: "phi3", unset: []string{"phi3.block_count"},
			want: "model: describing phi3: hyperparameter block_count"},
	}
	m := newTinyPhi3()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := m.retyped(t, tc.arch, tc.types, tc.drop, tc.unset)
			err := Runnable(f)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Runnable: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Runnable: %v, want %q", err, tc.want)
			}
			var re *RunError
			if errors.As(err, &re) != (tc.is != nil) || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Errorf("Runnable: %v: RunError %v, wraps %v", err, re, tc.is)
			}
			if _, derr := Describe(f); derr == nil || derr.Error() != err.Error() {
				t.Errorf("Describe: %v, Runnable: %v", derr, err)
			}
			b := &weightCounter{Backend: cpu.New(1)}
			_, lerr := Load(context.Background(), f, Options{Backend: b})
			if tc.is != nil && (lerr == nil || lerr.Error() != err.Error()) {
				t.Errorf("Load: %v, Runnable: %v", lerr, err)
			}
			if lerr == nil || b.n != 0 {
				t.Errorf("Load: %v after wrapping %d weights", lerr, b.n)
			}
		})
	}
}
