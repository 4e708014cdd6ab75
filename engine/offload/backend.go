//go:build linux || windows || darwin

package offload

import "saji/kernels/gpu"

var _ Backend = (*gpu.Backend)(nil)

// newGPUBackend is a model's device-independent GPU backend over dev.
func newGPUBackend(dev gpu.Device) (Backend, error) {
	b, err := gpu.New(dev)
	if err != nil {
		return nil, err
	}
	return b, nil
}
