//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package gguf

import "errors"

// allocAnon returns size bytes on the Go heap: this platform has no
// anonymous mapping that this package uses.
func allocAnon(size int) ([]byte, func() error, error) {
	return make([]byte, size), nil, nil
}

// lockMemory is not supported on this platform.
func lockMemory(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return errors.ErrUnsupported
}
