// Package hardware describes the machine a model is to run on: its RAM,
// CPU and GPUs, and the memory bandwidth. Whether a model fits is
// engine/fit's answer, from these readings.
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
