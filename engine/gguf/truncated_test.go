package gguf

import (
	"errors"
	"testing"
)

// TestTruncated checks that a file cut anywhere reports ErrTruncated
// (and ErrFormat), and a file that is wrong rather than short does not.
func TestTruncated(t *testing.T) {
	b := encode(t, buildWriter(t, sinkKVs(t), sinkTensors))
	for _, n := range []int{8, 24, len(b) / 4, len(b) / 2, len(b) * 3 / 4} {
		_, err := OpenBytes(b[:n])
		if !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrFormat) {
			t.Errorf("cut at %d of %d bytes: %v", n, len(b), err)
		}
	}
	bad := append([]byte("GGUX"), b[4:]...)
	if _, err := OpenBytes(bad); !errors.Is(err, ErrFormat) || errors.Is(err, ErrTruncated) {
		t.Errorf("bad magic: %v", err)
	}
	if _, err := OpenBytes(b); err != nil {
		t.Errorf("the whole file: %v", err)
	}
}
