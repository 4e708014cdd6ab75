//go:build linux || windows

package offload

import (
	"errors"

	"saji/kernels/gpu"
)

// platform is CUDA: the NVIDIA driver's first device.
func platform() Platform {
	return Platform{Name: "CUDA", Open: openCUDA, NewBackend: newGPUBackend}
}

// openCUDA opens CUDA device 0.
func openCUDA() (gpu.Device, error) {
	return nil, errors.New("this build of Saji has no CUDA backend yet")
}
