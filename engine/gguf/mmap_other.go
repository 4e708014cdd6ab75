//go:build !unix && !windows

package gguf

import (
	"errors"
	"os"
)

// mapFile is not available on this platform; Open falls back to reading
// the whole file into memory.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	return nil, nil, errors.New("memory mapping is not supported on this platform")
}
