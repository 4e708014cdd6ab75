//go:build linux || windows

package offload

import (
	"saji/kernels/cuda"
	"saji/kernels/gpu"
)

// platform is CUDA: the NVIDIA driver's first device.
func platform() Platform {
	return Platform{Name: "CUDA", Open: openCUDA, NewBackend: newGPUBackend}
}

// openCUDA opens CUDA device 0.
func openCUDA() (gpu.Device, error) {
	d, err := cuda.Open(cuda.Options{})
	if err != nil {
		return nil, err
	}
	return d, nil
}
