package fit

import (
	"math"

	"saji/engine/gguf"
	"saji/engine/hardware"
)

// fallbackOverhead is what the size-based fallback adds for the runtime,
// the tokenizer and the compute buffers.
const fallbackOverhead = 512 << 20

// SizeNeed is the memory a model file of size bytes needs by the
// size-based fallback, the rule for a model whose header cannot be read
// (a hub level before its header is fetched, an unreadable file): the
// weights (the file), a fifth more for the KV cache of a few thousand
// tokens and the buffers, and 512 MiB for the runtime. A plan from the
// header (PlanFor) replaces it as soon as there is one.
func SizeNeed(size int64) int64 { return max(0, size) + max(0, size)/5 + fallbackOverhead }

// PlanSize plans a model known only by the size of its file, by the
// size-based fallback (SizeNeed) against the machine's RAM: CPUOnly
// (Tight when only the total memory holds it) or WontFit. The plan has
// Fallback set and a breakdown of weights and total only.
func PlanSize(size int64, machine hardware.Machine) Plan {
	need := SizeNeed(size)
	p := Plan{Model: ModelShape{FileSize: size}, Machine: machine, Fallback: true}
	p.Breakdown = Breakdown{Weights: size, Total: need, RAM: need}
	p.Verdict = p.ramVerdict(Verdict{Kind: CPUOnly})
	p.Warnings = []string{"estimated from the file's size alone (its header could not be read)"}
	return p
}

// LoadRAM returns the RAM, in bytes, that loading the model of the open
// GGUF file f (of size bytes on disk) takes when it runs with req (the
// scheduler's settings: SchedulerRequest) and gpuLayers of its layers (the
// last ones, and the output head with all of them) are copied to a GPU of
// its own; with gpuLayers 0, or a unified-memory GPU (unified), everything
// counts in RAM. It is the plan's RAM part (PlanFor on f's header), or
// SizeNeed(size) when f is nil or its model cannot be described.
// req.GPULayers is ignored.
func LoadRAM(f *gguf.File, size int64, req Request, gpuLayers int, unified bool) int64 {
	if f == nil {
		return SizeNeed(size)
	}
	shape, err := Describe(f)
	if err != nil {
		return SizeNeed(size)
	}
	machine := hardware.Machine{Memory: hardware.Memory{Total: math.MaxInt64, Available: math.MaxInt64}}
	req.GPULayers = 0
	if gpuLayers > 0 && !unified {
		machine.GPUs = []hardware.GPU{{Name: "gpu", Total: math.MaxInt64, Free: math.MaxInt64}}
		req.GPULayers = gpuLayers
	}
	p, err := PlanFor(shape, machine, req)
	if err != nil {
		return SizeNeed(size)
	}
	return p.Breakdown.RAM
}
