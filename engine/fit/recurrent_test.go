package fit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/hardware"
	"saji/engine/model"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// TestRecurrentState checks the plan of a hybrid model (the synthetic
// tiny LFM2, Qwen3.5 and Nemotron-H) against the engine: its KV groups
// hold the attention layers only, and its recurrent state is a slot of
// every recurrent layer's
// state for each sequence the scheduler runs at once and for each state
// snapshot of the prefix cache, counted in the total and explained.
func TestRecurrentState(t *testing.T) {
	for _, r := range []synth.Recipe{
		{Shape: "tiny-lfm2", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-llama-bpe.vocab.gguf"},
		{Shape: "tiny-qwen35", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-qwen2.vocab.gguf"},
		// Nemotron-H: Mamba-2 layers, and feed-forward layers with neither
		// keys nor a state.
		{Shape: "tiny-nemotronh", Type: "q8_0", Seed: 1, Vocab: "vocab/tok512-spm.vocab.gguf"},
	} {
		t.Run(r.Shape, func(t *testing.T) { testRecurrentState(t, r) })
	}
}

// testRecurrentState checks the plan of the recipe's model.
func testRecurrentState(t *testing.T, r synth.Recipe) {
	path := filepath.Join(t.TempDir(), r.Name()+".gguf")
	if _, _, err := r.Write(context.Background(), filepath.Join(refdata.Dir(t), r.Vocab), path); err != nil {
		t.Fatal(err)
	}
	s, m := describeAndLoad(t, path)
	per := model.StateBytes(m.Recurrent())
	for _, parallel := range []int{1, 4} {
		p, err := PlanFor(s, hardware.Machine{}, Request{Context: 256, KVType: "f16", Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		cfg := scheduler.Config{Context: 256, KVType: "f16", Parallel: parallel}.Sized(s.ContextTrain)
		slots := scheduler.StateSlots(cfg)
		if b := p.Breakdown; b.State != per*int64(slots) || p.MaxSeqs != cfg.MaxSeqs || slots != 5*cfg.MaxSeqs {
			t.Errorf("parallel %d: state %d bytes for %d sequences, the engine %d×%d slots", parallel, b.State, p.MaxSeqs, per, slots)
		}
		groups := m.KVGroups()
		if len(p.Breakdown.KVGroups) != 1 || p.Breakdown.KVGroups[0].Layers != len(groups[0].Layers) ||
			p.Breakdown.KVGroups[0].CellBytes != int64(groups[0].CellBytes(quant.TypeF16)) {
			t.Errorf("parallel %d: KV groups %+v, the engine's %+v", parallel, p.Breakdown.KVGroups, groups)
		}
		b := p.Breakdown
		if b.Total != b.Weights+b.KV+b.State+b.Activations+b.Logits+b.Overhead+b.Repacked {
			t.Errorf("parallel %d: the total %d leaves the state out", parallel, b.Total)
		}
		if text := strings.Join(p.Explain(), "\n"); !strings.Contains(text, "Recurrent state") {
			t.Errorf("parallel %d: the explanation says nothing of the state:\n%s", parallel, text)
		}
	}
}
