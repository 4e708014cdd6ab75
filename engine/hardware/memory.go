// Package hardware describes the machine a model is to run on. For now it
// reads the memory and gives the plain RAM check that the Discover view,
// `saji pull` and the first-run page show per model; the fit planner (issue
// #10) will add the CPU, GPUs and a per-layer plan.
package hardware

import (
	"fmt"

	"github.com/shirou/gopsutil/v3/mem"
)

// Memory is the machine's RAM in bytes.
type Memory struct {
	Total, Available uint64
}

// ReadMemory reads the machine's total and available RAM.
func ReadMemory() (Memory, error) {
	vm, err := mem.VirtualMemory()
	if err != nil {
		return Memory{}, fmt.Errorf("hardware: reading the memory size: %w", err)
	}
	return Memory{Total: vm.Total, Available: vm.Available}, nil
}

// Verdict is how a model file fits the memory.
type Verdict int

// The verdicts, from best to worst.
const (
	// Fits: the weights with a working margin fit the available memory.
	Fits Verdict = iota
	// Tight: they fit the total memory but not what is available now;
	// closing other programs (or swapping) makes room.
	Tight
	// TooBig: they do not fit the total memory.
	TooBig
)

// String names the verdict as the UI shows it.
func (v Verdict) String() string {
	switch v {
	case Fits:
		return "fits"
	case Tight:
		return "tight"
	default:
		return "too big"
	}
}

// overhead is the memory a loaded model needs beyond its file: KV cache
// for a few thousand tokens, compute buffers, the runtime.
const overhead = 512 << 20

// Need is the memory a model file of size bytes needs to run with a few
// thousand tokens of context: its weights (mapped), a fifth more for the KV
// cache and buffers, and a fixed overhead. It is the rule hub.Recommend
// uses.
func Need(size int64) uint64 { return uint64(size)*6/5 + overhead }

// Check gives the plain RAM verdict for a model file of size bytes.
func (m Memory) Check(size int64) Verdict {
	need := Need(size)
	switch {
	case m.Available >= need:
		return Fits
	case m.Total >= need:
		return Tight
	default:
		return TooBig
	}
}
