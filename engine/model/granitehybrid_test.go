package model

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestGraniteHybridState checks a Granite 4 hybrid's layout and its
// Mamba-2 states: the layers with no KV heads keep the convolution
// windows of x, B and C and the scan's state (what llama.cpp's
// n_embd_r and n_embd_s come to), the attention layer alone has a cache,
// and a prompt read in chunks gives the logits of single steps, the
// windows and scan state carried from chunk to chunk.
func TestGraniteHybridState(t *testing.T) {
	if raceEnabled || (testing.Short() && runtime.GOARCH != "amd64") {
		t.Skip("model: 13 s under the race detector, more under emulation; TestRecurrentState checks LFM2's states there")
	}
	_, m, f := loadRef(t, "tiny-granitehybrid-q4_k_m", cpu.New(2))
	sameDescription(t, m, f)
	rec := m.Recurrent()
	layers := make([]int, len(rec))
	for i, l := range rec {
		layers[i] = l.Layer
	}
	// 3 taps of 512+2·128 channels, a state of 64 for each of 512 rows.
	const perLayer = (3*(512+2*128) + 512*64) * 4
	if !slices.Equal(layers, []int{0, 2, 3}) || StateBytes(rec) != 3*perLayer {
		t.Fatalf("recurrent layers %+v (%d bytes, want %d)", rec, StateBytes(rec), 3*perLayer)
	}
	if g := m.KVGroups(); len(g) != 1 || !slices.Equal(g[0].Layers, []int{1}) {
		t.Fatalf("KV groups %+v: the attention layer is 1", g)
	}
	if c := m.Config(); c.Experts != 8 || c.ExpertsUsed != 2 || c.SharedFFN != 512 || c.FFN != 256 {
		t.Errorf("config %+v: 8 experts of 256, 2 a token, a shared expert of 512", c)
	}
	// Chunks of fewer than 4 tokens take the same products as single
	// steps (Q4_K's batches of 4 rows sum in another order), and gave the
	// same logits to the bit until softplus took glibc's logf; since then
	// they differ by up to 1e-4 (the cause is not found yet), with the
	// same tokens.
	chunksAsSteps(t, m, 1e-4)
}

// sameDescription checks that Describe, which reads no weights (engine/fit
// plans with it), gives the recurrent layers and KV groups of m, loaded
// from f.
func sameDescription(t *testing.T, m Model, f *gguf.File) {
	t.Helper()
	d, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Recurrent, m.Recurrent()) || !reflect.DeepEqual(d.KVGroups, m.KVGroups()) {
		t.Errorf("Describe: recurrent layers %+v and KV groups %+v, the loaded model %+v and %+v", d.Recurrent, d.KVGroups, m.Recurrent(), m.KVGroups())
	}
}

// chunksAsSteps checks that a prompt read in chunks of 2 and 3 tokens
// gives the greedy tokens and, within tol, the logits of single steps:
// the recurrent states carried from chunk to chunk.
func chunksAsSteps(t *testing.T, m Model, tol float32) {
	t.Helper()
	prompt := []int32{1, 5, 77, 300, 12, 9, 200, 41, 42, 43, 400, 7}
	steps := generateSolo(t, m, quant.TypeF16, 64, prompt, 1, 6)
	near := func(a, b []float32) bool {
		for i := range a {
			if d := a[i] - b[i]; d > tol || -d > tol {
				return false
			}
		}
		return len(a) == len(b)
	}
	for _, chunk := range []int{2, 3} {
		got := generateSolo(t, m, quant.TypeF16, 64, prompt, chunk, 6)
		if !slices.Equal(got.tokens, steps.tokens) || !slices.EqualFunc(got.logits, steps.logits, near) {
			t.Errorf("chunks of %d: %v, single steps %v (or the logits differ by more than %g)", chunk, got.tokens, steps.tokens, tol)
		}
	}
}

// TestMamba2LoadErrors checks that Mamba-2 hyperparameters and tensors out
// of place fail the load (and the description) with their names, never a
// panic: files are untrusted.
func TestMamba2LoadErrors(t *testing.T) {
	if testing.Short() && runtime.GOARCH != "amd64" {
		t.Skip("-short under emulation: the load's checks have nothing architecture-specific")
	}
	for _, c := range []struct {
		shape, key string
		value      any
		want       string
	}{
		{"tiny-granitehybrid-dense", "granitehybrid.ssm.group_count", uint32(0), "ssm.group_count"},
		{"tiny-granitehybrid-dense", "granitehybrid.ssm.group_count", uint32(3), "group_count"},
		{"tiny-granitehybrid-dense", "granitehybrid.ssm.time_step_rank", uint32(7), "time_step_rank"},
		{"tiny-granitehybrid-dense", "granitehybrid.ssm.conv_kernel", uint32(1), "conv_kernel"},
		{"tiny-granitehybrid-dense", "granitehybrid.ssm.state_size", uint32(32), "ssm_in.weight"},
		{"tiny-granitehybrid-dense", "granitehybrid.ssm.inner_size", "wide", "ssm.inner_size"},
		{"tiny-nemotronh", "nemotron_h.feed_forward_length", []uint32{0, 512}, "feed_forward_length"},
		{"tiny-nemotronh", "nemotron_h.feed_forward_length", []uint32{0, 1 << 31, 0, 512, 0, 512}, "feed_forward_length"},
		{"tiny-nemotronhmoe", "nemotron_h_moe.moe_latent_size", uint32(64), "moe_latent_size"},
		{"tiny-nemotronhmoe", "nemotron_h_moe.expert_count", uint32(0), "expert_count"},
	} {
		t.Run(c.key, func(t *testing.T) {
			f := withKey(t, writeSynth(t, c.shape, "q8_0", 1), c.key, c.value)
			_, err := Load(context.Background(), f, Options{Threads: 1})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("load: %v, want an error naming %s", err, c.want)
			}
			if _, err := Describe(f); err == nil {
				t.Error("describe: no error")
			}
		})
	}
	f := writeSynth(t, "tiny-granitehybrid-dense", "q8_0", 1)
	for _, name := range []string{"blk.0.ssm_a", "blk.0.ssm_d", "blk.0.ssm_dt.bias", "blk.0.ssm_norm.weight", "blk.0.ssm_conv1d.weight"} {
		if _, err := Load(context.Background(), withoutTensor(t, f, name), Options{Threads: 1}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("without %s: %v", name, err)
		}
	}
}
