package runner

import (
	"os"
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/engine/kvcache"
)

// TestFingerprint: a file's fingerprint is stable, the same for a copy,
// and changes with a byte of its weights or its header.
func TestFingerprint(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fp := func(p string) kvcache.Key {
		t.Helper()
		f, err := gguf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		k, err := Fingerprint(f)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	want := fp(path)
	if fp(path) != want || want.IsZero() {
		t.Fatal("the fingerprint of one file changed")
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	off := f.DataOffset(0)
	f.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		at   int64 // byte to change, or -1
		same bool
	}{{"copy", -1, true}, {"first weight byte", off, false}, {"last weight byte", int64(len(data)) - 1, false}, {"header byte", off - 1, false}} {
		c := append([]byte(nil), data...)
		if tc.at >= 0 {
			c[tc.at] ^= 0x40
		}
		p := filepath.Join(dir, tc.name+".gguf")
		if err := os.WriteFile(p, c, 0o644); err != nil {
			t.Fatal(err)
		}
		if tc.name == "header byte" {
			// The last header byte may be padding that no parser reads.
			got, err := gguf.Open(p)
			if err != nil {
				continue
			}
			got.Close()
		}
		if got := fp(p) == want; got != tc.same {
			t.Errorf("%s: same fingerprint %v, want %v", tc.name, got, tc.same)
		}
	}
}
