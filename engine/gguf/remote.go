package gguf

import (
	"errors"
	"fmt"
	"io"
)

// Limits of ReadHeader: the first read, and the largest header it accepts
// (a 256k-token vocabulary with its merges takes well under 64 MiB).
const (
	headerFirstRead = 1 << 20
	maxHeaderSize   = 256 << 20
)

// ReadHeader parses the metadata and tensor table of a GGUF file of size
// bytes that r reads, reading only the start of the file that the header
// takes: 1 MiB first, then twice as much until the header is complete. It
// is meant for a file on the network (r fetching byte ranges), where the
// weights are not wanted. Split keys are not followed.
//
// The File has no tensor data: Data and TensorData fail, and FileSize
// reports the header's bytes only.
func ReadHeader(r io.ReaderAt, size int64) (*File, error) {
	if size < 0 {
		return nil, fmt.Errorf("gguf: negative file size %d", size)
	}
	var b []byte
	n := min(size, headerFirstRead)
	for {
		if n > maxHeaderSize {
			return nil, fmt.Errorf("gguf: %w: the header is larger than %d bytes", ErrFormat, maxHeaderSize)
		}
		old := len(b)
		b = append(b, make([]byte, int(n)-old)...)
		if err := readFull(r, b[old:], int64(old)); err != nil {
			return nil, err
		}
		h, err := parseSized(b, uint64(size))
		if err == nil {
			// Keep exactly the header and its padding, so that the
			// data section holds nothing and Data fails cleanly.
			end := h.dataOffset
			if int64(len(b)) < end {
				pad := make([]byte, end-int64(len(b)))
				if err := readFull(r, pad, int64(len(b))); err != nil {
					return nil, err
				}
				b = append(b, pad...)
			}
			return newFile([]*shard{{data: b[:end:end], hdr: h}})
		}
		if !errors.Is(err, ErrTruncated) || n == size {
			return nil, fmt.Errorf("gguf: %w", err)
		}
		n = min(size, 2*n)
	}
}

// readFull reads len(p) bytes at off, an early end of the file being
// ErrTruncated.
func readFull(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("gguf: %w: %d bytes at offset %d, read %d", ErrTruncated, len(p), off, n)
	}
	return fmt.Errorf("gguf: reading %d bytes at offset %d: %w", len(p), off, err)
}
