package offload

import (
	"saji/kernels/gpu"
	"saji/kernels/metal"
)

// platform is Metal: the system's default GPU, which works in the
// machine's RAM.
func platform() Platform {
	return Platform{Name: "Metal", Unified: true, Open: openMetal, NewBackend: newGPUBackend}
}

// openMetal opens the system's default Metal device.
func openMetal() (gpu.Device, error) {
	d, err := metal.Open()
	if err != nil {
		return nil, err
	}
	return d, nil
}
