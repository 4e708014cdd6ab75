package fit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestMixtureOfExperts checks what the plan makes of a mixture of experts:
// Describe finds the experts' bytes in each block, a decoded token reads
// only its share of them, and the step's buffers grow with the experts a
// token runs, not with all of them.
func TestMixtureOfExperts(t *testing.T) {
	r := synth.Recipe{Shape: "tiny-qwen3moe", Type: "q8_0", Seed: 1, Vocab: "vocab/llama3-trunc1280-qwen2.vocab.gguf"}
	path := filepath.Join(t.TempDir(), r.Name()+".gguf")
	if _, _, err := r.Write(context.Background(), refdata.Path(t, r.Vocab), path); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	if s.Experts != 8 || s.ExpertsUsed != 4 || s.FFN != 256 || len(s.ExpertBytes) != s.Layers {
		t.Fatalf("shape %+v", s)
	}
	var experts int64
	for _, ti := range f.Tensors() {
		if strings.Contains(ti.Name, "_exps.") {
			experts += ti.Size
		}
	}
	var described int64
	for _, b := range s.ExpertBytes {
		described += b
	}
	if described != experts {
		t.Errorf("expert bytes %d, the file's %d", described, experts)
	}
	m := hardware.Machine{Memory: hardware.Memory{Total: 64 << 30, Available: 60 << 30}, Bandwidth: 20e9}
	p, err := PlanFor(s, m, Request{Context: 1024, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	dense := s
	dense.Experts, dense.ExpertsUsed, dense.ExpertBytes = 0, 0, nil
	d, err := PlanFor(dense, m, Request{Context: 1024, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := d.DecodeBytes - experts/2; p.DecodeBytes != want {
		t.Errorf("a token reads %d bytes, want %d (half the experts fewer than %d)", p.DecodeBytes, want, d.DecodeBytes)
	}
	if p.Breakdown.Weights != d.Breakdown.Weights {
		t.Errorf("weights %d, want all of the file's %d", p.Breakdown.Weights, d.Breakdown.Weights)
	}
	// Four experts of 256 per token, with their outputs: more than one
	// expert's buffers, less than all eight experts'.
	if p.Breakdown.Activations <= d.Breakdown.Activations {
		t.Errorf("activations %d, not above one expert's %d", p.Breakdown.Activations, d.Breakdown.Activations)
	}
	all := dense
	all.FFN = 8 * 256
	a, _ := PlanFor(all, m, Request{Context: 1024, Parallel: 1})
	if p.Breakdown.Activations >= a.Breakdown.Activations {
		t.Errorf("activations %d, not below all experts' %d", p.Breakdown.Activations, a.Breakdown.Activations)
	}
	t.Run("repacked", func(t *testing.T) {
		// The CPU backend repacks experts as it does dense weights: each
		// expert's copy counts, once per expert (SAJI_REPACK=on, so that Q8_0
		// has a layout on AVX2 machines too).
		t.Setenv("SAJI_REPACK", "on")
		on, err := Describe(f)
		if err != nil {
			t.Fatal(err)
		}
		var repacked, wantRepacked int64
		for _, ti := range f.Tensors() {
			if strings.HasPrefix(ti.Name, "blk.") {
				repacked += repackBytes(ti)
				if strings.Contains(ti.Name, "_exps.") {
					wantRepacked += int64(ti.Shape[2]) * cpu.RepackBytes(ti.Type, []int{int(ti.Shape[0]), int(ti.Shape[1])})
				} else {
					wantRepacked += repackBytes(ti)
				}
			}
		}
		var counted int64
		for _, b := range on.RepackBytes {
			counted += b
		}
		if counted != repacked || repacked != wantRepacked || (counted == 0 && cpu.RepackBytes(quant.TypeQ8_0, []int{32, 4}) > 0) {
			t.Errorf("repacked bytes: %d counted, %d by tensor, want %d", counted, repacked, wantRepacked)
		}
	})
}
