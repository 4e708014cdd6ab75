package quantize

import (
	"os"
	"path/filepath"
	"testing"

	"saji/engine/hardware"
)

// TestCheckSpace checks the free-space refusal, with the file system's
// answer faked.
func TestCheckSpace(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.gguf")
	if err := os.WriteFile(existing, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	free := func(n uint64, ok bool) func(string) (uint64, error) {
		return func(d string) (uint64, error) {
			if d != dir {
				t.Errorf("free space asked of %s, want %s", d, dir)
			}
			if !ok {
				return 0, hardware.ErrDiskFreeUnknown
			}
			return n, nil
		}
	}
	fresh := filepath.Join(dir, "new.gguf")
	tests := []struct {
		name, out string
		need      int64
		free      func(string) (uint64, error)
		want      string
	}{
		{"fits", fresh, 10 << 20, free(10<<20, true), ""},
		{"full", fresh, 10<<20 + 1, free(10<<20, true), "quantize: " + fresh + " needs 10 MB, and its disk has 10 MB free"},
		{"unknown", fresh, 1 << 40, free(0, false), ""},
		{"replacing a file frees its size", existing, 12 << 20, free(9<<20, true), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkSpace(tc.out, tc.need, tc.free)
			if (err == nil) != (tc.want == "") || (err != nil && err.Error() != tc.want) {
				t.Errorf("checkSpace = %v, want %q", err, tc.want)
			}
		})
	}
}
