package fit

import (
	"math"

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

// LoadRAM returns the RAM, in bytes, that loading the model of shape (of
// size bytes on disk) takes when it runs with req (the scheduler's
// settings and its GPU layers: SchedulerRequest), the last req.GPULayers
// layers (and the output head with all of them) copied to a GPU of its
// own; on a unified-memory GPU (unified) everything counts in RAM. It is
// the plan's RAM part, or SizeNeed(size) when shape is nil (the model could
// not be described).
func LoadRAM(shape *ModelShape, size int64, req Request, unified bool) int64 {
	if shape == nil {
		return SizeNeed(size)
	}
	machine := hardware.Machine{Memory: hardware.Memory{Total: math.MaxInt64, Available: math.MaxInt64}}
	if unified {
		req.GPULayers = 0
	}
	if req.GPULayers > 0 {
		machine.GPUs = []hardware.GPU{{Name: "gpu", Total: math.MaxInt64, Free: math.MaxInt64}}
	} else {
		req.GPULayers = 0
	}
	p, err := PlanFor(*shape, machine, req)
	if err != nil {
		return SizeNeed(size)
	}
	return p.Breakdown.RAM
}
