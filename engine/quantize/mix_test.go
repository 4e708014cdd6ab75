package quantize

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// TestMixRules checks the type chosen for tensors of real model shapes
// against the types in llama-quantize's published quantizations of those
// models (Llama-3.2-1B, Qwen2-0.5B, Llama-3.1-8B), and against
// llama_tensor_get_type's rules for TQ1_0, TQ2_0 and MXFP4_MOE (with
// Qwen3-30B-A3B's shapes).
func TestMixRules(t *testing.T) {
	llama1b := Mix{Arch: "llama", Layers: 16, GQA: 4, Tied: true}
	qwen := Mix{Arch: "qwen2", Layers: 24, GQA: 7, Tied: true}
	llama8b := Mix{Arch: "llama", Layers: 32, GQA: 4}
	qwen3moe := Mix{Arch: "qwen3moe", Layers: 48, GQA: 8, Experts: 128}
	with := func(m Mix, ft gguf.FileType) Mix { m.FileType = ft; return m }
	withImatrix := func(m Mix, ft gguf.FileType) Mix { m.FileType, m.Imatrix = ft, true; return m }
	mat := func(cols, rows int64) []int64 { return []int64{cols, rows} }
	tests := []struct {
		mix   Mix
		name  string
		shape []int64
		want  quant.Type
	}{
		// Q4_K_M: tied embeddings get the output's Q6_K; attn_v and
		// ffn_down have Q6_K on layers 0, 1, 4, 7, 10, 13, 14, 15 of 16.
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "token_embd.weight", mat(2048, 128256), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.0.attn_norm.weight", []int64{2048}, quant.TypeF32},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.0.attn_q.weight", mat(2048, 2048), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.0.attn_v.weight", mat(2048, 512), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.2.attn_v.weight", mat(2048, 512), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.4.attn_v.weight", mat(2048, 512), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.5.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.13.ffn_down.weight", mat(8192, 2048), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.14.ffn_down.weight", mat(8192, 2048), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.14.ffn_up.weight", mat(2048, 8192), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_K_M), "blk.14.attn_output.weight", mat(2048, 2048), quant.TypeQ4_K},
		// IQ2_XXS and IQ2_XS: Q5_K for the (tied) output, Q4_K for attn_v
		// with GQA 4, Q2_K for the first eighth of ffn_down.
		{withImatrix(llama1b, gguf.FileTypeMostlyIQ2XXS), "token_embd.weight", mat(2048, 128256), quant.TypeQ5_K},
		{withImatrix(llama1b, gguf.FileTypeMostlyIQ2XXS), "blk.0.attn_v.weight", mat(2048, 512), quant.TypeQ4_K},
		{withImatrix(llama1b, gguf.FileTypeMostlyIQ2XXS), "blk.1.ffn_down.weight", mat(8192, 2048), quant.TypeQ2_K},
		{withImatrix(llama1b, gguf.FileTypeMostlyIQ2XXS), "blk.2.ffn_down.weight", mat(8192, 2048), quant.TypeIQ2_XXS},
		{withImatrix(llama8b, gguf.FileTypeMostlyIQ2XS), "token_embd.weight", mat(4096, 128256), quant.TypeQ2_K},
		{withImatrix(llama8b, gguf.FileTypeMostlyIQ2XS), "blk.3.attn_output.weight", mat(4096, 4096), quant.TypeIQ2_XS},
		{withImatrix(llama8b, gguf.FileTypeMostlyIQ2XS), "blk.3.attn_q.weight", mat(160, 4096), quant.TypeIQ4_NL},
		// With an importance matrix, ffn_down of the first eighth of the
		// layers takes Q4_1 in Q4_0 (Q5_1 in Q5_0), and IQ4_NL keeps it.
		{withImatrix(llama1b, gguf.FileTypeMostlyQ4_0), "blk.1.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_1},
		{withImatrix(llama1b, gguf.FileTypeMostlyQ4_0), "blk.2.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_0},
		{withImatrix(llama1b, gguf.FileTypeMostlyQ5_0), "blk.0.ffn_down.weight", mat(8192, 2048), quant.TypeQ5_1},
		{with(llama1b, gguf.FileTypeMostlyQ4_0), "blk.1.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_0},
		{withImatrix(llama1b, gguf.FileTypeMostlyIQ4NL), "blk.0.ffn_down.weight", mat(8192, 2048), quant.TypeIQ4_NL},
		{with(llama1b, gguf.FileTypeMostlyIQ4NL), "blk.0.ffn_down.weight", mat(8192, 2048), quant.TypeQ5_K},
		// Q8_0 keeps Q8_0 for the output; F16 and BF16 make every matrix
		// 16-bit.
		{with(llama1b, gguf.FileTypeMostlyQ8_0), "token_embd.weight", mat(2048, 128256), quant.TypeQ8_0},
		{with(llama1b, gguf.FileTypeMostlyQ8_0), "blk.0.attn_v.weight", mat(2048, 512), quant.TypeQ8_0},
		{with(llama1b, gguf.FileTypeMostlyF16), "token_embd.weight", mat(2048, 128256), quant.TypeF16},
		{with(llama1b, gguf.FileTypeMostlyF16), "output_norm.weight", []int64{2048}, quant.TypeF32},
		{with(llama1b, gguf.FileTypeMostlyBF16), "blk.3.ffn_down.weight", mat(8192, 2048), quant.TypeBF16},
		{with(llama1b, gguf.FileTypeAllF32), "blk.3.ffn_down.weight", mat(8192, 2048), quant.TypeF32},
		// Q4_0's output is Q6_K.
		{with(llama1b, gguf.FileTypeMostlyQ4_0), "token_embd.weight", mat(2048, 128256), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyQ4_0), "blk.0.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_0},
		// Q3_K_M: attn_v Q5_K on the first two layers, Q4_K after;
		// ffn_down Q5_K on the first sixteenth, Q4_K after.
		{with(llama1b, gguf.FileTypeMostlyQ3_K_M), "blk.1.attn_v.weight", mat(2048, 512), quant.TypeQ5_K},
		{with(llama1b, gguf.FileTypeMostlyQ3_K_M), "blk.2.attn_v.weight", mat(2048, 512), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ3_K_M), "blk.0.ffn_down.weight", mat(8192, 2048), quant.TypeQ5_K},
		{with(llama1b, gguf.FileTypeMostlyQ3_K_M), "blk.1.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ3_K_M), "blk.1.attn_output.weight", mat(2048, 2048), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ3_K_M), "blk.1.attn_q.weight", mat(2048, 2048), quant.TypeQ3_K},
		// Q2_K: attn_v Q4_K with GQA 4, ffn_down Q3_K, attn_output Q3_K.
		{with(llama1b, gguf.FileTypeMostlyQ2_K), "blk.5.attn_v.weight", mat(2048, 512), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyQ2_K), "blk.5.ffn_down.weight", mat(8192, 2048), quant.TypeQ3_K},
		{with(llama1b, gguf.FileTypeMostlyQ2_K), "blk.5.attn_output.weight", mat(2048, 2048), quant.TypeQ3_K},
		{with(llama1b, gguf.FileTypeMostlyQ2_K), "blk.5.ffn_up.weight", mat(2048, 8192), quant.TypeQ2_K},
		// IQ4_NL: attn_v Q5_K with GQA 4, ffn_down Q5_K on the first eighth.
		{with(llama1b, gguf.FileTypeMostlyIQ4NL), "blk.5.attn_v.weight", mat(2048, 512), quant.TypeQ5_K},
		{with(llama1b, gguf.FileTypeMostlyIQ4NL), "blk.1.ffn_down.weight", mat(8192, 2048), quant.TypeQ5_K},
		{with(llama1b, gguf.FileTypeMostlyIQ4NL), "blk.2.ffn_down.weight", mat(8192, 2048), quant.TypeIQ4_NL},
		// IQ3_S (llama_tensor_get_type's rules): attn_v Q4_K with GQA 4,
		// IQ3_S with GQA 2; IQ3_M: attn_v and attn_output Q4_K, ffn_down
		// Q4_K on the first eighth.
		{with(llama1b, gguf.FileTypeMostlyIQ3S), "token_embd.weight", mat(2048, 128256), quant.TypeQ6_K},
		{with(llama1b, gguf.FileTypeMostlyIQ3S), "blk.5.attn_v.weight", mat(2048, 512), quant.TypeQ4_K},
		{with(Mix{Arch: "llama", Layers: 16, GQA: 2}, gguf.FileTypeMostlyIQ3S), "blk.5.attn_v.weight", mat(2048, 1024), quant.TypeIQ3_S},
		{with(llama1b, gguf.FileTypeMostlyIQ3S), "blk.0.ffn_down.weight", mat(8192, 2048), quant.TypeIQ3_S},
		{with(llama1b, gguf.FileTypeMostlyIQ3S), "blk.5.attn_output.weight", mat(2048, 2048), quant.TypeIQ3_S},
		{with(llama1b, gguf.FileTypeMostlyIQ3M), "blk.5.attn_v.weight", mat(2048, 512), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyIQ3M), "blk.1.ffn_down.weight", mat(8192, 2048), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyIQ3M), "blk.2.ffn_down.weight", mat(8192, 2048), quant.TypeIQ3_S},
		{with(llama1b, gguf.FileTypeMostlyIQ3M), "blk.5.attn_output.weight", mat(2048, 2048), quant.TypeQ4_K},
		{with(llama1b, gguf.FileTypeMostlyIQ3M), "blk.5.ffn_up.weight", mat(2048, 8192), quant.TypeIQ3_S},
		// IQ3_S falls back to IQ4_NL where rows do not divide into 256.
		{with(qwen, gguf.FileTypeMostlyIQ3S), "blk.0.attn_q.weight", mat(896, 896), quant.TypeIQ4_NL},
		// Qwen2-0.5B: rows of 896 do not divide into 256-blocks, so the
		// K-quants fall back (Q4_K to Q5_0, Q6_K to Q8_0).
		{with(qwen, gguf.FileTypeMostlyQ4_K_M), "token_embd.weight", mat(896, 151936), quant.TypeQ8_0},
		{with(qwen, gguf.FileTypeMostlyQ4_K_M), "blk.0.attn_q.weight", mat(896, 896), quant.TypeQ5_0},
		{with(qwen, gguf.FileTypeMostlyQ4_K_M), "blk.0.attn_q.bias", []int64{896}, quant.TypeF32},
		{with(qwen, gguf.FileTypeMostlyQ4_K_M), "blk.0.attn_v.weight", mat(896, 128), quant.TypeQ8_0},
		{with(qwen, gguf.FileTypeMostlyQ4_K_M), "blk.0.ffn_down.weight", mat(4864, 896), quant.TypeQ6_K},
		{with(qwen, gguf.FileTypeMostlyQ4_K_M), "blk.3.ffn_down.weight", mat(4864, 896), quant.TypeQ4_K},
		// Llama-3.1-8B: separate output Q6_K, embeddings Q4_K; of 32 layers,
		// 0-3, 6, 9, ..., 27 and 28-31 get more bits.
		{with(llama8b, gguf.FileTypeMostlyQ4_K_M), "token_embd.weight", mat(4096, 128256), quant.TypeQ4_K},
		{with(llama8b, gguf.FileTypeMostlyQ4_K_M), "output.weight", mat(4096, 128256), quant.TypeQ6_K},
		{with(llama8b, gguf.FileTypeMostlyQ4_K_M), "blk.6.ffn_down.weight", mat(14336, 4096), quant.TypeQ6_K},
		{with(llama8b, gguf.FileTypeMostlyQ4_K_M), "blk.7.ffn_down.weight", mat(14336, 4096), quant.TypeQ4_K},
		{with(llama8b, gguf.FileTypeMostlyQ5_K_M), "blk.9.ffn_down.weight", mat(14336, 4096), quant.TypeQ6_K},
		{with(llama8b, gguf.FileTypeMostlyQ5_K_M), "blk.8.ffn_down.weight", mat(14336, 4096), quant.TypeQ5_K},
		{with(llama8b, gguf.FileTypeMostlyQ4_K_S), "blk.3.attn_v.weight", mat(4096, 1024), quant.TypeQ5_K},
		{with(llama8b, gguf.FileTypeMostlyQ4_K_S), "blk.4.attn_v.weight", mat(4096, 1024), quant.TypeQ4_K},
		{with(llama8b, gguf.FileTypeMostlyQ6_K), "blk.4.attn_v.weight", mat(4096, 1024), quant.TypeQ6_K},
		{with(llama8b, gguf.FileTypeMostlyQ6_K), "rope_freqs.weight", []int64{64}, quant.TypeF32},
		// TQ1_0 and TQ2_0: the output Q6_K, the embeddings Q4_K, Q4_0 where
		// rows do not divide into 256-blocks.
		{with(llama8b, gguf.FileTypeMostlyTQ1_0), "output.weight", mat(4096, 128256), quant.TypeQ6_K},
		{with(llama8b, gguf.FileTypeMostlyTQ1_0), "token_embd.weight", mat(4096, 128256), quant.TypeQ4_K},
		{with(llama8b, gguf.FileTypeMostlyTQ2_0), "blk.0.attn_v.weight", mat(4096, 1024), quant.TypeTQ2_0},
		{with(llama8b, gguf.FileTypeMostlyTQ2_0), "blk.0.ffn_down.weight", mat(14336, 4096), quant.TypeTQ2_0},
		{with(qwen, gguf.FileTypeMostlyTQ1_0), "blk.0.attn_q.weight", mat(896, 896), quant.TypeQ4_0},
		{with(qwen, gguf.FileTypeMostlyTQ2_0), "token_embd.weight", mat(896, 151936), quant.TypeQ8_0},
		// MXFP4_MOE: the experts' 3-D tensors MXFP4, everything else Q8_0.
		{with(qwen3moe, gguf.FileTypeMostlyMXFP4), "blk.0.ffn_up_exps.weight", []int64{2048, 768, 128}, quant.TypeMXFP4},
		{with(qwen3moe, gguf.FileTypeMostlyMXFP4), "blk.0.ffn_down_exps.weight", []int64{768, 2048, 128}, quant.TypeMXFP4},
		{with(qwen3moe, gguf.FileTypeMostlyMXFP4), "blk.0.ffn_gate_inp.weight", mat(2048, 128), quant.TypeF32},
		{with(qwen3moe, gguf.FileTypeMostlyMXFP4), "blk.0.attn_v.weight", mat(2048, 512), quant.TypeQ8_0},
		{with(qwen3moe, gguf.FileTypeMostlyMXFP4), "token_embd.weight", mat(2048, 151936), quant.TypeQ8_0},
		{with(qwen3moe, gguf.FileTypeMostlyMXFP4), "output.weight", mat(2048, 151936), quant.TypeQ8_0},
		{with(llama1b, gguf.FileTypeMostlyMXFP4), "blk.0.ffn_up.weight", mat(2048, 8192), quant.TypeQ8_0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%s", tt.mix.Arch, tt.mix.FileType, tt.name), func(t *testing.T) {
			got, err := tt.mix.Type(tt.name, tt.shape, quant.TypeF32)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Type(%s %v) = %v, want %v", tt.name, tt.shape, got, tt.want)
			}
		})
	}
}

// TestMixMatchesLlamaQuantize rebuilds the tensor types of every reference
// model that llama-quantize made (testdata/models/tiny-*) from its file
// type and hyperparameters.
func TestMixMatchesLlamaQuantize(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(refdata.Dir(t), "models", "tiny-*.gguf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no reference models (%v)", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := gguf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ft, err := f.FileType()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DefaultType(ft); err != nil {
				t.Skipf("file type %s", ft)
			}
			m := mixOf(t, f, ft)
			for _, ti := range f.Tensors() {
				got, err := m.Type(ti.Name, ti.Shape, quant.TypeF32)
				if err != nil {
					t.Fatal(err)
				}
				if got != ti.Type {
					t.Errorf("%s %v: Mix says %v, llama-quantize wrote %v", ti.Name, ti.Shape, got, ti.Type)
				}
			}
		})
	}
}

// mixOf describes f's model for Mix.
func mixOf(t *testing.T, f *gguf.File, ft gguf.FileType) Mix {
	t.Helper()
	arch, err := f.Architecture()
	if err != nil {
		t.Fatal(err)
	}
	layers, err1 := f.BlockCount()
	heads, err2 := f.HeadCount()
	kv, err3 := f.HeadCountKV()
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	_, untied := f.Tensor("output.weight")
	return Mix{FileType: ft, Arch: arch, Layers: int(layers), GQA: int(heads / kv), Tied: !untied}
}

func TestParseMixFileType(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want gguf.FileType
		ok   bool
	}{
		{"q4_k_m", gguf.FileTypeMostlyQ4_K_M, true},
		{"Q8_0", gguf.FileTypeMostlyQ8_0, true},
		{"f16", gguf.FileTypeMostlyF16, true},
		{"bf16", gguf.FileTypeMostlyBF16, true},
		{"f32", gguf.FileTypeAllF32, true},
		{"iq4_nl", gguf.FileTypeMostlyIQ4NL, true},
		{"mxfp4_moe", gguf.FileTypeMostlyMXFP4, true},
		{"TQ1_0", gguf.FileTypeMostlyTQ1_0, true},
		{"iq2_xxs", gguf.FileTypeMostlyIQ2XXS, true},
		{"iq1_m", gguf.FileTypeMostlyIQ1M, true},
		{gguf.FileTypeMostlyQ1_0.String(), 0, false},
		{"q4_k", 0, false},
		{"", 0, false},
	} {
		got, err := ParseMixFileType(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseMixFileType(%q) = %v, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "quantize: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
	}
}
