package model

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels"
	"saji/kernels/cpu"
)

// TestMoEModels writes each tiny mixture-of-experts shape of engine/synth
// (F32 and Q4_K_M), loads it, and runs a prompt and a few decode steps on
// the CPU backend's expert kernel and on the graph's fallback. Decoding
// multiplies each expert by one row, where the two are the same product:
// the logits must be equal bit for bit. A prompt batches the rows that
// chose an expert, which the fallback multiplies in a batched MatMul's
// order of summation: the logits must agree closely.
func TestMoEModels(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"tiny-qwen3moe", "tiny-qwen2moe", "tiny-mixtral", "tiny-gemma4moe"} {
		for _, typ := range []string{"f32", "q4_k_m"} {
			t.Run(name+"/"+typ, func(t *testing.T) {
				r := synth.Recipe{Shape: name, Type: typ, Seed: 7, Vocab: "vocab/llama3-trunc1280-qwen2.vocab.gguf"}
				path := filepath.Join(dir, r.Name()+".gguf")
				if _, _, err := r.Write(context.Background(), refdata.Path(t, r.Vocab), path); err != nil {
					t.Fatal(err)
				}
				shape, err := synth.LookupShape(name)
				if err != nil {
					t.Fatal(err)
				}
				f, err := gguf.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				d, err := Describe(f)
				if err != nil {
					t.Fatal(err)
				}
				shared := shape.SharedFFN
				if shape.Arch == "gemma4" {
					shared = shape.FFN // the dense network beside the experts
				}
				if d.Experts != shape.Experts || d.ExpertsUsed != shape.ExpertsUsed || d.SharedFFN != shared {
					t.Errorf("Describe: %d experts, %d used, shared FFN %d; want %d, %d, %d",
						d.Experts, d.ExpertsUsed, d.SharedFFN, shape.Experts, shape.ExpertsUsed, shared)
				}
				nff := shape.ExpertFFN
				if nff == 0 {
					nff = shape.FFN
				}
				idle := int64(3*shape.Embd*nff*shape.Layers) * int64(shape.Experts-shape.ExpertsUsed)
				if _, ok := f.Tensor("blk.0.ffn_down_exps.scale"); ok {
					idle += int64(shape.Layers * (shape.Experts - shape.ExpertsUsed)) // Gemma 4's expert scales
				}
				if d.ActiveParams != d.Params-idle || d.Params != f.ParameterCount() {
					t.Errorf("Describe: %d parameters, %d active; want %d, %d", d.Params, d.ActiveParams, f.ParameterCount(), f.ParameterCount()-idle)
				}
				prompt := []int32{1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 2, 6}
				// run returns the logits of the prompt in one batch, and those
				// of every step of a token-by-token pass over the prompt and
				// four more tokens.
				run := func(b kernels.Backend) (batch, steps []float32) {
					m, err := Load(context.Background(), f, Options{Backend: b})
					if err != nil {
						t.Fatal(err)
					}
					c, err := m.NewCache(64, 0)
					if err != nil {
						t.Fatal(err)
					}
					pos := make([]int32, len(prompt))
					for i := range pos {
						pos[i] = int32(i)
					}
					if batch, err = m.Forward(context.Background(), prompt, pos, c, true); err != nil {
						t.Fatal(err)
					}
					c.Reset()
					for i, tok := range append(prompt, 3, 7, 11, 15) {
						l, err := m.Forward(context.Background(), []int32{tok}, []int32{int32(i)}, c, false)
						if err != nil {
							t.Fatal(err)
						}
						steps = append(steps, l...)
					}
					return batch, steps
				}
				kb, ks := run(cpu.New(2))
				fb, fs := run(opsOnly{cpu.New(2)})
				var db, ds float64
				for i := range kb {
					db = max(db, math.Abs(float64(kb[i]-fb[i])))
				}
				for i := range ks {
					ds = max(ds, math.Abs(float64(ks[i]-fs[i])))
				}
				t.Logf("max |kernel-fallback|: prompt batch %.3g, token by token %.3g", db, ds)
				if ds != 0 {
					t.Errorf("token by token: the fallback's logits differ from the kernel's by %g", ds)
				}
				// A batch's last-bit differences can flip the rounding of an
				// activation quantization (README of the shared test data).
				tol := 1e-3
				if typ != "f32" {
					tol = 0.3
				}
				if db > tol {
					t.Errorf("prompt batch: the fallback's logits differ from the kernel's by %g", db)
				}
			})
		}
	}
}
