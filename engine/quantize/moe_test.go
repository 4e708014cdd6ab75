package quantize_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/engine/quantize"
	"saji/kernels/quant"
)

// moeF32 writes a small F32 mixture-of-experts model (qwen3moe: 2 layers,
// 256 wide, 4 experts of 512) with gguf.Writer and returns its path. Its
// weights come from a fixed linear congruential sequence.
func moeF32(t testing.TB) string {
	t.Helper()
	const embd, vocab, ff, experts = 256, 512, 512, 4
	w := gguf.NewWriter()
	for _, kv := range []struct {
		key string
		val any
	}{
		{"general.architecture", "qwen3moe"},
		{"qwen3moe.context_length", uint32(256)},
		{"qwen3moe.embedding_length", uint32(embd)},
		{"qwen3moe.block_count", uint32(2)},
		{"qwen3moe.feed_forward_length", uint32(ff)},
		{"qwen3moe.expert_feed_forward_length", uint32(ff)},
		{"qwen3moe.expert_count", uint32(experts)},
		{"qwen3moe.expert_used_count", uint32(2)},
		{"qwen3moe.attention.head_count", uint32(4)},
		{"qwen3moe.attention.head_count_kv", uint32(2)},
		{"qwen3moe.attention.key_length", uint32(64)},
		{"qwen3moe.attention.value_length", uint32(64)},
		{"qwen3moe.attention.layer_norm_rms_epsilon", float32(1e-6)},
		{"general.file_type", uint32(gguf.FileTypeAllF32)},
	} {
		if err := w.Set(kv.key, kv.val); err != nil {
			t.Fatal(err)
		}
	}
	s := uint64(1)
	add := func(name string, shape ...int64) {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		b := make([]byte, 4*n)
		for i := range n {
			s = s*6364136223846793005 + 1442695040888963407
			f := float32(uint32(s>>40))/(1<<24)*2 - 1
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f*f*f/4))
		}
		if err := w.AddTensor(name, quant.TypeF32, shape, b); err != nil {
			t.Fatal(err)
		}
	}
	add("token_embd.weight", embd, vocab)
	for l := range 2 {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", embd)
		add(p+"attn_q.weight", embd, 256)
		add(p+"attn_k.weight", embd, 128)
		add(p+"attn_v.weight", embd, 128)
		add(p+"attn_output.weight", 256, embd)
		add(p+"attn_q_norm.weight", 64)
		add(p+"attn_k_norm.weight", 64)
		add(p+"ffn_norm.weight", embd)
		add(p+"ffn_gate_inp.weight", embd, experts)
		add(p+"ffn_gate_exps.weight", embd, ff, experts)
		add(p+"ffn_up_exps.weight", embd, ff, experts)
		add(p+"ffn_down_exps.weight", ff, embd, experts)
	}
	add("output_norm.weight", embd)
	add("output.weight", embd, vocab)
	path := filepath.Join(t.TempDir(), "moe-f32.gguf")
	if err := w.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMoEMix checks the types Quantize gives moeF32's expert tensors.
func TestMoEMix(t *testing.T) {
	in := moeF32(t)
	for _, c := range []struct {
		ft        gguf.FileType
		exps, att quant.Type
	}{
		{gguf.FileTypeMostlyMXFP4, quant.TypeMXFP4, quant.TypeQ8_0},
		{gguf.FileTypeMostlyTQ2_0, quant.TypeTQ2_0, quant.TypeTQ2_0},
		{gguf.FileTypeMostlyTQ1_0, quant.TypeTQ1_0, quant.TypeTQ1_0},
	} {
		t.Run(c.ft.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.gguf")
			if _, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: c.ft, Threads: 2}); err != nil {
				t.Fatal(err)
			}
			f := openT(t, out)
			for name, want := range map[string]quant.Type{
				"blk.1.ffn_up_exps.weight": c.exps, "blk.0.ffn_down_exps.weight": c.exps,
				"blk.0.attn_q.weight": c.att, "blk.0.ffn_gate_inp.weight": quant.TypeF32,
			} {
				if ti, ok := f.Tensor(name); !ok || ti.Type != want {
					t.Errorf("%s: %v, want %v", name, ti.Type, want)
				}
			}
		})
	}
}

// TestMoEMatchesLlamaQuantizeBinary quantizes moeF32 with Saji and with
// the llama-quantize binary named by $SAJI_LLAMA_QUANTIZE to every type
// Saji writes, and checks that every tensor (type, shape and bytes) is the
// same. It is skipped when that is not set.
func TestMoEMatchesLlamaQuantizeBinary(t *testing.T) {
	bin := os.Getenv("SAJI_LLAMA_QUANTIZE")
	if bin == "" {
		t.Skip("set SAJI_LLAMA_QUANTIZE to a llama-quantize binary to compare with it")
	}
	in := moeF32(t)
	for _, ft := range quantize.FileTypes() {
		if ft == gguf.FileTypeAllF32 {
			continue
		}
		t.Run(ft.String(), func(t *testing.T) {
			tmp := t.TempDir()
			ref := filepath.Join(tmp, "ref.gguf")
			if b, err := exec.Command(bin, in, ref, ft.String(), "2").CombinedOutput(); err != nil {
				t.Fatalf("llama-quantize: %v\n%s", err, b)
			}
			out := filepath.Join(tmp, "out.gguf")
			if _, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: ft}); err != nil {
				t.Fatal(err)
			}
			sameTensors(t, openT(t, out), openT(t, ref))
		})
	}
}
