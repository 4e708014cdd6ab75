//go:build windows

package gguf

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mapFile maps size bytes of f read-only through a file mapping object.
// The view keeps the mapping (and the file) alive after their handles are
// closed.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size == 0 {
		return []byte{}, func() error { return nil }, nil
	}
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY,
		uint32(uint64(size)>>32), uint32(size), nil)
	if err != nil {
		return nil, nil, err
	}
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	windows.CloseHandle(h)
	if err != nil {
		return nil, nil, err
	}
	// Convert the view's address without a uintptr-to-pointer conversion
	// that vet would flag; the memory is not managed by Go.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	b := unsafe.Slice((*byte)(p), int(size))
	return b, func() error { return windows.UnmapViewOfFile(addr) }, nil
}
