package metal

import (
	"fmt"

	"saji/kernels/gpu"
)

// NewBackend opens the Metal device (see Open) and returns a GPU backend
// over it. The device outlives the backend: close the backend, then its
// device (b.Device().Close()).
func NewBackend() (*gpu.Backend, error) {
	d, err := Open()
	if err != nil {
		return nil, err
	}
	b, err := gpu.New(d)
	if err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("metal: %w", err)
	}
	return b, nil
}
