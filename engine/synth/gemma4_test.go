package synth

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// TestGemma4Shape writes tiny-gemma4 and checks Gemma 4's keys and fixed
// tensors: the sliding pattern, per-layer KV heads and feed-forward
// lengths, and rope factors that rotate a quarter of the global heads'
// pairs.
func TestGemma4Shape(t *testing.T) {
	shape, err := LookupShape("tiny-gemma4")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g4.gguf")
	if err := Write(context.Background(), path, Options{Shape: shape, FileType: gguf.FileTypeAllF32, Vocab: miniVocab(t), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	swa, err := f.Bools("gemma4.attention.sliding_window_pattern")
	if want := []bool{true, true, false, true, true, false}; err != nil || !slices.Equal(swa, want) {
		t.Errorf("sliding pattern %v (%v), want %v", swa, err, want)
	}
	kv, err := f.LayerUints(gguf.KeyHeadCountKV)
	if want := []uint64{2, 2, 1, 2, 2, 1}; err != nil || !slices.Equal(kv, want) {
		t.Errorf("KV heads %v (%v), want %v", kv, err, want)
	}
	ff, err := f.LayerUints(gguf.KeyFeedForwardLength)
	if want := []uint64{512, 512, 512, 1024, 1024, 1024}; err != nil || !slices.Equal(ff, want) {
		t.Errorf("feed-forward lengths %v (%v), want %v", ff, err, want)
	}
	ti, ok := f.Tensor("rope_freqs.weight")
	if !ok {
		t.Fatal("no rope_freqs.weight")
	}
	data, err := f.Data(ti)
	if err != nil {
		t.Fatal(err)
	}
	factors := make([]float32, 64)
	if err := quant.Dequantize(quant.TypeF32, data, factors); err != nil {
		t.Fatal(err)
	}
	for i, v := range factors {
		want := float32(1)
		if i >= 16 {
			want = 1e30
		}
		if v != want {
			t.Fatalf("rope factor %d is %g, want %g", i, v, want)
		}
	}
	for _, name := range []string{"blk.2.attn_v.weight", "blk.3.attn_k.weight", "blk.5.attn_k_norm.weight"} {
		if _, ok := f.Tensor(name); ok {
			t.Errorf("%s: a global layer's keys are its values, and shared layers have no keys", name)
		}
	}
}
