package hardware

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestDiskFree checks that the free space of a real folder reads (or is
// reported unknown) and that a missing folder is an error.
func TestDiskFree(t *testing.T) {
	tests := []struct {
		name    string
		dir     string
		wantErr bool
	}{
		{"temporary folder", t.TempDir(), false},
		{"missing folder", filepath.Join(t.TempDir(), "missing"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := DiskFree(tc.dir)
			if errors.Is(err, ErrDiskFreeUnknown) {
				t.Skip("free space unknown on this platform")
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("DiskFree(%s) = %d, %v; want an error: %v", tc.dir, n, err, tc.wantErr)
			}
			if err == nil && n == 0 {
				t.Errorf("DiskFree(%s) = 0 on a writable folder", tc.dir)
			}
		})
	}
}
