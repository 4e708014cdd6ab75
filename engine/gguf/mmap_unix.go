//go:build unix

package gguf

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps size bytes of f read-only. The mapping outlives f.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return unix.Munmap(b) }, nil
}
