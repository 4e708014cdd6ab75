package model

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

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
// The files are the synthetic tiny llama, edited (synth.WriteEdited).
// NVFP4 and Q2_0 stand for a type no kernel computes with (no one is
// adding them); Q8_1 has a codec (rows can be read) but no matrix product.
func TestRunnable(t *testing.T) {
	tests := []struct {
		name string
		edit synth.Edit
		want string // "" for a runnable file
		is   error  // what the error wraps
	}{
		{name: "runnable"},
		{name: "unknown architecture", edit: synth.Edit{Set: map[string]any{gguf.KeyArchitecture: "gpt-neox"}},
			want: `model: Saji cannot run "gpt-neox" models yet (it runs `, is: ErrUnknownArch},
		{name: "no architecture", edit: synth.Edit{Unset: []string{gguf.KeyArchitecture}},
			want: "model: the file has no general.architecture, so Saji cannot tell which model it holds", is: ErrUnknownArch},
		{name: "matmul weight", edit: synth.Edit{Types: map[string]quant.Type{"blk.1.ffn_up.weight": quant.TypeNVFP4}},
			want: "model: blk.1.ffn_up.weight is NVFP4, a type Saji cannot compute with yet", is: ErrUnsupportedType},
		{name: "output head", edit: synth.Edit{Types: map[string]quant.Type{"output.weight": quant.TypeQ2_0}},
			want: "model: output.weight is Q2_0, a type Saji cannot compute with yet", is: ErrUnsupportedType},
		{name: "norm", edit: synth.Edit{Types: map[string]quant.Type{"blk.0.attn_norm.weight": quant.TypeF16}},
			want: "model: blk.0.attn_norm.weight is F16, but Saji reads norms and biases as F32 only", is: ErrUnsupportedType},
		{name: "embeddings", edit: synth.Edit{Types: map[string]quant.Type{"token_embd.weight": quant.TypeNVFP4}},
			want: "model: token_embd.weight is NVFP4, a type Saji cannot read yet", is: ErrUnsupportedType},
		{name: "embeddings read", edit: synth.Edit{Types: map[string]quant.Type{"token_embd.weight": quant.TypeQ8_1}}},
		{name: "tied embeddings", edit: synth.Edit{Types: map[string]quant.Type{"token_embd.weight": quant.TypeQ8_1},
			Drop: []string{"output.weight"}},
			want: "model: token_embd.weight is Q8_1, a type Saji cannot compute the output with yet", is: ErrUnsupportedType},
		{name: "missing metadata", edit: synth.Edit{Unset: []string{"llama.block_count"}},
			want: "model: describing llama: hyperparameter block_count"},
	}
	src := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.WriteTiny(context.Background(), src, "q8_0", 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "m.gguf")
			if err := synth.WriteEdited(context.Background(), src, p, tc.edit); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = Runnable(f)
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
