//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package gguf

import "golang.org/x/sys/unix"

// adviseHugePages asks for b to be backed by huge pages where the system
// has them (Linux sets it), so that reading the weights takes fewer TLB
// misses. It is advice: failure does not matter.
var adviseHugePages = func(b []byte) {}

// allocAnon returns size bytes of zeroed anonymous memory outside the Go
// heap (so the garbage collector neither scans nor paces on it) and the
// function that releases it.
func allocAnon(size int) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, nil, nil
	}
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	adviseHugePages(b)
	return b, func() error { return unix.Munmap(b) }, nil
}

// lockMemory locks b into RAM, first raising the soft RLIMIT_MEMLOCK to
// the hard limit as far as it will go. Unmapping b unlocks it.
func lockMemory(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl) == nil && rl.Cur < rl.Max {
		rl.Cur = rl.Max
		_ = unix.Setrlimit(unix.RLIMIT_MEMLOCK, &rl)
	}
	return unix.Mlock(b)
}
