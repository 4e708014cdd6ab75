package fit

import (
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/scheduler"
	"saji/internal/refdata"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestPlanRepacked checks that a CPU plan counts the CPU backend's
// interleaved weight copies in Total and RAM, the layers on a GPU left
// out, and nothing with SAJI_REPACK=off (repacking is opt-in: on).
func TestPlanRepacked(t *testing.T) {
	t.Setenv("SAJI_REPACK", "on")
	if cpu.RepackBytes(quant.TypeQ8_0, []int{32, 4}) == 0 {
		t.Skip("fit: the CPU backend repacks no weights on this machine")
	}
	f, err := gguf.Open(filepath.Join(refdata.Dir(t), "models", "tiny-llama3-bpe-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	plan := func(t *testing.T, gpuLayers int) (ModelShape, Breakdown) {
		t.Helper()
		shape, err := Describe(f)
		if err != nil {
			t.Fatal(err)
		}
		machine := hardware.Machine{Memory: hardware.Memory{Total: 1 << 40, Available: 1 << 40}}
		if gpuLayers > 0 {
			machine.GPUs = []hardware.GPU{{Name: "gpu", Total: 1 << 40, Free: 1 << 40}}
		}
		p, err := PlanFor(shape, machine, SchedulerRequest(scheduler.Config{Context: 256, Parallel: 1}, gpuLayers))
		if err != nil {
			t.Fatal(err)
		}
		return shape, p.Breakdown
	}
	shape, on := plan(t, 0)
	if shape.RepackOther+shape.RepackBytes[0] == 0 || on.Repacked != shape.cpuRepackBytes(shape.Layers) {
		t.Fatalf("repacked %d, shape %v + %d", on.Repacked, shape.RepackBytes, shape.RepackOther)
	}
	_, half := plan(t, shape.Layers/2)
	if want := shape.cpuRepackBytes(shape.Layers - shape.Layers/2); half.Repacked != want || want >= on.Repacked {
		t.Errorf("half the layers on a GPU: repacked %d, want %d (all: %d)", half.Repacked, want, on.Repacked)
	}
	t.Setenv("SAJI_REPACK", "off")
	_, off := plan(t, 0)
	if off.Repacked != 0 || on.RAM-off.RAM != on.Repacked || on.Total-off.Total != on.Repacked {
		t.Errorf("SAJI_REPACK=off: repacked %d, RAM %d (on: %d, repacked %d)", off.Repacked, off.RAM, on.RAM, on.Repacked)
	}
}
