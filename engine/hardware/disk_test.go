package hardware

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestDiskFree checks that the free space of a real folder reads (or is
// reported unknown) and that a missing folder is an error.
func TestDiskFree(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		dir  string
		fail bool // DiskFree must fail
	}{{dir, false}, {filepath.Join(dir, "missing"), true}} {
		n, err := DiskFree(tt.dir)
		switch {
		case errors.Is(err, ErrDiskFreeUnknown):
			t.Skip("free space unknown on this platform")
		case (err != nil) != tt.fail:
			t.Errorf("DiskFree(%s) = %d, %v; want failure %v", tt.dir, n, err, tt.fail)
		case err == nil && n == 0:
			t.Errorf("DiskFree(%s) = 0 on a writable folder", tt.dir)
		}
	}
}
