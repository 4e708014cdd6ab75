//go:build !unix && !windows

package gguf

import (
	"fmt"
	"os"
)

// mapFile reads the whole file into memory: this platform has no memory
// mapping that this package uses.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	b := make([]byte, size)
	if size == 0 {
		return b, nil, nil
	}
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	return b, nil, nil
}
