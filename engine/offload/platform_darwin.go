package offload

import (
	"errors"

	"saji/kernels/gpu"
)

// platform is Metal: the system's default GPU, which works in the
// machine's RAM.
func platform() Platform {
	return Platform{Name: "Metal", Unified: true, Open: openMetal, NewBackend: newGPUBackend}
}

// openMetal opens the system's default Metal device.
func openMetal() (gpu.Device, error) {
	return nil, errors.New("this build of Saji has no Metal backend yet")
}
